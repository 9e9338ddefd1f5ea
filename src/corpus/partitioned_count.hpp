#pragma once
// Counting a corpus over word partitions: every word belongs to one of P
// partitions by its hash, and each partition counts only its own words, in
// a bounded counter of its own (src/corpus/bounded_counter.hpp). A
// partition may live in another process: what it counts depends only on
// the words and their places in the corpus, not on which process read
// which part.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/word_map.hpp>
#include "src/corpus/bounded_counter.hpp"
#include "src/corpus/text_corpus.hpp"

namespace gridvec {

/// The partition (0 .. partitions-1) that owns `word`, from word_hash
/// multiplied out so that every bit of the hash counts and the words of
/// one partition still spread over a word_map's whole index (which places
/// them by the hash's low 40 bits). Stable across processes and machines.
inline uint32_t word_partition_of_hash(uint64_t hash, uint32_t partitions) {
  const uint64_t x = hash * 0x9E3779B97F4A7C15ull;
  return static_cast<uint32_t>(((x >> 32) * partitions) >> 32);
}
inline uint32_t word_partition_of(std::string_view word, uint32_t partitions) {
  return word_partition_of_hash(word_hash(word), partitions);
}

/// Scans the byte ranges of the corpus at `path` and adds every word to
/// counters[word_partition_of(word, counters.size())], numbering the
/// tokens as word_counts does (a range starting at byte B numbers its n-th
/// token B + n), so that first places agree with a count in one process.
/// Adds the line ends to `lines`. Fails with the scan's line, or with the
/// first counter's that could not spill.
status count_partitioned(const std::string& path, std::span<const byte_range> ranges,
                         std::vector<bounded_counter>& counters, uint64_t& lines,
                         invalid_utf8 mode = invalid_utf8::fail);

} // namespace gridvec
