#include "src/corpus/vocabulary_reader.hpp"

#include <gridvec/core/vocabulary.hpp>

#include "src/access/guarded_open.hpp"

namespace gridvec {

expected<vocabulary_reader> vocabulary_reader::open_guarded(const std::string& path) {
  auto opened = access::istream_read(path, "vocabulary");
  if (!opened)
    return failure{opened.error()};
  vocabulary_reader r;
  r.path_ = path;
  r.in_ = std::move(*opened);
  std::string magic;
  int version = 0;
  if (!(*r.in_ >> magic >> version >> r.size_ >> r.train_words_) || magic != "gridvec-vocabulary" || version != 1)
    return failure{path + " is not a gridvec vocabulary file"};
  if (r.size_ > vocabulary::max_words)
    return failure{path + ": " + std::to_string(r.size_) + " words, more than the " +
                   std::to_string(vocabulary::max_words) + " that 32-bit word ids can number"};
  return r;
}

status vocabulary_reader::next(std::string& word, uint64_t& count) {
  if (next_ >= size_)
    return failure{path_ + ": no word " + std::to_string(next_ + 1) + " (the header says " + std::to_string(size_) +
                   ")"};
  count = 0;
  if (!(*in_ >> count >> word) || count == 0)
    return failure{path_ + ": malformed entry " + std::to_string(next_ + 1)};
  ++next_;
  counted_ += count;
  // Checked here, at the last word, so that every reader (an exporter
  // too, not only vocabulary::load) refuses a file whose counts were cut
  // or changed.
  if (next_ == size_ && counted_ != train_words_)
    return failure{path_ + ": counts do not add up to the header's total (truncated file?)"};
  return {};
}

status vocabulary_reader::skip_to(uint64_t id) {
  if (id > size_)
    return failure{path_ + ": no word " + std::to_string(id) + " (the header says " + std::to_string(size_) + ")"};
  std::string word;
  uint64_t count = 0;
  while (next_ < id)
    if (auto s = next(word, count); !s)
      return s;
  return {};
}

} // namespace gridvec
