#pragma once
// Walker's alias method (the Distributed negative sampling paper, section "alias method"): draws word ids
// from an arbitrary discrete distribution in O(1) per draw. gridvec uses it
// for the noise distribution, unigram counts ^ 0.75.
//
// The table is built over *runs*, not words: a run is a range of
// consecutive ids of equal weight, drawn as a whole by the alias method and
// then uniformly within. Vocabulary ids are sorted by count, so words of
// equal count are consecutive, and a corpus of N tokens has fewer than
// sqrt(2N) distinct counts whatever its vocabulary (in practice a few
// thousand: most words of a large vocabulary are seen a handful of times).
// The table then stays in the caches: a draw costs no cache miss, and its
// memory (20 bytes per run) no longer grows with V (a table over words took
// 8 bytes per word, and a miss per draw on a large vocabulary). The
// distribution is exactly the same.
#include <cstdint>
#include <vector>

#include "src/util/rng.hpp"

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
    const entry& e = table_[column(x)];
    // Which of the two runs is random, so a branch on it would be
    // mispredicted half the time (compilers turn `keep ? a : b` into one):
    // the choice indexes the entry instead. The word within the run is
    // always drawn, even from a run of one.
    const uint32_t pick = static_cast<uint32_t>(x) >= e.threshold ? 1 : 0;
    const span& s = e.run_or_alias[pick];
    return s.first + r.below(s.size);
  }

  /// For a table too large to stay in the caches: fetches the entry that
  /// draw() would read with a generator in the state of `ahead`, and
  /// advances `ahead` past that draw exactly as draw() advances its
  /// generator (two values), so that a copy run ahead stays in step.
  void prefetch_draw(rng& ahead) const {
    __builtin_prefetch(&table_[column(ahead.next())], 0, 3);
    ahead.next(); // the word within the run
  }

  /// Words it draws from (0 for an empty sampler).
  uint32_t size() const { return words_; }
  /// Entries of its table: the runs of equal weight.
  uint32_t runs() const { return static_cast<uint32_t>(table_.size()); }
  /// Memory of its table.
  uint64_t bytes() const { return table_.size() * sizeof(entry); }

  /// The probability the table assigns to word i (for tests).
  double probability(uint32_t i) const;

private:
  // Column i keeps run i with probability threshold / 2^32, else takes its
  // alias run. Both runs are in the entry: a draw reads one entry.
  struct span {
    uint32_t first = 0, size = 0; // first word id, words
  };
  struct entry {
    uint32_t threshold = 0;
    span run_or_alias[2]; // run i itself, then its alias run
  };
  std::vector<entry> table_; // runs in id order: column i is run i
  uint32_t words_ = 0;

  // The column a draw with random value x reads: the high 32 bits scaled
  // to the table (draw() and prefetch_draw() must agree on it).
  uint32_t column(uint64_t x) const { return static_cast<uint32_t>(((x >> 32) * runs()) >> 32); }
};

} // namespace gridvec
