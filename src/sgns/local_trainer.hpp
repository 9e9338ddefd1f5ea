#pragma once
// The fused path: a learner whose shards all live in its own process trains
// a minibatch on the stores directly, one positive pair after another, the
// way word2vec.c's threads do (Hogwild SGD):
//   per pair (h = input row, or the mean of the inputs for CBOW):
//     f_t = sum over shards of h_s . v_s[t]      for t = Huffman nodes
//                                                (-hs 1), positive, noises
//     g_t = alpha * (label - sigmoid(f_t))       (src/sgns/sgns.hpp)
//     e  += g_t * v[t];  v[t] += g_t * h         (one pass over each row)
//     u[input] += e                              (every input, for CBOW)
// The noise words are those dotprod/adjust would draw from the minibatch's
// seed, and the weights are computed as the learner computes them; what
// differs from the protocol (the Network-efficient word2vec paper) is only *when* updates land: here
// after each pair, there at the end of each adjust call. That is word2vec.c's
// own schedule, so the vectors are at least as good (scripts/bench measures
// it), and each v row is read once per dot product instead of three times.
//
// With shared negatives (an option, off by default) the n noise words are
// drawn once per example and used by all its pairs, as Intel's pWord2Vec
// (HogBatch) shares them across a window: an example's pairs then touch
// n + pairs rows instead of pairs * (n + 1), which is what bounds speed when
// the vocabulary is too large for the caches. A shared noise word equal to
// a pair's positive is skipped for that pair, as word2vec.c skips it.
#include <cstdint>
#include <memory>
#include <vector>

#include "src/sgns/minibatch.hpp"
#include "src/sgns/sgns.hpp"
#include "src/model/shard_store.hpp"

namespace gridvec {

class local_trainer {
public:
  /// `stores` hold the column slices of one model (together all columns),
  /// in any order; they are shared with the shard lanes that serve them.
  explicit local_trainer(std::vector<std::shared_ptr<shard_store>> stores, bool shared_negatives = false);

  /// Trains on `mb` with learning rate `alpha`; returns the SGNS loss of
  /// its pairs, measured before each pair's update.
  weight_result train(const minibatch& mb, float alpha);

  uint32_t dim() const { return dim_; }
  /// The targets of the last minibatch trained (dotprod layout): the
  /// output rows it touched (the replicated mode tracks them).
  const std::vector<uint32_t>& last_targets() const { return targets_; }

private:
  template <bool Hierarchical>
  weight_result train_as(const minibatch& mb, float alpha);
  void prefetch_targets(size_t first, size_t count);
  void draw_shared_targets(const minibatch& mb);

  std::vector<std::shared_ptr<shard_store>> stores_;
  uint32_t dim_ = 0;
  bool shared_negatives_ = false;
  // Scratch, reused: nothing is allocated per minibatch in steady state.
  std::vector<uint32_t> targets_;
  std::vector<uint8_t> labels_;
  std::vector<float> dots_, weights_;
  std::vector<float> error_;  // e, all columns (shard s at its slice offset)
  std::vector<float> hidden_; // CBOW: the mean input row
  std::vector<const float*> h_;
};

} // namespace gridvec
