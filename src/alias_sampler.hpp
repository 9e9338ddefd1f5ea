#pragma once
// Walker's alias method (seed 001, section "alias method"): draws word ids
// from an arbitrary discrete distribution in O(1) per draw with O(V) memory.
// gridvec uses it for the noise distribution, unigram counts ^ 0.75.
#include <cstdint>
#include <vector>

#include "src/rng.hpp"

namespace gridvec {

class alias_sampler {
public:
  alias_sampler() = default;

  /// Builds the table for P(i) proportional to weights[i]. An empty or
  /// all-zero weight vector yields a sampler that must not be drawn from.
  explicit alias_sampler(const std::vector<double>& weights);

  /// Noise distribution of word2vec: count ^ power.
  static alias_sampler from_counts(const std::vector<uint64_t>& counts, double power = 0.75);

  uint32_t draw(rng& r) const {
    uint64_t x = r.next();
    const uint32_t col = column(x);
    auto coin = static_cast<uint32_t>(x);
    const entry& c = table_[col];
    return coin < c.threshold ? col : c.alias;
  }

  /// Fetches the entry that draw() will read for the random value `x`
  /// into the cache (the table of a large vocabulary is in DRAM).
  void prefetch(uint64_t x) const { __builtin_prefetch(&table_[column(x)], 0, 3); }

  uint32_t size() const { return static_cast<uint32_t>(table_.size()); }

  /// The probability the table assigns to word i (for tests).
  double probability(uint32_t i) const;

private:
  // Column i keeps i with probability threshold / 2^32, else alias. Both in
  // one 8-byte entry: a draw from a large vocabulary is one cache miss.
  struct entry {
    uint32_t threshold = 0;
    uint32_t alias = 0;
  };
  std::vector<entry> table_;

  // The column a draw with random value x reads: the high 32 bits scaled
  // to the table (draw() and prefetch() must agree on it).
  uint32_t column(uint64_t x) const { return static_cast<uint32_t>(((x >> 32) * size()) >> 32); }
};

} // namespace gridvec
