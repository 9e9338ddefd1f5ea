#include "src/sgns/local_trainer.hpp"

#include <algorithm>

#include "src/sgns/sgns_update.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

namespace {
// Pairs ahead whose rows are prefetched: enough to cover a DRAM miss with
// the work of the pairs in between, few enough to stay in L1/L2.
constexpr size_t prefetch_distance = 4;
} // namespace

local_trainer::local_trainer(std::vector<std::shared_ptr<shard_store>> stores, bool shared_negatives)
  : stores_(std::move(stores)), shared_negatives_(shared_negatives) {
  std::sort(stores_.begin(), stores_.end(),
            [](const auto& a, const auto& b) { return a->slice().first < b->slice().first; });
  for (const auto& s : stores_)
    dim_ += s->slice().width;
  error_.assign(dim_, 0.0f);
  hidden_.assign(dim_, 0.0f);
  h_.resize(stores_.size());
}

void local_trainer::prefetch_pair(size_t first) {
  const size_t end = std::min(targets_.size(), first + dots_.size());
  for (size_t k = first; k < end; ++k)
    for (const auto& s : stores_)
      prefetch_row(s->output_row(targets_[k]), s->slice().width);
}

// Targets in the usual layout (per pair: positive, noise words), with the
// same noise words for every pair of an example, drawn from the seed.
void local_trainer::draw_shared_targets(const minibatch& mb) {
  const shard_store& noise = *stores_.front();
  rng r(mb.seed);
  size_t out = 0;
  uint32_t shared[1000];
  const uint32_t n = std::min<uint32_t>(mb.negatives, 1000);
  for (size_t e = 0; e < mb.examples(); ++e) {
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    for (uint32_t i = 0; i < n; ++i)
      shared[i] = noise.draw_negative(r, mb.outputs[out]);
    for (uint32_t o = 0; o < n_out; ++o) {
      targets_.push_back(mb.outputs[out + o]);
      targets_.insert(targets_.end(), shared, shared + n);
    }
    out += n_out;
  }
}

weight_result local_trainer::train(const minibatch& mb, float alpha) {
  weight_result total;
  const size_t per_pair = size_t{mb.negatives} + 1;
  targets_.clear();
  if (shared_negatives_)
    draw_shared_targets(mb);
  else
    stores_.front()->draw_targets(mb, targets_); // the shards' noise words
  dots_.resize(per_pair);
  weights_.resize(per_pair);
  for (size_t p = 0; p < prefetch_distance; ++p)
    prefetch_pair(p * per_pair);

  size_t in = 0, k = 0;
  const size_t examples = mb.examples();
  for (size_t e = 0; e < examples; ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    const uint32_t* inputs = mb.inputs.data() + in;
    if (e + 1 < examples) // the next example's input rows, like the targets
      for (const auto& s : stores_)
        prefetch_row(s->input_row(inputs[n_in]), s->slice().width);
    for (size_t s = 0; s < stores_.size(); ++s) {
      const auto& st = *stores_[s];
      h_[s] = sgns::example_input([&st](uint32_t w) { return st.input_row(w); }, inputs, n_in, mb.mean_inputs,
                                  hidden_.data() + st.slice().first, st.slice().width);
    }
    for (uint32_t o = 0; o < n_out; ++o, k += per_pair) {
      prefetch_pair(k + prefetch_distance * per_pair);
      for (size_t t = 0; t < per_pair; ++t) {
        float f = 0;
        for (size_t s = 0; s < stores_.size(); ++s)
          f += dot(h_[s], stores_[s]->output_row(targets_[k + t]), stores_[s]->slice().width);
        dots_[t] = f;
      }
      auto w = compute_weights(dots_.data(), 1, mb.negatives, alpha, weights_.data());
      total.loss += w.loss;
      total.diverged |= w.diverged;
      total.pairs += w.pairs;
      if (shared_negatives_)
        for (size_t t = 1; t < per_pair; ++t)
          if (targets_[k + t] == targets_[k])
            weights_[t] = 0; // the positive drawn as noise: skipped
      for (size_t s = 0; s < stores_.size(); ++s) {
        auto& st = *stores_[s];
        const uint32_t width = st.slice().width;
        float* err = error_.data() + st.slice().first;
        for (size_t t = 0; t < per_pair; ++t)
          sgns::pair_step(weights_[t], h_[s], st.output_row(targets_[k + t]), err, width);
        sgns::apply_error([&st](uint32_t w) { return st.input_row(w); }, inputs, n_in, err, width);
        std::fill(err, err + width, 0.0f);
      }
    }
    in += n_in;
  }
  return total;
}

} // namespace gridvec
