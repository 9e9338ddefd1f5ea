#pragma once
// Sorted runs of word counts on disk: what a bounded counter
// (src/corpus/bounded_counter.hpp) writes when its distinct words do not
// fit its budget, read back and merged into one stream.
//
// A run file is the 8 bytes "gvcount1" and then one record per word, in
// strictly increasing byte order of the words:
//   [word length, varint][the word's bytes][count, varint][first place, varint]
// (varints are LEB128: 7 bits a byte, low bits first). The first place is
// word_counts' number for the word's first occurrence (a token's place in
// the corpus), kept so that the vocabulary can order words of equal count
// by first appearance.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>
#include "src/access/guarded_open.hpp"

namespace gridvec {

/// Writes one run file through a buffer; nothing is checked about order
/// (the counter sorts before writing).
class run_writer {
public:
  /// Creates (or truncates) `path`.
  static expected<run_writer> create(const std::string& path);

  void add(std::string_view word, uint64_t count, uint64_t first);
  /// Writes what is buffered and closes the file: a full disk is reported
  /// here at the latest, as "cannot write PATH: REASON".
  status close();
  /// Bytes written so far (buffered included).
  uint64_t bytes() const { return written_ + buffer_.size(); }

private:
  run_writer(std::string path, access::file_ptr file) : path_(std::move(path)), file_(std::move(file)) {}
  bool flush();

  std::string path_;
  access::file_ptr file_;
  std::string buffer_;
  uint64_t written_ = 0;
  int errno_ = 0; // the first write error, reported by close()
};

/// One word of a merged stream: its bytes (valid until the next record),
/// its count summed over every run and its first place, the smallest.
struct counted_word {
  std::string_view word;
  uint64_t count = 0;
  uint64_t first = 0;
};

/// A sorted source of counted words: a run file, or a counter's words
/// still in memory.
class count_source {
public:
  virtual ~count_source() = default;
  /// Moves to the next record; false at the end or on error (see failed()).
  virtual bool next() = 0;
  virtual const counted_word& current() const = 0;
  /// A failure line if reading failed (a damaged or truncated run).
  virtual const std::string& failed() const = 0;
};

/// Reads a run file through a buffer of 64 KiB.
std::unique_ptr<count_source> open_run(const std::string& path, std::string& error);

/// Merges sorted sources into one stream in increasing byte order of the
/// words, summing the counts of a word found in several and keeping its
/// smallest first place, and calls on_word(const counted_word&) for each.
/// Fails with the first source's failure line.
template <class OnWord>
status merge_sources(std::vector<std::unique_ptr<count_source>>& sources, OnWord&& on_word);

// --- implementation --------------------------------------------------------

namespace detail {
// The sources in a binary heap by their current word, smallest on top.
class source_heap {
public:
  explicit source_heap(std::vector<std::unique_ptr<count_source>>& sources);
  bool empty() const { return heap_.empty(); }
  count_source& top() { return *heap_.front(); }
  /// Moves the top source on and restores the heap; false on a source's
  /// failure (error() has its line).
  bool advance_top();
  const std::string& error() const { return error_; }

private:
  void sift_down(size_t i);
  bool less(size_t a, size_t b) const { return heap_[a]->current().word < heap_[b]->current().word; }

  std::vector<count_source*> heap_;
  std::string error_;
};
} // namespace detail

template <class OnWord>
status merge_sources(std::vector<std::unique_ptr<count_source>>& sources, OnWord&& on_word) {
  detail::source_heap heap{sources};
  if (!heap.error().empty())
    return failure{heap.error(), error_code::io};
  std::string word;
  while (!heap.empty()) {
    const counted_word& top = heap.top().current();
    word.assign(top.word);
    counted_word sum{{}, top.count, top.first};
    if (!heap.advance_top())
      return failure{heap.error(), error_code::io};
    while (!heap.empty() && heap.top().current().word == word) {
      const counted_word& same = heap.top().current();
      sum.count += same.count;
      sum.first = same.first < sum.first ? same.first : sum.first;
      if (!heap.advance_top())
        return failure{heap.error(), error_code::io};
    }
    sum.word = word;
    on_word(static_cast<const counted_word&>(sum));
  }
  return {};
}

} // namespace gridvec
