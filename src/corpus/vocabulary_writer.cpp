#include "src/corpus/vocabulary_writer.hpp"

#include <optional>
#include <vector>

#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

// One partition's words as they come, a page at a time.
class page_reader {
public:
  page_reader(const vocabulary_page_source& source, uint32_t partition) : source_(source), partition_(partition) {}

  // The next word and its count; nullopt at the end (or on failure:
  // failure() says which).
  std::optional<std::pair<std::string_view, uint64_t>> next() {
    if (at_ == page_.size() && !fetch())
      return std::nullopt;
    const std::string_view word = std::string_view{page_.words}.substr(offset_, page_.lengths[at_]);
    offset_ += page_.lengths[at_];
    return std::pair{word, page_.counts[at_++]};
  }
  const std::string& failure() const { return failure_; }

private:
  bool fetch() {
    if (done_)
      return false;
    auto page = source_(partition_);
    if (!page || !page->well_formed() || page->size() == 0) {
      if (!page)
        failure_ = page.error();
      else if (!page->well_formed())
        failure_ = "partition " + std::to_string(partition_) + " sent a page whose words and counts disagree";
      done_ = true;
      return false;
    }
    page_ = std::move(*page);
    at_ = 0;
    offset_ = 0;
    return true;
  }

  const vocabulary_page_source& source_;
  uint32_t partition_;
  count_table page_;
  size_t at_ = 0, offset_ = 0;
  bool done_ = false;
  std::string failure_;
};

} // namespace

status write_vocabulary_files(const vocabulary_layout& layout, const vocabulary_page_source& next_page, uint64_t lines,
                              const std::string& path, const std::string& word2vec_path) {
  auto file = atomic_file::create(path, "the vocabulary");
  if (!file)
    return failure{file.error()};
  std::optional<atomic_file> word2vec;
  if (!word2vec_path.empty()) {
    auto made = atomic_file::create(word2vec_path, "the vocabulary (-save-vocab)");
    if (!made)
      return failure{made.error()};
    word2vec.emplace(std::move(*made));
    std::fprintf(word2vec->stream(), "</s> %llu\n", static_cast<unsigned long long>(lines));
  }
  std::FILE* f = file->stream();
  std::fprintf(f, "gridvec-vocabulary 1 %llu %llu\n", static_cast<unsigned long long>(layout.size()),
               static_cast<unsigned long long>(layout.train_words()));
  std::vector<page_reader> readers;
  for (uint32_t p = 0; p < layout.partitions(); ++p)
    readers.emplace_back(next_page, p);
  auto disagree = [&](uint32_t p, uint64_t count, const std::string& why) {
    return failure{"partition " + std::to_string(p) + "'s words of count " + std::to_string(count) +
                   " disagree with the vocabulary's layout" + (why.empty() ? "" : ": " + why)};
  };
  for (const uint64_t count : layout.counts())
    for (uint32_t p = 0; p < layout.partitions(); ++p)
      for (uint64_t k = 0, n = layout.kept(p, count); k < n; ++k) {
        auto word = readers[p].next();
        if (!word || word->second != count)
          return disagree(p, count, readers[p].failure());
        std::fprintf(f, "%llu ", static_cast<unsigned long long>(count));
        std::fwrite(word->first.data(), 1, word->first.size(), f);
        std::fputc('\n', f);
        if (word2vec) {
          std::fwrite(word->first.data(), 1, word->first.size(), word2vec->stream());
          std::fprintf(word2vec->stream(), " %llu\n", static_cast<unsigned long long>(count));
        }
      }
  for (uint32_t p = 0; p < layout.partitions(); ++p)
    if (readers[p].next())
      return failure{"partition " + std::to_string(p) + " holds more words than the vocabulary's layout gives it"};
  if (auto s = file->commit(); !s)
    return s;
  return word2vec ? word2vec->commit() : status{};
}

} // namespace gridvec
