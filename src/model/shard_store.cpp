#include "src/model/shard_store.hpp"

#include "src/model/initial_vectors.hpp"

#include <algorithm>
#include <cstring>

#include "src/sgns/sgns_update.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

table_spec sgns_model_spec(uint32_t dim, uint32_t vocab_size, uint32_t node_rows) {
  table_spec spec;
  spec.name = "sgns";
  spec.kind = table_kind::matrix;
  spec.rows = uint64_t{vocab_size} * 2 + node_rows;
  spec.dim = dim;
  spec.layout = table_layout::columns;
  spec.dense = true;
  return spec; // init zeros: reset() writes word2vec.c's start
}

shard_store::shard_store(uint32_t shard, uint32_t shards, uint32_t dim, uint32_t vocab_size, uint64_t init_seed,
                         std::shared_ptr<const noise_sampler> noise, std::shared_ptr<const huffman_tree> tree)
  : slice_(column_slice::of(shard, shards, dim)), dim_(dim), vocab_size_(vocab_size), noise_(std::move(noise)),
    tree_(std::move(tree)),
    model_(std::make_shared<table_slice>(sgns_model_spec(dim, vocab_size, node_rows()), shard, shards)),
    u_(model_->dense_rows()), v_(u_ + size_t{vocab_size} * slice_.width) {
  reset(init_seed);
}

shard_store::shard_store(word_rows rows, uint32_t dim, uint32_t vocab_size, uint64_t init_seed)
  : slice_{0, dim}, rows_(rows), dim_(dim), vocab_size_(vocab_size),
    model_(std::make_shared<table_slice>(sgns_model_spec(dim, rows.rows_below(vocab_size), 0), 0, 1)),
    u_(model_->dense_rows()), v_(u_ + size_t{rows.rows_below(vocab_size)} * dim) {
  reset(init_seed);
}

void shard_store::reset(uint64_t init_seed) {
  for (uint32_t r = 0; r < held_rows(); ++r) {
    const uint32_t w = geometry().word_of(r);
    float* row = input_row(r);
    for (uint32_t j = 0; j < slice_.width; ++j)
      row[j] = initial_input_value(init_seed, w, slice_.first + j, dim_);
  }
  std::fill(v_, v_ + size_t{held_output_rows()} * slice_.width, 0.0f);
}

status shard_store::validate(minibatch& mb) const {
  if (mb.hierarchical != (tree_ != nullptr))
    return failure{mb.hierarchical ? "minibatch asks for hierarchical softmax (-hs 1), which this job does not train"
                                   : "minibatch lacks hierarchical softmax (-hs 1), which this job trains"};
  mb.tree = tree_.get();
  if (mb.negatives > max_negatives)
    return failure{"minibatch asks for " + std::to_string(mb.negatives) + " negatives (at most " +
                   std::to_string(max_negatives) + ")"};
  for (uint32_t w : mb.inputs)
    if (w >= vocab_size_)
      return failure{"minibatch input word id " + std::to_string(w) + " is out of range"};
  for (uint32_t w : mb.outputs)
    if (w >= vocab_size_)
      return failure{"minibatch output word id " + std::to_string(w) + " is out of range"};
  // Counts must describe the lists exactly, with at least one entry each.
  auto check_counts = [](const std::vector<uint32_t>& counts, size_t items, const char* what) -> status {
    if (counts.empty())
      return {};
    uint64_t sum = 0;
    for (uint32_t c : counts) {
      if (c == 0)
        return failure{std::string{"minibatch has an example with no "} + what};
      sum += c;
    }
    if (sum != items)
      return failure{std::string{"minibatch "} + what + " counts do not add up to the list"};
    return {};
  };
  if (auto s = check_counts(mb.input_counts, mb.inputs.size(), "inputs"); !s)
    return s;
  if (auto s = check_counts(mb.output_counts, mb.outputs.size(), "outputs"); !s)
    return s;
  if (mb.shared_negatives && (mb.mean_inputs || !mb.input_counts.empty() || holds_rows()))
    return failure{holds_rows() ? "minibatch asks for shared negatives, which the word split does not train"
                                : "minibatch asks for shared negatives on examples that are not skip-gram windows"};
  if (!mb.input_counts.empty() && !mb.output_counts.empty() && mb.input_counts.size() != mb.output_counts.size())
    return failure{"minibatch input and output counts disagree on the number of examples"};
  size_t examples = mb.examples();
  if (mb.input_counts.empty() && mb.inputs.size() != examples)
    return failure{"minibatch has " + std::to_string(mb.inputs.size()) + " inputs for " + std::to_string(examples) +
                   " examples"};
  if (mb.output_counts.empty() && mb.outputs.size() != examples)
    return failure{"minibatch has " + std::to_string(mb.outputs.size()) + " outputs for " + std::to_string(examples) +
                   " examples"};
  // Its dot products are allocated from this count: bounded before that.
  if (const size_t dots = mb.dot_count(); dots > max_dot_products)
    return failure{"minibatch has " + std::to_string(dots) + " dot products (at most " +
                   std::to_string(max_dot_products) + ")"};
  return {};
}

void shard_store::draw_targets(const minibatch& mb, std::vector<uint32_t>& targets) const {
  // Drawn through the word partitions (--negatives, --sampler
  // hierarchical), or from one alias table over the vocabulary. That table
  // has one entry per run of equal counts, and usually stays in the
  // caches. Where it does not (counts that nearly all differ), every draw
  // is a cache miss: a copy of the generator then runs `lookahead` draws
  // ahead and prefetches the entries the real draws will read, so the
  // misses overlap. (After a redraw, rare, it is one draw off: a wasted
  // prefetch, nothing more.)
  constexpr size_t lookahead = 16;
  // 2.5 MB of 20-byte entries: a table this small stays in the caches.
  constexpr uint32_t cached_table_entries = 1u << 17;
  const alias_sampler* whole = noise_->whole();
  rng r(mb.seed);
  rng ahead(mb.seed);
  const bool sampled = mb.sampled_targets() > 0;
  // Targets are drawn for every pair's output word, or with shared
  // negatives once for every window, for its centre.
  const std::vector<uint32_t>& positives = mb.shared_negatives ? mb.inputs : mb.outputs;
  const size_t draws = sampled ? positives.size() * size_t{mb.negatives} : 0;
  size_t prefetched = 0, drawn = 0;
  auto prefetch_until = [&](size_t n) {
    for (n = std::min(n, draws); prefetched < n; ++prefetched)
      whole->prefetch_draw(ahead);
  };
  // A table that stays in the caches gains nothing from it: it would only
  // draw twice.
  const bool look_ahead = whole && whole->runs() > cached_table_entries;
  targets.reserve(targets.size() + mb.target_count());
  for (uint32_t output : positives) {
    if (mb.hierarchical)
      append_path(output, targets);
    if (!sampled)
      continue;
    targets.push_back(output);
    if (!whole) {
      noise_->draw_for_pair(r, output, mb.negatives, targets);
      continue;
    }
    for (uint32_t n = 0; n < mb.negatives; ++n, ++drawn) {
      if (look_ahead)
        prefetch_until(drawn + lookahead);
      targets.push_back(draw_negative(r, output));
    }
  }
}

// Walks the minibatch in wire order, calling
//   on_pair(input_vector, example, first_input, input_count, output)
// once per positive pair. For CBOW the input vector is the mean of the
// example's input rows, computed into `hidden`.
template <class OnPair>
void shard_store::for_each_pair(const minibatch& mb, std::vector<float>& hidden, OnPair&& on_pair) const {
  const uint32_t width = slice_.width;
  hidden.resize(width);
  size_t in = 0, out = 0;
  const size_t examples = mb.examples();
  for (size_t e = 0; e < examples; ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    const float* h = sgns::example_input([this](uint32_t w) { return input_row(w); }, mb.inputs.data() + in, n_in,
                                         mb.mean_inputs, hidden.data(), width);
    for (uint32_t k = 0; k < n_out; ++k)
      on_pair(h, e, in, n_in, mb.outputs[out + k]);
    in += n_in;
    out += n_out;
  }
}

void shard_store::dotprod(const minibatch& mb, float* dots, std::vector<float>& hidden,
                          std::vector<uint32_t>* drawn) const {
  const uint32_t width = slice_.width;
  // All noise words first (their alias entries prefetched), then the rows
  // of the pair after next are fetched while this pair is computed, so the
  // cache misses of a large vocabulary overlap instead of queueing.
  std::vector<uint32_t> local;
  std::vector<uint32_t>& targets = drawn ? *drawn : local;
  const size_t first = targets.size();
  draw_targets(mb, targets);
  const uint32_t* t = targets.data() + first;
  if (mb.shared_negatives) {
    dotprod_windows(mb, dots, t);
    return;
  }
  const size_t count = targets.size() - first;
  // Prefetch distance in targets: two pairs' worth (their number varies
  // along Huffman paths).
  const size_t n = std::max<size_t>(1, count / std::max<size_t>(1, mb.pairs()));
  for (size_t i = 0; i < std::min(count, 2 * n); ++i)
    prefetch_row(output_row(t[i]), width);
  size_t k = 0;
  for_each_pair(mb, hidden, [&](const float* h, size_t, size_t, uint32_t, uint32_t output) {
    const size_t pair_targets = mb.targets_of(output);
    for (size_t i = k + 2 * n; i < std::min(count, k + 2 * n + pair_targets); ++i)
      prefetch_row(output_row(t[i]), width);
    for (size_t i = 0; i < pair_targets; ++i, ++k)
      dots[k] = dot(h, output_row(t[k]), width);
  });
}

// The Network-efficient word2vec paper applies the updates of one call at its end: every read sees the
// vectors as they were when the call began. Without a table of delta rows:
//   1. per dot product, the input side e_x += g * v_t, and the output side
//      v_t += g * h_x in the same visit of the row if this is the call's
//      last dot product with v_t (nothing reads v_t after it); a row that
//      comes again later in the call has its update deferred;
//   2. the deferred updates, v_t += g * h_x (u is still unchanged, so h_x
//      is as the call found it);
//   3. u_in += e_x for every input word of every example.
// A word that is the target of several dot products gets the sum of their
// updates, as if deferred. Most rows of a call are visited once, so this
// reads most rows once where the call used to read every row twice (a pass
// for the errors, then one for the updates).
void shard_store::adjust(const minibatch& mb, const float* weights, adjust_scratch& s,
                         const std::vector<uint32_t>* drawn, const float* partials) {
  const uint32_t width = slice_.width;
  const size_t examples = mb.examples();
  if (!drawn) {
    s.targets.clear();
    draw_targets(mb, s.targets);
    drawn = &s.targets;
  }
  const std::vector<uint32_t>& targets = *drawn;
  if (mb.shared_negatives) {
    adjust_windows(mb, weights, s, targets.data(), partials);
    return;
  }
  // Weights computed before the other minibatches in flight landed are
  // recomputed for the rows as they are now (src/sgns/weight_refresh.hpp),
  // in pass 1, which reads those rows anyway.
  const bool refresh = partials && mb.staleness > 1 && mb.alpha > 0;
  const float widen = static_cast<float>(dim_) / static_cast<float>(width);
  if (refresh) {
    mb.labels(s.labels);
    s.fresh.resize(targets.size());
  }
  s.errors.assign(examples * width, 0.0f);
  if (mb.mean_inputs)
    s.inputs.resize(examples * width);
  s.last.mark(targets);
  s.deferred.clear();

  // Pass 1. For CBOW the mean input row of each example is kept for the
  // output side.
  const size_t ahead = std::max<size_t>(1, targets.size() / std::max<size_t>(1, mb.pairs())); // about a pair
  size_t k = 0;
  for_each_pair(mb, s.hidden, [&](const float* h, size_t e, size_t in, uint32_t, uint32_t output) {
    if (mb.mean_inputs)
      std::copy(h, h + width, s.inputs.data() + e * width);
    // The output side's input row, as the end-of-call update always took it.
    const float* h_out = mb.mean_inputs ? s.inputs.data() + e * width : input_row(mb.inputs[in]);
    float* err = s.errors.data() + e * width;
    const size_t pair_targets = mb.targets_of(output);
    // Fetch the next pair's rows while this one is summed.
    for (size_t i = k + pair_targets; i < std::min(k + pair_targets + ahead, targets.size()); ++i)
      prefetch_row(output_row(targets[i]), width);
    const uint32_t* t = targets.data() + k;
    const float* g = weights + k;
    if (refresh) {
      // The pair's dot products as the rows are now, then its weights
      // refreshed at once (one vectorized loop); the rows stay in L1 for
      // the updates below.
      float* fresh = s.fresh.data() + k;
      for (size_t i = 0; i < pair_targets; ++i)
        fresh[i] = dot(h, output_row(t[i]), width);
      refresh_weights(g, partials + k, fresh, s.labels.data() + k, mb.alpha, widen, pair_targets, fresh);
      g = fresh;
    }
    for (size_t i = 0; i < pair_targets; ++i) {
      float* v = output_row(t[i]);
      if (s.last.is_last(k + i)) {
        sgns::pair_step(g[i], h_out, v, err, width); // e += g v, then v += g h
      } else {
        sgns::pair_error(g[i], v, err, width);
        s.deferred.push_back({static_cast<uint32_t>(k + i), h_out});
      }
    }
    k += pair_targets;
  });
  if (refresh)
    weights = s.fresh.data();

  // Pass 2: the deferred updates. Their rows are the call's repeated ones
  // (frequent words), few and still in the caches.
  for (const auto& d : s.deferred)
    sgns::pair_output(weights[d.target], d.input, output_row(targets[d.target]), width);

  // Pass 3. CBOW adds the whole error to every context word, as word2vec.c.
  size_t in = 0;
  for (size_t e = 0; e < examples; ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    sgns::apply_error([this](uint32_t w) { return input_row(w); }, mb.inputs.data() + in, n_in,
                      s.errors.data() + e * width, width);
    in += n_in;
  }
}

void shard_store::read_input_rows(uint32_t begin, uint32_t end, float* out) const {
  const size_t rows = rows_held_in(begin, end);
  if (rows == 0) // an empty range: no row to point at (found by fuzz_node_request)
    return;
  const uint32_t first = rows_.rows_below(begin);
  std::memcpy(out, input_row(first), rows * slice_.width * sizeof(float));
}

void shard_store::read_output_rows(uint32_t begin, uint32_t end, float* out) const {
  const size_t rows = rows_held_in(begin, end);
  if (rows == 0) // an empty range: no row to point at (found by fuzz_node_request)
    return;
  const uint32_t first = rows_.rows_below(begin);
  std::memcpy(out, output_row(first), rows * slice_.width * sizeof(float));
}

} // namespace gridvec
