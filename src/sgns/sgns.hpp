#pragma once
// The learner's arithmetic between dotprod and adjust (the Network-efficient word2vec paper, Figure 7,
// lines 24-25): sum the shards' partial dot products, then turn each full
// dot product f into the weight of its update,
//   positive pair:  g+ = alpha * (1 - sigmoid(f))
//   noise word:     g- = -alpha * sigmoid(f)
//   Huffman node:   g  = alpha * (1 - code - sigmoid(f))   (-hs 1)
// with word2vec.c's table lookup and clipping at |f| > 6. It also measures
// the loss, -log sigmoid(f+) - sum log sigmoid(-f-) (and the nodes' terms).
#include <cstddef>
#include <cstdint>

namespace gridvec {

struct weight_result {
  double loss = 0; // summed over the pairs
  size_t pairs = 0;
  // A dot product was NaN, infinite or past max_sane_dot: the vectors blew up.
  bool diverged = false;
};

/// |u . v| beyond this means vector norms of about 100 and more: trained
/// word vectors stay within a few units (norms of 1-10), and a dot product
/// this large only comes from a run that is blowing up.
constexpr float max_sane_dot = 1e4f;

/// What a learner reports when weight_result::diverged.
extern const char* const diverged_text;

/// Watches a learner's SGNS loss for growth. At the start every dot
/// product is near 0 and the loss per pair is (n + 1) log 2; training
/// lowers it (to about 2.4 for n = 5 on English). A mean loss many times
/// above that start means the vectors are blowing up -- the loss grows with
/// |f| once |f| > 6 -- usually long before a dot product overflows. (A
/// tiny vocabulary whose noise words are its own context words can settle
/// at a few times the start with sane vectors; the limit leaves room.)
class loss_watch {
public:
  /// `targets_per_pair`: dot products per positive pair, on average
  /// (negatives + 1, plus the mean Huffman path length with -hs 1).
  explicit loss_watch(double targets_per_pair = 6) : start_(targets_per_pair * 0.69314718) {}
  /// Adds a minibatch's loss; returns false once the run has diverged.
  bool add(double loss, size_t pairs);
  /// The mean loss per pair lately, and at the start (for the error line).
  double recent() const { return recent_; }
  double start() const { return start_; }

  static constexpr double growth_limit = 10.0;
  static constexpr double window_pairs = 50000; // pairs the mean runs over

private:
  double start_, recent_ = 0, seen_ = 0;
};

/// weights[i] for `count` summed dot products whose targets have labels[i]
/// (src/sgns/minibatch.hpp): alpha * (label - sigmoid(f)), as word2vec.c,
/// which clips a noise word's f at +-6 but skips an inner node's update
/// there (weight 0). Counts no pairs: the caller knows them.
weight_result target_weights(const float* dots, const uint8_t* labels, size_t count, float alpha, float* weights);

/// The same for pairs * (negatives + 1) dot products of negative sampling
/// (per pair the positive, then its noise words).
weight_result compute_weights(const float* dots, size_t pairs, uint32_t negatives, float alpha, float* weights);

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
