#pragma once
// word2vec.c's vocabulary file, as its -save-vocab writes and -read-vocab
// reads it: one "WORD COUNT" line per word, most frequent first, words of
// equal count in the order they first appeared, and first of all "</s>"
// with the number of line ends of the corpus (word2vec.c reads each line
// end as a word of that name).
#include <cstdint>
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

/// Reads such a file as counts: words keep the file's order among equal
/// counts, and "</s>" gives `lines`. A malformed line fails with its
/// number.
expected<count_table> read_word2vec_vocab(const std::string& path);

} // namespace gridvec
