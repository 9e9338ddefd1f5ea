#pragma once
// Staleness damping on a shard (the protocol path; issue 22).
//
// A minibatch's weights come from dot products taken before the updates of
// the other minibatches in flight landed, and its own updates to a row are
// summed over every pair that touches it (seed 000's end-of-call adjust).
// For a row that keeps meeting partners pointing one way -- repetitive text
// such as a wiki table ("style background lightblue style background ..."),
// or any row of a tiny vocabulary -- that is gradient descent with a delay:
//   x' = x - a L x(t - K)
// which oscillates and grows once a L K passes about 1. On the dev corpus
// with the default flags those rows reached norms of 10^6 and took the rest
// of the model with them.
//
// One pair's SGNS loss has second derivative sigma'(f) along its partner,
// so a pair that occurs c times in one minibatch gives each of its rows a
// curvature of about c * sigma'(f) * |the other row|^2. Distinct partners
// of a row mostly point different ways -- the partners of a frequent word
// like "the" do -- and do not add up; in repetitive text they come to
// point one way, so a row's curvature is taken as the sum over its
// *repeated* pairs, or its own pair's, whichever is larger. (Summing over
// every partner, or a Rayleigh quotient along their sum, damped frequent
// words too and cost WordSim-353 0.05-0.15 on the dev corpus.) A pair
// whose curvature exceeds
//   L * alpha * K <= 2      (K: minibatches in flight, all learners)
// gets its weight scaled down to that bound. Ordinary pairs are untouched;
// word2vec.c, which updates after every pair, and the fused path never
// need this. Delayed descent stays stable up to about L a K = pi/2; the
// estimate comes from one minibatch of the K, and 2 measured best.
//
// Not covered: a vocabulary of a few dozen words, where every row meets
// every other many times across the minibatches in flight but few pairs
// repeat within one; its runs can still diverge (the learner then stops
// with "training diverged") and need --in-flight 1 and a small --minibatch.
#include <cstdint>
#include <vector>

#include "src/sgns/minibatch.hpp"

namespace gridvec {

class shard_store;

class staleness_damper {
public:
  /// The weights of `mb` (dotprod layout) damped, from the rows of `store`
  /// as they are now: this shard's columns, scaled up to the whole
  /// dimension (columns are exchangeable, so the estimate is unbiased; two
  /// shards that estimate a little differently scale their slices a little
  /// differently, which still moves every row downhill). Returns `weights`
  /// itself when nothing needed damping.
  const float* damp(const shard_store& store, const minibatch& mb, const float* weights,
                    const std::vector<uint32_t>& targets);

  /// Weights scaled by the last damp().
  size_t scaled() const { return scaled_; }

private:
  struct entry {
    uint64_t key = 0;
    float slopes = 0; // a pair's sum of sigma'(f); a row's curvature
    uint32_t count = 0;
    uint32_t generation = 0;
    bool counted = false; // a repeated pair already added to its rows
  };
  void reset_rows(size_t entries);
  entry& at(uint64_t key);
  float slopes_at(uint64_t key) const; // 0 if absent

  // Open addressing over a power-of-two table, reused across calls and
  // cleared by generation: a warm call allocates nothing.
  std::vector<entry> table_;
  size_t mask_ = 0;
  uint32_t generation_ = 0;
  std::vector<uint8_t> labels_;      // per dot product (src/sgns/minibatch.hpp)
  std::vector<size_t> example_dots_; // per example: its dot products
  std::vector<float> h_norms_;       // per example: |h|^2
  std::vector<float> v_norms_;       // per dot product: |v_t|^2
  std::vector<entry*> pair_of_;      // per dot product
  std::vector<float> mean_;          // CBOW's mean input
  std::vector<float> damped_;
  size_t scaled_ = 0;
};

} // namespace gridvec
