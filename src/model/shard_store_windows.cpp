// A shard's dotprod and adjust for minibatches of skip-gram windows with
// shared negatives (HogBatch, src/sgns/minibatch.hpp): each window's dot
// products and update over this shard's columns are the fused window
// kernel's own (src/sgns/sgns_update.hpp), so a window touches its
// contexts + n + 1 rows once instead of every pair's n + 2, and the noise
// words are drawn once a window instead of once a pair.
//
// Unlike the pair-by-pair adjust, whose reads all see the vectors as the
// call found them, each window's update lands before the next window's
// reads, as in the fused path. The refresh of stale weights
// (src/sgns/weight_refresh.hpp) takes each window's dot products as the
// window finds the rows, so it also covers the windows of the same call.
#include <algorithm>

#include "src/model/shard_store.hpp"
#include "src/sgns/sgns_update.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

namespace {

// Where window e's targets, contexts and dot products begin in the
// minibatch's lists, and how many it has.
struct window_span {
  size_t target, targets;
  size_t context, contexts;
  size_t dot;
};

void window_spans(const minibatch& mb, std::vector<window_span>& out) {
  out.clear();
  out.reserve(mb.inputs.size());
  size_t target = 0, context = 0, dot = 0;
  for (size_t e = 0; e < mb.inputs.size(); ++e) {
    const size_t n = mb.targets_of(mb.inputs[e]);
    const size_t m = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    out.push_back({target, n, context, m, dot});
    target += n;
    context += m;
    dot += n * m;
  }
}

// Windows whose rows are fetched ahead: they arrive while the windows in
// between compute.
constexpr size_t windows_ahead = 2;

// Calls on_window(e, span) for every window of `mb` in order, with `in`
// and `out` pointing at its context (input) and target (output) rows;
// the rows of the window two ahead are being fetched meanwhile. `Store`
// is const for the dotprod, whose rows are only read.
template <class Store, class Row, class OnWindow>
void visit_windows(Store& store, const minibatch& mb, const uint32_t* targets, std::vector<Row>& in,
                   std::vector<Row>& out, OnWindow&& on_window) {
  const uint32_t width = store.slice().width;
  std::vector<window_span> spans;
  window_spans(mb, spans);
  auto prefetch = [&](const window_span& w) {
    for (size_t i = 0; i < w.targets; ++i)
      prefetch_row(store.output_row(targets[w.target + i]), width);
    for (size_t j = 0; j < w.contexts; ++j)
      prefetch_row(store.input_row(mb.outputs[w.context + j]), width);
  };
  for (size_t e = 0; e < std::min(spans.size(), windows_ahead); ++e)
    prefetch(spans[e]);
  for (size_t e = 0; e < spans.size(); ++e) {
    if (e + windows_ahead < spans.size())
      prefetch(spans[e + windows_ahead]);
    const window_span& w = spans[e];
    in.resize(w.contexts);
    out.resize(w.targets);
    for (size_t j = 0; j < w.contexts; ++j)
      in[j] = store.input_row(mb.outputs[w.context + j]);
    for (size_t i = 0; i < w.targets; ++i)
      out[i] = store.output_row(targets[w.target + i]);
    on_window(e, w);
  }
}

} // namespace

void shard_store::dotprod_windows(const minibatch& mb, float* dots, const uint32_t* targets) const {
  std::vector<const float*> in_rows, out_rows;
  visit_windows(*this, mb, targets, in_rows, out_rows, [&](size_t, const window_span& w) {
    sgns::window_dots(out_rows.data(), w.targets, in_rows.data(), static_cast<uint32_t>(w.contexts), dots + w.dot,
                      slice_.width);
  });
}

void shard_store::adjust_windows(const minibatch& mb, const float* weights, adjust_scratch& s, const uint32_t* targets,
                                 const float* partials) {
  const uint32_t width = slice_.width;
  const bool refresh = partials && mb.staleness > 1 && mb.alpha > 0;
  const float widen = static_cast<float>(dim_) / static_cast<float>(width);
  // The weights a window trains with: refreshed, or with a noise word equal
  // to the centre left out, are written here first.
  s.fresh.resize(mb.dot_count());
  if (refresh)
    mb.labels(s.labels);
  visit_windows(*this, mb, targets, s.in_rows, s.out_rows, [&](size_t e, const window_span& w) {
    const auto m = static_cast<uint32_t>(w.contexts);
    const float* g = weights + w.dot;
    float* own = s.fresh.data() + w.dot;
    if (refresh) {
      sgns::window_dots(s.out_rows.data(), w.targets, s.in_rows.data(), m, own, width);
      refresh_weights(g, partials + w.dot, own, s.labels.data() + w.dot, mb.alpha, widen, w.targets * m, own);
      g = own;
    }
    // A noise word equal to the centre (drawn only where the vocabulary
    // leaves no other) is skipped, as word2vec.c skips it.
    if (mb.sampled_targets() > 0) {
      const uint32_t centre = mb.inputs[e];
      for (size_t i = w.targets - mb.negatives; i < w.targets; ++i)
        if (targets[w.target + i] == centre) {
          if (g != own) {
            std::copy(g, g + w.targets * m, own);
            g = own;
          }
          std::fill(own + i * m, own + (i + 1) * m, 0.0f);
        }
    }
    s.delta.resize(size_t{m} * width);
    sgns::window_update(g, s.out_rows.data(), w.targets, s.in_rows.data(), m, s.delta.data(), width);
  });
}

} // namespace gridvec
