#pragma once
// The learner's arithmetic between dotprod and adjust (seed 000, Figure 7,
// lines 24-25): sum the shards' partial dot products, then turn each full
// dot product f into the weight of its update,
//   positive pair:  g+ = alpha * (1 - sigmoid(f))
//   noise word:     g- = -alpha * sigmoid(f)
// with word2vec.c's table lookup and clipping at |f| > 6. It also measures
// the SGNS loss, -log sigmoid(f+) - sum log sigmoid(-f-).
#include <cstddef>
#include <cstdint>

namespace gridvec {

struct weight_result {
  double loss = 0;   // summed over the pairs
  size_t pairs = 0;
  bool diverged = false; // a dot product was NaN or infinite: the vectors blew up
};

/// What a learner reports when weight_result::diverged.
extern const char* const diverged_text;

/// weights[i] for each of pairs * (negatives + 1) summed dot products.
weight_result compute_weights(const float* dots, size_t pairs, uint32_t negatives, float alpha,
                              float* weights);

/// sigmoid(x) as word2vec.c computes it (table of 1000 entries on [-6, 6]).
float table_sigmoid(float x);

/// Learning rate after `done` of `total` words: linear decay to 1e-4 of
/// the start, as word2vec.c.
inline float learning_rate(float start, uint64_t done, uint64_t total) {
  double frac = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total + 1);
  double a = start * (1.0 - frac);
  return static_cast<float>(a < start * 1e-4 ? start * 1e-4 : a);
}

} // namespace gridvec
