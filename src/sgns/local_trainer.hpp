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
// A minibatch of skip-gram windows with shared negatives (HogBatch,
// src/sgns/minibatch.hpp; the default for skip-gram with negative sampling,
// train_options::window_kernel()) trains as
// Intel's pWord2Vec (HogBatch) does: per example, in word2vec.c's
// orientation -- the context words are the inputs, the centre word the
// positive output -- n noise words are drawn once for the whole window,
// and the window is trained as small dense matrix products,
//   F = Out In^T   (targets x contexts dot products)
//   G = alpha (label - sigmoid(F)) * count   (a noise word drawn twice
//                                             counts twice; one equal to
//                                             the centre word is dropped)
//   In += G^T Out;  Out += G In   (both from the rows as the window found
//                                  them, applied after the window)
// so an example touches contexts + n + 1 rows instead of contexts * (n + 2),
// and each row is read from memory once per window. The contexts are
// contrasted with the same noise words, but each input row still meets n
// noise words per pair, as in word2vec.c; the noise rows get the window's
// summed update. With -hs 1 the centre word's Huffman nodes are targets
// too. CBOW minibatches (one pair an example already) never carry the flag.
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
  explicit local_trainer(std::vector<std::shared_ptr<shard_store>> stores);

  /// Trains on `mb` with learning rate `alpha`; returns the SGNS loss of
  /// its pairs, measured before each pair's update.
  weight_result train(const minibatch& mb, float alpha);

  uint32_t dim() const { return dim_; }
  /// The targets of the last minibatch trained (dotprod layout): the
  /// output rows it touched (the replicated mode tracks them).
  const std::vector<uint32_t>& last_targets() const { return targets_; }
  /// The same, handed over without a copy: `into` gets them, and this
  /// trainer keeps `into`'s old memory for the next minibatch's.
  void swap_last_targets(std::vector<uint32_t>& into) { targets_.swap(into); }
  /// The input rows training `mb` updates: its inputs, or with shared
  /// negatives on skip-gram (word2vec.c's orientation) its context words.
  static const std::vector<uint32_t>& inputs_updated(const minibatch& mb) {
    return mb.shared_negatives ? mb.outputs : mb.inputs;
  }

private:
  template <bool Hierarchical>
  weight_result train_as(const minibatch& mb, float alpha);
  void prefetch_targets(size_t first, size_t count);
  weight_result train_windows(const minibatch& mb, float alpha); // local_trainer_windows.cpp
  // Appends one window's targets (the Huffman nodes of `centre`, itself,
  // its noise words) to win_targets_, win_labels_ and win_counts_.
  void window_targets(const minibatch& mb, uint32_t centre, rng& r);
  // The context (input) and target (output) rows of a window in slice `s`.
  void slice_rows(shard_store& s, const uint32_t* contexts, uint32_t m, const uint32_t* targets, size_t n);
  void prefetch_window(const minibatch& mb, size_t e);

  std::vector<std::shared_ptr<shard_store>> stores_;
  uint32_t dim_ = 0;
  // Scratch, reused: nothing is allocated per minibatch in steady state.
  std::vector<uint32_t> targets_;
  std::vector<uint8_t> labels_;
  std::vector<float> dots_, weights_;
  std::vector<float> error_;  // e, all columns (shard s at its slice offset)
  std::vector<float> hidden_; // CBOW: the mean input row
  std::vector<const float*> h_;
  // Shared negatives: one window's targets, their labels and counts, its
  // dot products and weights (targets x contexts) and the contexts' updates.
  std::vector<uint32_t> win_targets_;            // every window's, in example order
  std::vector<size_t> win_first_, win_contexts_; // window e's first target and context
  std::vector<uint8_t> win_labels_, win_row_labels_;
  std::vector<float> win_counts_, win_dots_, win_weights_, win_delta_, win_scratch_;
  std::vector<float*> in_rows_, out_rows_;
};

} // namespace gridvec
