#pragma once
// word2vec.c's vocabulary file, as its -save-vocab writes and -read-vocab
// reads it: one "WORD COUNT" line per word, most frequent first, words of
// equal count in the order they first appeared, and first of all "</s>"
// with the number of line ends of the corpus (word2vec.c reads each line
// end as a word of that name).
#include <cstdint>
#include <istream>
#include <memory>
#include <span>
#include <string>

#include <gridvec/core/vocabulary.hpp>
#include <gridvec/core/expected.hpp>

#include "src/corpus/vocabulary_reader.hpp"

namespace gridvec {

/// Writes `vocab` (in id order) after the "</s> LINES" line, atomically.
status save_word2vec_vocab(const vocabulary& vocab, uint64_t lines, const std::string& path);
/// The same for the words a vocabulary file's reader has left, read as
/// they are written (no file if one is malformed).
status save_word2vec_vocab(vocabulary_reader& words, uint64_t lines, const std::string& path);
/// The same for words and their counts (as many), in that order.
status save_word2vec_vocab(std::span<const std::string> words, std::span<const uint64_t> counts, uint64_t lines,
                           const std::string& path);

/// Such a file read one entry at a time, holding one line: what a node
/// sends on to the vocabulary partitions without holding every word.
/// "</s>" lines add to lines(); words of count 0 are left out (word2vec.c
/// drops them too, below any -min-count).
class word2vec_vocab_stream {
public:
  /// Opens `path` through the process's path policy.
  static expected<word2vec_vocab_stream> open_guarded(const std::string& path);

  /// The next word and its count; false at the end of the file. A
  /// malformed line fails with its number.
  expected<bool> next(std::string& word, uint64_t& count);
  /// "</s>"'s counts read so far.
  uint64_t lines() const { return lines_; }
  /// The file's line the last word came from (1 the first).
  uint64_t line_number() const { return number_; }

private:
  std::string path_;
  std::unique_ptr<std::istream> in_;
  std::string line_;
  uint64_t number_ = 0; // lines read
  uint64_t lines_ = 0;
};

/// Reads such a file as counts: words keep the file's order among equal
/// counts, and "</s>" gives `lines`. A malformed line fails with its
/// number; so does a word listed twice.
expected<count_table> read_word2vec_vocab(const std::string& path);

} // namespace gridvec
