#pragma once
// The counts file: a vocabulary's counts in id order, without its words,
// beside the vocabulary file (PATH.counts). Shards and learners load this
// instead of the vocabulary: 8 bytes a word, where the words of ids such
// as queries take 20-40 more each. Little-endian binary:
//   "gridvec-counts 1" (16 bytes), size, train words, the vocabulary
//   file's crc32 (u64 each), then `size` counts (u64 each).
#include <cstdint>
#include <string>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/vocabulary_layout.hpp"

namespace gridvec {

/// Where the counts of the vocabulary file `vocab_path` are.
inline std::string vocabulary_counts_path(const std::string& vocab_path) { return vocab_path + ".counts"; }

/// Writes `counts` to `path`, atomically (under the path policy).
status write_vocabulary_counts(const vocabulary_counts& counts, const std::string& path);
/// The same for counts given as runs of equal count in id order
/// (vocabulary_layout::id_count_runs): written a block at a time, so the
/// process that decides the vocabulary never holds its V counts.
status write_vocabulary_counts(const count_histogram& runs, uint64_t train_words, uint64_t vocab_crc,
                               const std::string& path);

/// A counts file's header: what a process that needs no counts (the
/// coordinator) knows of the vocabulary from it.
struct vocabulary_counts_header {
  uint64_t size = 0;
  uint64_t train_words = 0;
  uint64_t vocab_crc = 0;
};

/// Reads a counts file's header (under the path policy), checked against
/// the file's length; not its counts.
expected<vocabulary_counts_header> read_vocabulary_counts_header(const std::string& path);

/// Reads a counts file (under the path policy), checked as a peer's input:
/// its header, its length against the header's size, every count > 0,
/// their sum against the header's train words.
expected<vocabulary_counts> read_vocabulary_counts(const std::string& path);

} // namespace gridvec
