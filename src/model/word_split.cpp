#include "src/model/word_split.hpp"

#include <algorithm>
#include <string>

#include "src/model/initial_vectors.hpp"
#include "src/sgns/sgns_update.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

partition_rows::partition_rows(uint32_t k, word_layout layout, uint32_t dim, uint32_t vocab, uint64_t init_seed)
  : index_(k), dim_(dim), vocab_(vocab), rows_(layout.rows_of(k, vocab)), layout_(layout), own_u_(size_t{rows_} * dim),
    own_v_(size_t{rows_} * dim, 0.0f), u_(own_u_.data()), v_(own_v_.data()) {
  for (uint32_t w = k; w < vocab; w += layout.partitions) {
    float* row = input(w);
    for (uint32_t j = 0; j < dim; ++j)
      row[j] = initial_input_value(init_seed, w, j, dim);
  }
}

partition_rows::partition_rows(uint32_t k, word_layout layout, uint32_t dim, uint32_t vocab, float* inputs,
                               float* outputs, indexing rows)
  : index_(k), dim_(dim), vocab_(vocab), rows_(layout.rows_of(k, vocab)), layout_(layout),
    global_(rows == indexing::global), u_(inputs), v_(outputs) {}

std::vector<minibatch> split_by_source(const minibatch& mb, word_layout layout) {
  std::vector<minibatch> share(layout.partitions);
  size_t in = 0, out = 0;
  for (size_t e = 0; e < mb.examples(); ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    auto& s = share[layout.owner(mb.inputs[in])];
    s.inputs.insert(s.inputs.end(), mb.inputs.begin() + in, mb.inputs.begin() + in + n_in);
    s.input_counts.push_back(n_in);
    s.outputs.insert(s.outputs.end(), mb.outputs.begin() + out, mb.outputs.begin() + out + n_out);
    s.output_counts.push_back(n_out);
    in += n_in;
    out += n_out;
  }
  for (auto& s : share) {
    s.seed = mb.seed;
    s.negatives = mb.negatives;
    s.mean_inputs = mb.mean_inputs;
    s.hierarchical = mb.hierarchical;
    s.alpha = mb.alpha;
  }
  return share;
}

namespace {

// The batches being planned, one per partition. An example's pairs share
// its input word and come one after another: a batch carries that input's
// vector once for all of them (a word seen again in a later example
// travels again, as the Distributed negative sampling paper sends it per skip-gram).
class planner {
public:
  planner(uint32_t partitions, bool share_inputs) : batches_(partitions), share_inputs_(share_inputs) {
    for (uint32_t k = 0; k < partitions; ++k)
      batches_[k].peer = k;
  }

  void visit(uint32_t peer, uint32_t input, uint32_t positive, uint32_t noise) {
    auto& b = batches_[peer];
    if (!share_inputs_ || b.input_words.empty() || b.input_words.back() != input)
      b.input_words.push_back(input);
    b.visit_input.push_back(static_cast<uint32_t>(b.input_words.size() - 1));
    b.visit_positive.push_back(positive);
    b.visit_noise.push_back(noise);
  }

  std::vector<visit_batch> take() {
    std::vector<visit_batch> out;
    for (auto& b : batches_)
      if (b.visits() > 0)
        out.push_back(std::move(b));
    return out;
  }

private:
  std::vector<visit_batch> batches_;
  bool share_inputs_;
};

} // namespace

expected<std::vector<visit_batch>> plan_visits(const minibatch& mb, uint32_t source, word_layout layout,
                                               negatives_mode mode, const hierarchical_sampler& partitions, rng& r,
                                               visit_grouping grouping) {
  if (mb.mean_inputs || mb.hierarchical)
    return failure{"the word split trains skip-gram with negative sampling only (not -cbow 1 or -hs 1)"};
  const size_t examples = mb.examples();
  const bool per_skipgram = grouping == visit_grouping::skipgram;
  planner plan(layout.partitions, !per_skipgram);
  std::vector<uint32_t> drawn(layout.partitions, 0); // bns: noise words per partition, for one pair
  size_t in = 0, out = 0;
  for (size_t e = 0; e < examples; ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    if (n_in != 1)
      return failure{"the word split trains skip-gram only: an example has " + std::to_string(n_in) + " inputs"};
    const uint32_t input = mb.inputs[in];
    if (layout.owner(input) != source)
      return failure{"input word " + std::to_string(input) + " belongs to partition " +
                     std::to_string(layout.owner(input)) + ", not " + std::to_string(source)};
    for (uint32_t o = 0; o < n_out; ++o) {
      const uint32_t positive = mb.outputs[out + o];
      const uint32_t home = layout.owner(positive);
      switch (mode) {
        case negatives_mode::tns: plan.visit(home, input, positive, mb.negatives); break;
        case negatives_mode::sns: {
          const uint32_t k = mb.negatives > 0 ? partitions.draw_partition(r) : home;
          if (k == home && !per_skipgram) {
            plan.visit(home, input, positive, mb.negatives);
          } else {
            plan.visit(home, input, positive, 0);
            plan.visit(k, input, visit_batch::no_positive, mb.negatives);
          }
          break;
        }
        case negatives_mode::bns: {
          // One partition per noise word; those landing on one partition
          // travel in one visit (each in its own, per skip-gram).
          if (per_skipgram) {
            plan.visit(home, input, positive, 0);
            for (uint32_t i = 0; i < mb.negatives; ++i)
              plan.visit(partitions.draw_partition(r), input, visit_batch::no_positive, 1);
            break;
          }
          for (uint32_t i = 0; i < mb.negatives; ++i)
            ++drawn[partitions.draw_partition(r)];
          plan.visit(home, input, positive, drawn[home]);
          drawn[home] = 0;
          for (uint32_t k = 0; k < layout.partitions; ++k)
            if (drawn[k] > 0) {
              plan.visit(k, input, visit_batch::no_positive, drawn[k]);
              drawn[k] = 0;
            }
          break;
        }
      }
    }
    in += n_in;
    out += n_out;
  }
  return plan.take();
}

uint64_t vectors_on_wire(const std::vector<visit_batch>& plan, uint32_t source) {
  uint64_t n = 0;
  for (const auto& b : plan)
    if (b.peer != source)
      n += 2 * b.input_words.size(); // the input vectors out, their gradients back
  return n;
}

status check_batch(const partition_rows& rows, const visit_batch& batch) {
  const size_t visits = batch.visit_input.size();
  if (batch.visit_positive.size() != visits || batch.visit_noise.size() != visits)
    return failure{"a visit batch's lists differ in length"};
  for (size_t v = 0; v < visits; ++v) {
    if (batch.visit_input[v] >= batch.input_words.size())
      return failure{"a visit names input " + std::to_string(batch.visit_input[v]) + " of " +
                     std::to_string(batch.input_words.size())};
    const uint32_t positive = batch.visit_positive[v];
    if (positive != visit_batch::no_positive && !rows.owns(positive))
      return failure{"word " + std::to_string(positive) + " is not partition " + std::to_string(rows.index()) + "'s"};
    if (batch.visit_noise[v] > max_negatives)
      return failure{"a visit asks for " + std::to_string(batch.visit_noise[v]) + " noise words (at most " +
                     std::to_string(max_negatives) + ")"};
  }
  return {};
}

void add_traffic(const std::vector<visit_batch>& plan, uint32_t source, split_traffic& t) {
  for (const auto& b : plan)
    if (b.peer != source) {
      t.batches += 1;
      t.vectors += 2 * b.input_words.size();
      t.index_bytes += 4 * (b.input_words.size() + 3 * b.visits());
    }
}

weight_result serve_visits(partition_rows& rows, const hierarchical_sampler& own, const visit_batch& batch,
                           const float* inputs, float* gradients, uint64_t seed, float alpha) {
  const uint32_t d = rows.dim();
  std::fill(gradients, gradients + batch.input_words.size() * d, 0.0f);
  // Every visit's targets are drawn first (the same draws in the same
  // order), so that the rows of the visits two ahead are fetched while one
  // is trained: with a large vocabulary nearly every output row is a cache
  // miss, and fetched one at a time they queue.
  rng r(seed);
  std::vector<uint32_t> targets;
  std::vector<uint8_t> labels;
  std::vector<size_t> starts;
  starts.reserve(batch.visits() + 1);
  weight_result total;
  for (size_t v = 0; v < batch.visits(); ++v) {
    starts.push_back(targets.size());
    const uint32_t positive = batch.visit_positive[v];
    if (positive != visit_batch::no_positive) {
      targets.push_back(positive);
      labels.push_back(target_label::positive);
      ++total.pairs;
    }
    for (uint32_t i = 0; i < batch.visit_noise[v]; ++i) {
      targets.push_back(own.draw_own_word_except(r, positive));
      labels.push_back(target_label::noise);
    }
  }
  starts.push_back(targets.size());
  constexpr size_t visits_ahead = 2;
  size_t fetched = 0;
  auto fetch_until = [&](size_t visit) {
    for (const size_t end = starts[std::min(visit, batch.visits())]; fetched < end; ++fetched)
      prefetch_row(rows.output(targets[fetched]), d);
  };
  std::vector<float> dots, weights;
  for (size_t v = 0; v < batch.visits(); ++v) {
    fetch_until(v + 1 + visits_ahead);
    const float* h = inputs + size_t{batch.visit_input[v]} * d;
    float* e = gradients + size_t{batch.visit_input[v]} * d;
    const size_t first = starts[v], n = starts[v + 1] - first;
    dots.resize(n);
    weights.resize(n);
    for (size_t t = 0; t < n; ++t)
      dots[t] = dot(h, rows.output(targets[first + t]), d);
    const auto w = target_weights(dots.data(), labels.data() + first, n, alpha, weights.data());
    total.loss += w.loss;
    total.diverged |= w.diverged;
    for (size_t t = 0; t < n; ++t)
      sgns::pair_step(weights[t], h, rows.output(targets[first + t]), e, d);
  }
  return total;
}

void gather_inputs(const partition_rows& rows, const visit_batch& batch, std::vector<float>& out) {
  const uint32_t d = rows.dim();
  out.resize(batch.input_words.size() * d);
  for (size_t i = 0; i < batch.input_words.size(); ++i)
    std::copy_n(rows.input(batch.input_words[i]), d, out.data() + i * d);
}

void add_gradients(partition_rows& rows, const visit_batch& batch, const float* gradients) {
  const uint32_t d = rows.dim();
  for (size_t i = 0; i < batch.input_words.size(); ++i)
    axpy(1.0f, gradients + i * d, rows.input(batch.input_words[i]), d);
}

expected<weight_result> train_word_split(std::vector<partition_rows>& parts, const noise_sampler& noise,
                                         const minibatch& mb, negatives_mode mode, float alpha, split_traffic& wire,
                                         visit_grouping grouping) {
  const auto p = static_cast<uint32_t>(parts.size());
  const word_layout layout{p};
  if (p == 0 || noise.spec().partitions != p || !noise.partition(0))
    return failure{"the noise sampler does not draw through the " + std::to_string(p) + " word partitions"};
  auto share = split_by_source(mb, layout);
  weight_result total;
  std::vector<std::vector<float>> inputs;
  std::vector<float> gradients;
  for (uint32_t source = 0; source < p; ++source) {
    auto& s = share[source];
    if (s.inputs.empty())
      continue;
    rng r(plan_seed(mb.seed, source));
    auto plan = plan_visits(s, source, layout, mode, *noise.partition(source), r, grouping);
    if (!plan)
      return failure{plan.error()};
    add_traffic(*plan, source, wire);
    // The source sends every batch at once: each carries the input vectors
    // as they were before any gradient came back (as across processes).
    inputs.resize(plan->size());
    for (size_t i = 0; i < plan->size(); ++i)
      gather_inputs(parts[source], (*plan)[i], inputs[i]);
    for (size_t i = 0; i < plan->size(); ++i) {
      const auto& batch = (*plan)[i];
      gradients.resize(inputs[i].size());
      if (auto ok = check_batch(parts[batch.peer], batch); !ok)
        return failure{ok.error()};
      const auto w = serve_visits(parts[batch.peer], *noise.partition(batch.peer), batch, inputs[i].data(),
                                  gradients.data(), visit_seed(mb.seed, source, batch.peer, p), alpha);
      total.loss += w.loss;
      total.pairs += w.pairs;
      total.diverged |= w.diverged;
      add_gradients(parts[source], batch, gradients.data());
    }
  }
  return total;
}

} // namespace gridvec
