#pragma once
// Turning a corpus range into word ids without the vocabulary's strings:
// the join of the Network-efficient word2vec paper's preprocessing. The
// range is read a chunk at a time; the chunk's distinct words are asked of
// the word partitions that own them (by the hash counting used,
// src/corpus/partitioned_count.hpp), and the chunk's tokens are written as
// the ids that come back. The id file is byte for byte what a scan against
// the whole loaded vocabulary writes: the same words and line ends, in the
// same order, through the same id_writer.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/text_corpus.hpp"

namespace gridvec {

/// Words back to back with their lengths: what one partition is asked.
struct word_batch {
  std::string words;
  std::vector<uint32_t> lengths;
  size_t size() const { return lengths.size(); }
};

/// The most words one lookup asks of one partition (and so the most a
/// partition answers: 4 bytes each). A chunk holds at most this many
/// distinct words over every partition.
constexpr uint64_t max_lookup_words = uint64_t{1} << 18;
/// The most bytes of words one lookup carries (well under max-message-mb's
/// default of 64 MB).
constexpr uint64_t max_lookup_bytes = uint64_t{16} << 20;

/// Bounds of one chunk: it is joined once it holds this many distinct
/// words, this many bytes of them, or this many tokens (4 bytes each).
/// At the defaults a chunk holds about 8 MB (its words twice, their index,
/// the tokens), whatever the vocabulary; larger chunks save round trips,
/// not bytes (every distinct word of a chunk is sent once either way).
struct join_limits {
  uint64_t distinct_words = uint64_t{1} << 16;
  uint64_t word_bytes = uint64_t{4} << 20;
  uint64_t tokens = uint64_t{1} << 20;
};

/// Asks every partition for the ids of its batch (asks[p], possibly empty;
/// it may be moved from) and puts them into ids[p], one per word,
/// vocabulary::npos for words not in the vocabulary. Partitions may be
/// asked at once.
using join_lookup = std::function<status(std::vector<word_batch>& asks, std::vector<std::vector<uint32_t>>& ids)>;

/// Writes the id file `ids_path` for the corpus bytes `range` (invalid
/// UTF-8 handled by `mode`, as the words were counted), joining each chunk
/// through `lookup` over `partitions` word partitions; `words` is how many
/// in-vocabulary words it holds. An answer of the wrong length, or an id of
/// `vocab_size` or more (unless vocab_size is 0), fails the join.
status join_ids(const std::string& corpus, byte_range range, invalid_utf8 mode, uint32_t partitions,
                const join_lookup& lookup, const std::string& ids_path, uint64_t& words, uint64_t vocab_size = 0,
                join_limits limits = {});

/// The same id file from the whole vocabulary in memory: the reference the
/// join is tested against, byte for byte (no node of a job holds every
/// word to do this).
status write_ids_from_vocabulary(const vocabulary& vocab, const std::string& corpus, byte_range range,
                                 const std::string& ids_path, invalid_utf8 mode, uint64_t& words);

/// Whether a lookup a peer sent is well formed and within the bounds above:
/// lengths that add up to the words' bytes, at most max_lookup_words words
/// and max_lookup_bytes bytes. Empty if so, else the reason.
std::string check_lookup(const std::string& words, const std::vector<uint32_t>& lengths);

} // namespace gridvec
