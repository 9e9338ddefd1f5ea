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

local_trainer::local_trainer(std::vector<std::shared_ptr<shard_store>> stores) : stores_(std::move(stores)) {
  std::sort(stores_.begin(), stores_.end(),
            [](const auto& a, const auto& b) { return a->slice().first < b->slice().first; });
  for (const auto& s : stores_)
    dim_ += s->slice().width;
  error_.assign(dim_, 0.0f);
  hidden_.assign(dim_, 0.0f);
  h_.resize(stores_.size());
}

void local_trainer::prefetch_targets(size_t first, size_t count) {
  const size_t end = std::min(targets_.size(), first + count);
  for (size_t k = first; k < end; ++k)
    for (const auto& s : stores_)
      prefetch_row(s->output_row(targets_[k]), s->slice().width);
}

weight_result local_trainer::train(const minibatch& mb, float alpha) {
  // Two copies of the loop: without -hs 1 every pair has the same targets,
  // and the compiler keeps that loop as tight as before -hs 1 existed.
  if (mb.shared_negatives)
    return train_windows(mb, alpha);
  return mb.hierarchical ? train_as<true>(mb, alpha) : train_as<false>(mb, alpha);
}

template <bool Hierarchical>
weight_result local_trainer::train_as(const minibatch& mb, float alpha) {
  double loss = 0;
  bool diverged = false;
  targets_.clear();
  stores_.front()->draw_targets(mb, targets_); // the shards' noise words
  // Labels: every target's with -hs 1; else the one layout every pair shares.
  const size_t per_pair = mb.sampled_targets(); // without -hs 1
  if constexpr (Hierarchical) {
    mb.labels(labels_);
  } else {
    labels_.assign(per_pair, target_label::noise);
    labels_[0] = target_label::positive;
  }
  // Prefetch distance in targets: a few pairs' worth (Huffman paths vary).
  const size_t ahead = prefetch_distance * std::max<size_t>(1, targets_.size() / std::max<size_t>(1, mb.pairs()));
  prefetch_targets(0, ahead);

  size_t in = 0, out = 0, k = 0;
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
    for (uint32_t o = 0; o < n_out; ++o) {
      const size_t pair_targets = Hierarchical ? mb.targets_of(mb.outputs[out + o]) : per_pair;
      prefetch_targets(k + ahead, pair_targets);
      if (pair_targets > dots_.size()) {
        dots_.resize(pair_targets);
        weights_.resize(pair_targets);
      }
      const uint32_t* pair = targets_.data() + k; // this pair's targets
      for (size_t t = 0; t < pair_targets; ++t) {
        float f = 0;
        for (size_t s = 0; s < stores_.size(); ++s)
          f += dot(h_[s], stores_[s]->output_row(pair[t]), stores_[s]->slice().width);
        dots_[t] = f;
      }
      const uint8_t* labels = Hierarchical ? labels_.data() + k : labels_.data();
      auto w = target_weights(dots_.data(), labels, pair_targets, alpha, weights_.data());
      loss += w.loss;
      diverged |= w.diverged;
      for (size_t s = 0; s < stores_.size(); ++s) {
        auto& st = *stores_[s];
        const uint32_t width = st.slice().width;
        float* err = error_.data() + st.slice().first;
        for (size_t t = 0; t < pair_targets; ++t)
          sgns::pair_step(weights_[t], h_[s], st.output_row(pair[t]), err, width);
        sgns::apply_error([&st](uint32_t w) { return st.input_row(w); }, inputs, n_in, err, width);
        std::fill(err, err + width, 0.0f);
      }
      k += pair_targets;
    }
    in += n_in;
    out += n_out;
  }
  weight_result total;
  total.loss = loss;
  total.diverged = diverged;
  total.pairs = mb.pairs();
  return total;
}

} // namespace gridvec
