#include "src/sgns/weight_refresh.hpp"

#include <algorithm>
#include <cmath>

#include "src/model/shard_store.hpp"
#include "src/sgns/sgns_update.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

float refreshed_weight(float weight, float alpha, uint8_t label, float drift) {
  const float value = target_label::value(label);
  const float sigma = value - weight / alpha;
  if (!(sigma > 0.0f && sigma < 1.0f))
    return weight;
  // sigma(f + drift) = sigma e^drift / (1 - sigma + sigma e^drift): no
  // logarithm needed. Past |drift| = 30 sigma is saturated either way (and
  // e^drift would overflow to inf / inf).
  const float grown = sigma * std::exp(std::clamp(drift, -30.0f, 30.0f));
  return alpha * (value - grown / (1.0f - sigma + grown));
}

const float* weight_refresh::refresh(const shard_store& store, const minibatch& mb, const float* weights,
                                     const std::vector<uint32_t>& targets, const float* partials) {
  const uint32_t width = store.slice().width;
  const float widen = static_cast<float>(store.dim()) / static_cast<float>(width);
  mb.labels(labels_);
  fresh_.resize(targets.size());
  mean_.resize(width);
  size_t in = 0, out = 0, k = 0;
  for (size_t e = 0, examples = mb.examples(); e < examples; ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    const float* h = sgns::example_input([&store](uint32_t w) { return store.input_row(w); }, mb.inputs.data() + in,
                                         n_in, mb.mean_inputs, mean_.data(), width);
    for (size_t end = k + mb.targets_of_outputs(out, n_out); k < end; ++k) {
      const float drift = widen * (dot(h, store.output_row(targets[k]), width) - partials[k]);
      fresh_[k] = refreshed_weight(weights[k], mb.alpha, labels_[k], drift);
    }
    in += n_in;
    out += n_out;
  }
  return fresh_.data();
}

} // namespace gridvec
