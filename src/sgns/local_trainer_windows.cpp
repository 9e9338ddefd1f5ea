// The fused path with shared negatives: each skip-gram window trained as
// small dense matrix products (src/sgns/local_trainer.hpp says what and why).
#include <algorithm>

#include "src/sgns/local_trainer.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

void local_trainer::window_targets(const minibatch& mb, uint32_t centre, rng& r) {
  win_targets_.clear();
  win_labels_.clear();
  win_counts_.clear();
  const shard_store& store = *stores_.front();
  if (mb.hierarchical) {
    store.append_path(centre, win_targets_);
    const uint8_t* code = mb.tree->codes(centre);
    for (uint32_t d = 0; d < mb.tree->length(centre); ++d) {
      win_labels_.push_back(code[d] ? target_label::node_code1 : target_label::node_code0);
      win_counts_.push_back(1.0f);
    }
  }
  if (mb.sampled_targets() == 0)
    return;
  const size_t positive = win_targets_.size();
  win_targets_.push_back(centre);
  win_labels_.push_back(target_label::positive);
  win_counts_.push_back(1.0f);
  for (uint32_t i = 0; i < mb.negatives; ++i) {
    const uint32_t w = store.draw_negative(r, centre);
    if (w == centre)
      continue; // only where the vocabulary leaves no other word: skipped, as word2vec.c
    // A word drawn twice is one target of twice the weight.
    auto it = std::find(win_targets_.begin() + static_cast<std::ptrdiff_t>(positive) + 1, win_targets_.end(), w);
    if (it != win_targets_.end()) {
      win_counts_[static_cast<size_t>(it - win_targets_.begin())] += 1.0f;
      continue;
    }
    win_targets_.push_back(w);
    win_labels_.push_back(target_label::noise);
    win_counts_.push_back(1.0f);
  }
}

void local_trainer::slice_rows(shard_store& s, const uint32_t* contexts, uint32_t m) {
  in_rows_.resize(m);
  out_rows_.resize(win_targets_.size());
  for (uint32_t j = 0; j < m; ++j)
    in_rows_[j] = s.input_row(contexts[j]);
  for (size_t i = 0; i < win_targets_.size(); ++i)
    out_rows_[i] = s.output_row(win_targets_[i]);
}

weight_result local_trainer::train_windows(const minibatch& mb, float alpha) {
  weight_result total;
  total.pairs = mb.pairs();
  targets_.clear();
  rng r(mb.seed);
  size_t out = 0;
  const size_t examples = mb.examples();
  for (size_t e = 0; e < examples; ++e) {
    const uint32_t centre = mb.inputs[e];
    const uint32_t m = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    const uint32_t* contexts = mb.outputs.data() + out;
    out += m;
    window_targets(mb, centre, r);
    const size_t n = win_targets_.size();
    targets_.insert(targets_.end(), win_targets_.begin(), win_targets_.end());
    if (e + 1 < examples) { // the next window's rows, while this one computes
      const uint32_t next_m = mb.output_counts.empty() ? 1 : mb.output_counts[e + 1];
      for (const auto& s : stores_) {
        prefetch_row(s->output_row(mb.inputs[e + 1]), s->slice().width);
        for (uint32_t j = 0; j < next_m; ++j)
          prefetch_row(s->input_row(mb.outputs[out + j]), s->slice().width);
      }
    }
    // F = Out In^T, summed over the slices: row i (a target) holds its dot
    // products with every context.
    win_dots_.assign(n * m, 0.0f);
    win_scratch_.resize(m);
    for (const auto& s : stores_) {
      const uint32_t width = s->slice().width;
      slice_rows(*s, contexts, m);
      for (size_t i = 0; i < n; ++i) {
        float* f = win_dots_.data() + i * m;
        gridvec::dots(out_rows_[i], in_rows_.data(), m, win_scratch_.data(), width);
        for (uint32_t j = 0; j < m; ++j)
          f[j] += win_scratch_[j];
      }
    }
    // G = alpha (label - sigmoid(F)), times the target's count.
    win_weights_.resize(n * m);
    for (size_t i = 0; i < n; ++i) {
      win_row_labels_.assign(m, win_labels_[i]);
      auto w = target_weights(win_dots_.data() + i * m, win_row_labels_.data(), m, alpha, win_weights_.data() + i * m);
      total.loss += w.loss * win_counts_[i];
      total.diverged |= w.diverged;
      if (win_counts_[i] != 1.0f)
        for (uint32_t j = 0; j < m; ++j)
          win_weights_[i * m + j] *= win_counts_[i];
    }
    // Every update from the rows as the window found them: the contexts'
    // deltas first (from Out), then Out += G In, then In += delta.
    for (const auto& s : stores_) {
      const uint32_t width = s->slice().width;
      if (stores_.size() > 1)
        slice_rows(*s, contexts, m);
      win_delta_.assign(size_t{m} * width, 0.0f);
      for (uint32_t j = 0; j < m; ++j)
        axpy_many(win_weights_.data() + j, m, out_rows_.data(), n, win_delta_.data() + size_t{j} * width, width);
      for (size_t i = 0; i < n; ++i)
        axpy_many(win_weights_.data() + i * m, 1, in_rows_.data(), m, out_rows_[i], width);
      for (uint32_t j = 0; j < m; ++j)
        axpy(1.0f, win_delta_.data() + size_t{j} * width, in_rows_[j], width);
    }
  }
  return total;
}

} // namespace gridvec
