#pragma once
// The Distributed negative sampling paper's hierarchical sampling (its Algorithm 3), for vectors
// partitioned by word (--partition words): the noise distribution count^0.75 over
// all V words, drawn in constant time, while partition k keeps only
//   - the distribution over the p partitions (the mass of each), and
//   - an alias table over its own words,
// O(p + V/p) memory instead of O(V). A draw picks a partition by its mass,
// then a word within it; partition k owns the words whose id is k mod p,
// so its local word i is global word i·p + k (and, ids being sorted by
// count, its words are too: its table is over runs of equal counts, as
// alias_sampler's).
//
// The partition draw can be made anywhere; the word draw only on the
// partition that owns the table (in the Distributed negative sampling paper the negatives are drawn where
// their output vectors live).
#include <cstdint>
#include <vector>

#include "src/sgns/alias_sampler.hpp"

namespace gridvec {

class hierarchical_sampler {
public:
  /// The mass of every partition: the sum of count^power of its words.
  /// Computed once (by whoever holds all counts) and given to every
  /// partition.
  static std::vector<double> partition_masses(const std::vector<uint64_t>& counts, uint32_t partitions,
                                              double power = 0.75);

  /// Partition `mine` of `masses.size()`, from the counts of its own
  /// words only (local order: global ids mine, mine + p, mine + 2p, ...).
  hierarchical_sampler(const std::vector<double>& masses, uint32_t mine, const std::vector<uint64_t>& own_counts,
                       double power = 0.75);

  /// Step 1, anywhere: which partition the next noise word comes from.
  uint32_t draw_partition(rng& r) const { return partitions_.draw(r); }
  /// Step 2, on partition mine(): one of its words, as a global id.
  uint32_t draw_own_word(rng& r) const { return own_.draw(r) * partition_count() + mine_; }
  /// A noise word for a pair whose positive is `positive`: drawn again
  /// while it is the positive, as word2vec skips it, at most max_redraws
  /// times (a partition holding only the positive gives it back).
  uint32_t draw_own_word_except(rng& r, uint32_t positive) const {
    uint32_t w = draw_own_word(r);
    for (int tries = 0; w == positive && tries < max_redraws; ++tries)
      w = draw_own_word(r);
    return w;
  }
  static constexpr int max_redraws = 8;

  uint32_t mine() const { return mine_; }
  uint32_t partition_count() const { return partitions_.size(); }
  /// The probability of drawing global word w, if this partition owns it.
  double probability(uint32_t w) const;
  /// Memory of both tables (what this partition holds for sampling).
  uint64_t bytes() const { return partitions_.bytes() + own_.bytes(); }

private:
  alias_sampler partitions_;
  alias_sampler own_;
  uint32_t mine_;
};

} // namespace gridvec
