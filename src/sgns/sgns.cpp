#include "src/sgns/sgns.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "src/sgns/minibatch.hpp"

namespace gridvec {

namespace {

constexpr int table_size = 1000;
constexpr float max_exp = 6.0f;

struct tables {
  std::array<float, table_size> sigmoid;
  std::array<float, table_size> log_sigmoid;
  tables() {
    for (int i = 0; i < table_size; ++i) {
      double x = (static_cast<double>(i) / table_size * 2 - 1) * max_exp;
      double e = std::exp(x);
      sigmoid[i] = static_cast<float>(e / (e + 1));
      log_sigmoid[i] = static_cast<float>(-std::log1p(std::exp(-x)));
    }
  }
};

const tables& lookup() {
  static const tables t;
  return t;
}

// Callers pass -max_exp < f < max_exp, but f + max_exp rounds: for f
// within a float's step below max_exp the product is exactly table_size,
// one past the end (word2vec.c allocates one entry more for it). Reading
// there gave log_sigmoid whatever lay beyond the table -- in some binaries
// 1e21 -- and a job "diverged" at its first minibatches (the controller
// tests, a quarter of their runs).
inline int table_index(float f) {
  const int i = static_cast<int>((f + max_exp) * (table_size / max_exp / 2));
  return std::clamp(i, 0, table_size - 1);
}

// log sigmoid(x), clipped like the weights: beyond |x| > 6 it is ~0 or ~x.
inline float log_sigmoid(float x) {
  if (!(x < max_exp))
    return 0.0f;
  if (!(x > -max_exp))
    return x;
  return lookup().log_sigmoid[table_index(x)];
}

} // namespace

float table_sigmoid(float f) {
  if (f >= max_exp)
    return 1.0f;
  if (f <= -max_exp)
    return 0.0f;
  return lookup().sigmoid[table_index(f)];
}

const char* const diverged_text =
  "training diverged: a dot product is no longer finite or past 10^4 (try a lower -alpha, --minibatch "
  "or --in-flight: with a small vocabulary, the minibatches in flight update the same rows from stale values)";

bool loss_watch::add(double loss, size_t pairs) {
  if (pairs == 0)
    return true;
  const double n = static_cast<double>(pairs), mean = loss / n;
  // An exponential mean over about window_pairs pairs (a plain mean until
  // that many have been seen).
  seen_ += n;
  const double keep = seen_ < window_pairs ? (seen_ - n) / seen_ : std::exp(-n / window_pairs);
  recent_ = keep * recent_ + (1 - keep) * mean;
  return recent_ <= growth_limit * start_; // also false for NaN
}

weight_result target_weights(const float* dots, const uint8_t* labels, size_t count, float alpha, float* weights) {
  weight_result r;
  const auto& sig = lookup().sigmoid;
  for (size_t k = 0; k < count; ++k) {
    const float label = target_label::value(labels[k]);
    const float f = dots[k];
    r.diverged |= !(std::fabs(f) <= max_sane_dot); // also NaN
    float g;
    if (!(f < max_exp)) // also catches NaN
      g = target_label::is_node(labels[k]) ? 0.0f : (label - 1) * alpha;
    else if (!(f > -max_exp))
      g = target_label::is_node(labels[k]) ? 0.0f : label * alpha;
    else
      g = (label - sig[table_index(f)]) * alpha;
    weights[k] = g;
    r.loss -= labels[k] & 1 ? log_sigmoid(f) : log_sigmoid(-f);
  }
  return r;
}

weight_result compute_weights(const float* dots, size_t pairs, uint32_t negatives, float alpha, float* weights) {
  std::vector<uint8_t> labels(pairs * (size_t{negatives} + 1), target_label::noise);
  for (size_t k = 0; k < labels.size(); k += size_t{negatives} + 1)
    labels[k] = target_label::positive;
  weight_result r = target_weights(dots, labels.data(), labels.size(), alpha, weights);
  r.pairs = pairs;
  return r;
}

} // namespace gridvec
