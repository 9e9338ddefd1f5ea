#pragma once
// A vocabulary partition's counting, split by word hash into shards that
// count in parallel. Counting a table of words into one large map is a
// chain of cache misses a word (about 0.25 µs each on a busy 2-core
// machine), and one partition receives every word of a one-process job:
// on one thread it was the job's slowest step while the count workers
// waited. Each shard is a bounded_counter of its own (its share of the
// budget, its own runs) and holds only its words, so the shards of one
// table are counted on as many threads at once, with nothing shared.
// The words, counts and first places are the same whatever the number of
// shards; only the time changes.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/bounded_counter.hpp"

namespace gridvec {

/// Which of `shards` shards counts (and then holds) a word of hash `h`: a
/// mix of its own, unrelated to the word's partition between nodes
/// (word_partition_of_hash) and to its slot in a map's index (the hash's
/// low bits).
inline uint32_t word_shard_of_hash(uint64_t h, uint32_t shards) {
  const uint64_t x = h * 0xD6E8FEB86659FD93ull;
  return static_cast<uint32_t>(((x >> 32) * shards) >> 32);
}

class sharded_counter {
public:
  /// Most shards a partition counts in.
  static constexpr unsigned max_shards = 4;

  /// `shards` counters (fewer where the budget cannot give each
  /// bounded_counter::min_budget; at least one) sharing `budget_bytes`,
  /// each spilling into its own directory under `work_dir`.
  static expected<sharded_counter> create(const std::string& work_dir, size_t budget_bytes, unsigned shards);
  /// The machine's hardware threads, at most max_shards.
  static unsigned default_shards();

  /// Adds a table's words of count > 0 (table.well_formed() is the
  /// caller's to check), each shard's on a thread of its own.
  void add(const count_table& table);

  uint64_t tokens() const;
  size_t spills() const;
  /// The shards, for collecting their words (vocabulary_partition::collect).
  std::vector<bounded_counter>& shards() { return shards_; }

private:
  explicit sharded_counter(std::vector<bounded_counter> shards) : shards_(std::move(shards)) {}
  std::vector<bounded_counter> shards_;
  // Reused between tables: each word's hash and start, each shard's words.
  std::vector<uint64_t> hashes_;
  std::vector<size_t> starts_;
  std::vector<std::vector<uint32_t>> members_;
};

} // namespace gridvec
