#include "src/sgns/staleness_damper.hpp"

#include <algorithm>

#include "src/util/rng.hpp"
#include "src/sgns/sgns.hpp"
#include "src/sgns/sgns_update.hpp"
#include "src/model/shard_store.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

namespace {

constexpr float curvature_budget = 2.0f; // of L * alpha * K

// One table holds pairs and rows: a pair's key has its input row in the
// high half (never all ones: ids are below 2^32 - 1), a row's key is all
// ones there.
uint64_t pair_key(uint64_t input, uint32_t target) { return input << 32 | target; }
uint64_t output_key(uint32_t t) { return uint64_t{0xFFFFFFFFu} << 32 | t; }
uint64_t input_key(uint32_t u) { return uint64_t{0xFFFFFFFEu} << 32 | u; }

// sigma'(f) = sigma (1 - sigma), from the weight g = alpha (label - sigma).
// (An inner node's update skipped at |f| >= 6 has weight 0: slope 0.)
float slope_of(float weight, float alpha, uint8_t label) {
  const float sigma = target_label::value(label) - weight / alpha;
  return std::max(0.0f, sigma * (1.0f - sigma));
}

} // namespace

void staleness_damper::reset_rows(size_t entries) {
  size_t want = 64;
  while (want < 2 * entries)
    want *= 2;
  if (want > table_.size()) {
    table_.assign(want, entry{});
    generation_ = 0;
  }
  mask_ = table_.size() - 1;
  if (++generation_ == 0) { // wrapped: forget every stamp
    std::fill(table_.begin(), table_.end(), entry{});
    generation_ = 1;
  }
}

staleness_damper::entry& staleness_damper::at(uint64_t key) {
  for (size_t i = mix64(key, 0xDA3F) & mask_;; i = (i + 1) & mask_) {
    entry& r = table_[i];
    if (r.generation != generation_) {
      r = entry{};
      r.key = key;
      r.generation = generation_;
      return r;
    }
    if (r.key == key)
      return r;
  }
}

float staleness_damper::slopes_at(uint64_t key) const {
  for (size_t i = mix64(key, 0xDA3F) & mask_;; i = (i + 1) & mask_) {
    const entry& r = table_[i];
    if (r.generation != generation_)
      return 0.0f;
    if (r.key == key)
      return r.slopes;
  }
}

const float* staleness_damper::damp(const shard_store& store, const minibatch& mb, const float* weights,
                                    const std::vector<uint32_t>& targets) {
  scaled_ = 0;
  if (mb.staleness == 0 || !(mb.alpha > 0))
    return weights;
  const uint32_t width = store.slice().width;
  const float widen = static_cast<float>(store.dim()) / static_cast<float>(width);
  const size_t examples = mb.examples(), dots = targets.size();
  mb.labels(labels_);
  reset_rows(2 * dots + mb.inputs.size());

  // Squared norms: each example's input (CBOW: the mean of its inputs) and
  // each target.
  h_norms_.resize(examples);
  v_norms_.resize(dots);
  pair_of_.resize(dots);
  size_t in = 0, out = 0, k = 0;
  example_dots_.resize(examples);
  for (size_t e = 0; e < examples; ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    example_dots_[e] = mb.targets_of_outputs(out, n_out);
    out += n_out;
    mean_.resize(width);
    const float* h = sgns::example_input([&store](uint32_t w) { return store.input_row(w); }, mb.inputs.data() + in,
                                         n_in, mb.mean_inputs, mean_.data(), width);
    h_norms_[e] = widen * dot(h, h, width);
    // Per pair (input row, output row): how often it occurs, and the sum
    // of sigma'(f) over its dot products. CBOW: the first context word
    // stands for the example's set.
    const uint64_t input = mb.inputs[in];
    for (size_t j = 0; j < example_dots_[e]; ++j, ++k) {
      const float* v = store.output_row(targets[k]);
      v_norms_[k] = widen * dot(v, v, width);
      entry& p = at(pair_key(input, targets[k]));
      p.slopes += slope_of(weights[k], mb.alpha, labels_[k]);
      ++p.count;
      pair_of_[k] = &p;
    }
    in += n_in;
  }

  // Per row: the curvature of its repeated pairs, summed (a row's partners
  // in repetitive text come to point the same way, so theirs add up).
  in = 0;
  k = 0;
  for (size_t e = 0; e < examples; ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    for (size_t j = 0; j < example_dots_[e]; ++j, ++k) {
      entry& p = *pair_of_[k];
      if (p.count < 2 || p.counted)
        continue;
      p.counted = true;
      at(output_key(targets[k])).slopes += p.slopes * h_norms_[e];
      at(input_key(mb.inputs[in])).slopes += p.slopes * v_norms_[k];
    }
    in += n_in;
  }

  // Each pair's scale: its own curvature, or its rows', whichever is more.
  const float budget = curvature_budget / (mb.alpha * static_cast<float>(mb.staleness));
  damped_.assign(weights, weights + dots);
  in = 0;
  k = 0;
  for (size_t e = 0; e < examples; ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const float input_row = slopes_at(input_key(mb.inputs[in]));
    for (size_t j = 0; j < example_dots_[e]; ++j, ++k) {
      const float own = pair_of_[k]->slopes * std::max(h_norms_[e], v_norms_[k]);
      const float curvature = std::max({own, input_row, slopes_at(output_key(targets[k]))});
      if (curvature > budget) {
        damped_[k] *= budget / curvature;
        ++scaled_;
      }
    }
    in += n_in;
  }
  return scaled_ > 0 ? damped_.data() : weights;
}

} // namespace gridvec
