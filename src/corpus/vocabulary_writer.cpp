#include "src/corpus/vocabulary_writer.hpp"

#include <charconv>
#include <future>
#include <optional>
#include <system_error>
#include <vector>

#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

// One partition's words as they come, a page at a time. The next page is
// asked for as soon as one arrives, so that the partition makes it while
// this one is written (one request a partition in flight, as before).
class page_reader {
public:
  page_reader(const vocabulary_page_source& source, uint32_t partition) : source_(&source), partition_(partition) {}

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
    count_table spare = std::move(page_); // written out: the next page may reuse its memory
    spare.clear();
    page_ = count_table{};
    at_ = 0;
    offset_ = 0;
    auto page = next_.valid() ? next_.get() : (*source_)(partition_, std::move(spare));
    if (!page || !page->well_formed() || page->size() == 0) {
      if (!page)
        failure_ = page.error();
      else if (!page->well_formed())
        failure_ = "partition " + std::to_string(partition_) + " sent a page whose words and counts disagree";
      done_ = true;
      return false;
    }
    page_ = std::move(*page);
    try {
      next_ = std::async(std::launch::async, [source = source_, p = partition_, spare = std::move(spare)]() mutable {
        return (*source)(p, std::move(spare));
      });
    } catch (const std::system_error&) {
      // No thread to be had: the next page is asked for when it is needed.
    }
    return true;
  }

  const vocabulary_page_source* source_;
  uint32_t partition_;
  count_table page_;
  std::future<expected<count_table>> next_;
  size_t at_ = 0, offset_ = 0;
  bool done_ = false;
  std::string failure_;
};

// Lines gathered in memory and written a megabyte at a time (a formatted
// write per word was most of the writer's own time).
class line_buffer {
public:
  explicit line_buffer(std::FILE* f) : f_(f) {}
  ~line_buffer() { flush(); }
  line_buffer(const line_buffer&) = delete;
  line_buffer& operator=(const line_buffer&) = delete;

  void number(uint64_t n) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    text_.append(digits, end);
  }
  void text(std::string_view s) { text_.append(s); }
  void end_line() {
    text_.push_back('\n');
    if (text_.size() >= (size_t{1} << 20))
      flush();
  }
  void flush() {
    std::fwrite(text_.data(), 1, text_.size(), f_);
    text_.clear();
  }

private:
  std::FILE* f_;
  std::string text_;
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
  {
    line_buffer out{f};
    std::optional<line_buffer> out_word2vec;
    if (word2vec)
      out_word2vec.emplace(word2vec->stream());
    for (const uint64_t count : layout.counts())
      for (uint32_t p = 0; p < layout.partitions(); ++p)
        for (uint64_t k = 0, n = layout.kept(p, count); k < n; ++k) {
          auto word = readers[p].next();
          if (!word || word->second != count)
            return disagree(p, count, readers[p].failure());
          out.number(count);
          out.text(" ");
          out.text(word->first);
          out.end_line();
          if (out_word2vec) {
            out_word2vec->text(word->first);
            out_word2vec->text(" ");
            out_word2vec->number(count);
            out_word2vec->end_line();
          }
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
