// The fused path with shared negatives: each skip-gram window trained as
// small dense matrix products (src/sgns/local_trainer.hpp says what and why).
#include <algorithm>

#include "src/sgns/local_trainer.hpp"
#include "src/sgns/sgns_update.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

void local_trainer::window_targets(const minibatch& mb, uint32_t centre, rng& r) {
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

void local_trainer::slice_rows(shard_store& s, const uint32_t* contexts, uint32_t m, const uint32_t* targets,
                               size_t n) {
  in_rows_.resize(m);
  out_rows_.resize(n);
  for (uint32_t j = 0; j < m; ++j)
    in_rows_[j] = s.input_row(contexts[j]);
  for (size_t i = 0; i < n; ++i)
    out_rows_[i] = s.output_row(targets[i]);
}

void local_trainer::prefetch_window(const minibatch& mb, size_t e) {
  const uint32_t* contexts = mb.outputs.data() + win_contexts_[e];
  const uint32_t m = static_cast<uint32_t>(win_contexts_[e + 1] - win_contexts_[e]);
  for (const auto& s : stores_) {
    const uint32_t width = s->slice().width;
    for (size_t i = win_first_[e]; i < win_first_[e + 1]; ++i)
      prefetch_row(s->output_row(win_targets_[i]), width);
    for (uint32_t j = 0; j < m; ++j)
      prefetch_row(s->input_row(contexts[j]), width);
  }
}

// Windows prefetched ahead: their rows arrive while the windows between
// compute (each window's rows are read from memory once).
constexpr size_t window_prefetch_distance = 2;

weight_result local_trainer::train_windows(const minibatch& mb, float alpha) {
  weight_result total;
  total.pairs = mb.pairs();
  // Every window's targets first (one generator, in example order), so that
  // the rows of the windows ahead can be fetched while one computes.
  const size_t examples = mb.examples();
  win_targets_.clear();
  win_labels_.clear();
  win_counts_.clear();
  win_first_.assign(1, 0);
  win_contexts_.assign(1, 0);
  rng r(mb.seed);
  for (size_t e = 0; e < examples; ++e) {
    window_targets(mb, mb.inputs[e], r);
    win_first_.push_back(win_targets_.size());
    win_contexts_.push_back(win_contexts_.back() + (mb.output_counts.empty() ? 1 : mb.output_counts[e]));
  }
  targets_ = win_targets_;
  for (size_t e = 0; e < std::min(examples, window_prefetch_distance); ++e)
    prefetch_window(mb, e);
  for (size_t e = 0; e < examples; ++e) {
    if (e + window_prefetch_distance < examples)
      prefetch_window(mb, e + window_prefetch_distance);
    const uint32_t m = static_cast<uint32_t>(win_contexts_[e + 1] - win_contexts_[e]);
    const uint32_t* contexts = mb.outputs.data() + win_contexts_[e];
    const size_t first = win_first_[e], n = win_first_[e + 1] - first;
    const uint32_t* targets = win_targets_.data() + first;
    const uint8_t* labels = win_labels_.data() + first;
    const float* counts = win_counts_.data() + first;
    // F = Out In^T, summed over the slices: row i (a target) holds its dot
    // products with every context.
    win_dots_.assign(n * m, 0.0f);
    win_scratch_.resize(n * m);
    for (const auto& s : stores_) {
      slice_rows(*s, contexts, m, targets, n);
      sgns::window_dots(out_rows_.data(), n, in_rows_.data(), m, win_scratch_.data(), s->slice().width);
      for (size_t k = 0; k < n * m; ++k)
        win_dots_[k] += win_scratch_[k];
    }
    // G = alpha (label - sigmoid(F)), times the target's count: one call
    // for the window, each target's label repeated along its row.
    win_weights_.resize(n * m);
    win_row_labels_.resize(n * m);
    for (size_t i = 0; i < n; ++i)
      std::fill_n(win_row_labels_.begin() + static_cast<std::ptrdiff_t>(i * m), m, labels[i]);
    {
      auto w = target_weights(win_dots_.data(), win_row_labels_.data(), n * m, alpha, win_weights_.data());
      total.diverged |= w.diverged;
      bool counted = true;
      for (size_t i = 0; i < n; ++i)
        counted &= counts[i] == 1.0f;
      if (counted) {
        total.loss += w.loss;
      } else { // a noise word drawn twice: its loss and weights count twice
        for (size_t i = 0; i < n; ++i)
          if (counts[i] != 1.0f) {
            const float* f = win_dots_.data() + i * m;
            total.loss += (counts[i] - 1.0f) *
                          target_weights(f, win_row_labels_.data() + i * m, m, alpha, win_scratch_.data()).loss;
            for (uint32_t j = 0; j < m; ++j)
              win_weights_[i * m + j] *= counts[i];
          }
        total.loss += w.loss;
      }
    }
    // Every update from the rows as the window found them: the contexts'
    // deltas first (from Out), then Out += G In, then In += delta.
    for (const auto& s : stores_) {
      const uint32_t width = s->slice().width;
      if (stores_.size() > 1)
        slice_rows(*s, contexts, m, targets, n);
      win_delta_.resize(size_t{m} * width);
      sgns::window_update(win_weights_.data(), out_rows_.data(), n, in_rows_.data(), m, win_delta_.data(), width);
    }
  }
  return total;
}

} // namespace gridvec
