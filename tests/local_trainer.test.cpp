#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/local_trainer.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/sgns/sgns.hpp"
#include "src/model/shard_store.hpp"
#include "tests/model_stores.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::max_abs_diff;

using gridvec::test::zipf_noise;

namespace {

using test::gather;
using test::make_stores;
using test::stores_t;
using model = test::dense_model;

// Plain pair-by-pair SGNS in double, with the weights of compute_weights
// and the noise words of the shards (draw_targets).
double reference_train(model& m, const shard_store& any, const minibatch& mb, float alpha) {
  std::vector<uint32_t> targets;
  any.draw_targets(mb, targets);
  const size_t per_pair = mb.negatives + 1;
  double loss = 0;
  size_t in = 0, k = 0;
  for (size_t e = 0; e < mb.examples(); ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    for (uint32_t o = 0; o < n_out; ++o, k += per_pair) {
      std::vector<double> h(m.dim, 0.0), err(m.dim, 0.0);
      for (uint32_t i = 0; i < n_in; ++i)
        for (uint32_t j = 0; j < m.dim; ++j)
          h[j] += m.urow(mb.inputs[in + i])[j] / n_in;
      std::vector<float> dots(per_pair), weights(per_pair);
      for (size_t t = 0; t < per_pair; ++t) {
        double f = 0;
        for (uint32_t j = 0; j < m.dim; ++j)
          f += h[j] * m.vrow(targets[k + t])[j];
        dots[t] = static_cast<float>(f);
      }
      loss += compute_weights(dots.data(), 1, mb.negatives, alpha, weights.data()).loss;
      for (size_t t = 0; t < per_pair; ++t) {
        double* v = m.vrow(targets[k + t]);
        for (uint32_t j = 0; j < m.dim; ++j) {
          err[j] += weights[t] * v[j];
          v[j] += weights[t] * h[j];
        }
      }
      for (uint32_t i = 0; i < n_in; ++i)
        for (uint32_t j = 0; j < m.dim; ++j)
          m.urow(mb.inputs[in + i])[j] += err[j];
    }
    in += n_in;
  }
  return loss;
}

// HogBatch written out, in double: per skip-gram example (centre c,
// contexts x_1..x_m) the targets are c (label 1) and the distinct noise
// words of n draws from one generator seeded with the minibatch's seed
// (label 0, weighted by how often each was drawn; one equal to c dropped);
// every dot product and update is from the rows as the window found them:
//   F[t][j] = v_t . u_xj,  G[t][j] = count_t * alpha * (label_t - sigmoid(F)),
//   u_xj += sum_t G[t][j] v_t,  v_t += sum_j G[t][j] u_xj.
double reference_windows(model& m, const shard_store& any, const minibatch& mb, float alpha) {
  rng r(mb.seed);
  double loss = 0;
  size_t out = 0;
  for (size_t e = 0; e < mb.examples(); ++e) {
    const uint32_t centre = mb.inputs[e];
    std::vector<uint32_t> ctx(mb.outputs.begin() + static_cast<std::ptrdiff_t>(out),
                              mb.outputs.begin() + static_cast<std::ptrdiff_t>(out + mb.output_counts[e]));
    out += ctx.size();
    std::vector<uint32_t> targets{centre};
    std::vector<double> counts{1};
    for (uint32_t i = 0; i < mb.negatives; ++i) {
      const uint32_t w = any.draw_negative(r, centre);
      if (w == centre)
        continue;
      auto it = std::find(targets.begin() + 1, targets.end(), w);
      if (it != targets.end())
        counts[static_cast<size_t>(it - targets.begin())] += 1;
      else {
        targets.push_back(w);
        counts.push_back(1);
      }
    }
    std::vector<std::vector<double>> g(targets.size(), std::vector<double>(ctx.size()));
    for (size_t t = 0; t < targets.size(); ++t)
      for (size_t j = 0; j < ctx.size(); ++j) {
        double f = 0;
        for (uint32_t k = 0; k < m.dim; ++k)
          f += m.vrow(targets[t])[k] * m.urow(ctx[j])[k];
        const float dot = static_cast<float>(f);
        float weight = 0;
        const uint8_t label = t == 0 ? target_label::positive : target_label::noise;
        loss += counts[t] * target_weights(&dot, &label, 1, alpha, &weight).loss;
        g[t][j] = counts[t] * weight;
      }
    const model before = m;
    for (size_t t = 0; t < targets.size(); ++t)
      for (size_t j = 0; j < ctx.size(); ++j)
        for (uint32_t k = 0; k < m.dim; ++k) {
          m.urow(ctx[j])[k] += g[t][j] * before.v[size_t{targets[t]} * m.dim + k];
          m.vrow(targets[t])[k] += g[t][j] * before.u[size_t{ctx[j]} * m.dim + k];
        }
  }
  return loss;
}

minibatch make_batch(uint64_t seed, uint32_t vocab, bool cbow) {
  rng r(seed);
  example_builder b(cbow ? 3 : 4, cbow);
  minibatch mb;
  mb.seed = seed * 7919 + 1;
  mb.negatives = 5;
  mb.mean_inputs = cbow;
  gridvec::test::add_random_sentences(r, b, vocab, 6, 10, mb, true); // a word twice in a sentence
  return mb;
}

} // namespace

TEST_CASE("local_trainer: matches pair-by-pair SGNS for any sharding", "[local_trainer]") {
  const uint32_t vocab = 40, dim = 37; // 37: vector bodies and tails
  auto noise = zipf_noise(vocab);
  for (bool cbow : {false, true})
    for (uint32_t shards : {1u, 2u, 5u}) {
      INFO((cbow ? "CBOW" : "skip-gram") << ", " << shards << " shards");
      auto stores = make_stores(shards, dim, vocab, noise);
      model expect = gather(stores, dim, vocab);
      local_trainer trainer(stores);
      REQUIRE(trainer.dim() == dim);
      for (uint64_t round = 1; round <= 20; ++round) {
        auto mb = make_batch(round, vocab, cbow);
        REQUIRE(stores[0]->validate(mb));
        const float alpha = 0.05f;
        double ref_loss = reference_train(expect, *stores[0], mb, alpha);
        auto got = trainer.train(mb, alpha);
        CHECK(got.pairs == mb.pairs());
        CHECK(got.loss == Approx(ref_loss).epsilon(1e-3));
      }
      // Float against double over 20 minibatches; a dot product that
      // crosses a step of the sigmoid table moves a row by ~1e-5.
      auto after = gather(stores, dim, vocab);
      CHECK(max_abs_diff(after.u, expect.u) < 1e-4);
      CHECK(max_abs_diff(after.v, expect.v) < 1e-4);
    }
}

TEST_CASE("local_trainer: shared negatives train each window as matrix products (HogBatch)", "[local_trainer]") {
  const uint32_t vocab = 12, dim = 37; // a small vocabulary: noise words repeat and hit the centre word
  auto noise = zipf_noise(vocab);
  for (uint32_t shards : {1u, 3u}) {
    INFO(shards << " shards");
    auto stores = make_stores(shards, dim, vocab, noise);
    model expect = gather(stores, dim, vocab);
    local_trainer trainer(stores);
    for (uint64_t round = 1; round <= 20; ++round) {
      auto mb = make_batch(round, vocab, false);
      mb.shared_negatives = true;
      REQUIRE(stores[0]->validate(mb));
      double ref_loss = reference_windows(expect, *stores[0], mb, 0.05f);
      auto got = trainer.train(mb, 0.05f);
      CHECK(got.pairs == mb.pairs());
      CHECK(got.loss == Approx(ref_loss).epsilon(1e-3));
      // The rows it reports touched: the contexts as inputs, the targets as outputs.
      CHECK(local_trainer::inputs_updated(mb) == mb.outputs);
    }
    // Float against double; a lost, doubled or early-applied update would
    // be ~1e-2.
    auto after = gather(stores, dim, vocab);
    CHECK(max_abs_diff(after.u, expect.u) < 5e-4);
    CHECK(max_abs_diff(after.v, expect.v) < 5e-4);
  }
  // CBOW has one pair per example: its minibatches never carry the flag.
  auto cbow = make_batch(1, vocab, true);
  cbow.shared_negatives = true;
  CHECK_FALSE(make_stores(1, dim, vocab, noise)[0]->validate(cbow));
}

TEST_CASE("local_trainer: the noise words are those the shards draw", "[local_trainer]") {
  const uint32_t vocab = 30, dim = 8;
  auto noise = zipf_noise(vocab);
  auto stores = make_stores(2, dim, vocab, noise);
  auto mb = make_batch(3, vocab, false);
  std::vector<uint32_t> targets;
  stores[1]->draw_targets(mb, targets);
  REQUIRE(targets.size() == mb.dot_count());
  // dotprod's results are the dot products with exactly these rows.
  std::vector<float> dots(mb.dot_count()), hidden;
  stores[1]->dotprod(mb, dots.data(), hidden);
  size_t k = 0;
  for (size_t e = 0; e < mb.examples(); ++e)
    for (uint32_t o = 0; o < mb.output_counts[e]; ++o)
      for (uint32_t t = 0; t <= mb.negatives; ++t, ++k) {
        if (t == 0)
          CHECK(targets[k] == mb.outputs[k / (mb.negatives + 1)]);
        double f = 0;
        for (uint32_t j = 0; j < stores[1]->slice().width; ++j)
          f += double{stores[1]->input_row(mb.inputs[e])[j]} * stores[1]->output_row(targets[k])[j];
        CHECK(dots[k] == Approx(f).margin(1e-6));
      }
}
