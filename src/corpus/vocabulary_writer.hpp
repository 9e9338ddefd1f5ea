#pragma once
// The vocabulary files of a vocabulary decided over partitions
// (src/corpus/vocabulary_layout.hpp), written word by word in id order
// while no process holds more than two pages of each partition's words
// (the one being written and the next, asked for meanwhile): the layout
// says how many words of each count every partition gives, in which
// order, so the writer takes them from the partitions' pages in turn
// (count by count, partition 0's first) and needs no ids. The page
// source is called from a thread of its own, one call a partition at a
// time.
#include <cstdint>
#include <functional>
#include <string>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/vocabulary.hpp>

#include "src/corpus/vocabulary_layout.hpp"

namespace gridvec {

/// Partition p's next words in id order (after those of the pages before);
/// an empty table once it has given every word. `spare` is a page of this
/// partition already written out, emptied (an empty table for the first
/// two, which are in flight together): the next page may fill its memory
/// instead of taking fresh pages from the OS for every page.
using vocabulary_page_source = std::function<expected<count_table>(uint32_t partition, count_table spare)>;

/// Writes the gridvec vocabulary file `path` (as vocabulary::save) and,
/// unless `word2vec_path` is empty, word2vec.c's (as save_word2vec_vocab,
/// with `lines` line ends), each atomically. Fails, leaving both untouched,
/// if a partition's words disagree with the layout (fewer or more words of
/// a count than it says) or a page cannot be had.
status write_vocabulary_files(const vocabulary_layout& layout, const vocabulary_page_source& next_page, uint64_t lines,
                              const std::string& path, const std::string& word2vec_path);

} // namespace gridvec
