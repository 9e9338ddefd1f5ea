// The protocol path's staleness damping (src/sgns/staleness_damper.hpp) and the
// divergence checks of src/sgns/sgns.hpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/sgns/sgns.hpp"
#include "src/model/shard_store.hpp"

using namespace gridvec;

namespace {

constexpr uint32_t vocab = 200, dim = 20;

std::shared_ptr<shard_store> store_with_norm(float norm, uint32_t shards = 1, uint32_t index = 0) {
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(std::vector<uint64_t>(vocab, 10)));
  auto s = std::make_shared<shard_store>(index, shards, dim, vocab, 1, noise);
  // Every row points the same way, with this norm over the whole dimension.
  const float x = norm / std::sqrt(static_cast<float>(dim));
  for (uint32_t w = 0; w < vocab; ++w)
    for (uint32_t j = 0; j < s->slice().width; ++j)
      s->input_row(w)[j] = s->output_row(w)[j] = x;
  return s;
}

// Skip-gram examples: (input, one output) each, `repeats` times the pair
// (1, 2), then one pair each of (10 + i, 100 + i).
minibatch batch(uint32_t repeats, uint32_t singles, uint32_t staleness) {
  minibatch mb;
  mb.seed = 5;
  mb.negatives = 2;
  mb.alpha = 0.025f;
  mb.staleness = staleness;
  for (uint32_t i = 0; i < repeats; ++i) {
    mb.inputs.push_back(1);
    mb.outputs.push_back(2);
    mb.output_counts.push_back(1);
  }
  for (uint32_t i = 0; i < singles; ++i) {
    mb.inputs.push_back(10 + i);
    mb.outputs.push_back(100 + i);
    mb.output_counts.push_back(1);
  }
  return mb;
}

// Weights as a learner computes them with every dot product at f = 0.
std::vector<float> weights_for(const minibatch& mb) {
  std::vector<float> dots(mb.dot_count(), 0.0f), w(mb.dot_count());
  compute_weights(dots.data(), mb.pairs(), mb.negatives, mb.alpha, w.data());
  return w;
}

} // namespace

TEST_CASE("staleness damping scales a pair repeated past the bound, and nothing else", "[damping]") {
  auto store = store_with_norm(2.0f);
  auto mb = batch(40, 20, 20);
  auto w = weights_for(mb);
  std::vector<uint32_t> targets;
  store->draw_targets(mb, targets);
  staleness_damper damper;
  const float* out = damper.damp(*store, mb, w.data(), targets);
  REQUIRE(out != w.data());
  // (1, 2) occurs 40 times: curvature 40 * sigma'(0) * |v|^2 = 40 * 0.25 * 4
  // = 40 against a bound of 2 / (0.025 * 20) = 4: scaled to a tenth, or
  // further where input row 1 also repeats a noise word (its repeated
  // pairs add up).
  const size_t per_pair = mb.negatives + 1;
  CHECK(out[0] <= w[0] * 0.1001f);
  CHECK(out[0] >= w[0] * 0.03f);
  CHECK(out[39 * per_pair] == out[0]);
  // The single pairs (10 + i, 100 + i), far from the bound, keep their
  // weights unless their input row is repeated too (it is not).
  size_t kept = 0;
  for (size_t k = 40 * per_pair; k < mb.dot_count(); k += per_pair)
    kept += out[k] == w[k];
  CHECK(kept == 20u);
  CHECK(damper.scaled() >= 40u);
}

TEST_CASE("staleness damping is off without a staleness, and for small norms", "[damping]") {
  std::vector<uint32_t> targets;
  staleness_damper damper;
  {
    auto store = store_with_norm(2.0f);
    auto mb = batch(40, 5, 0); // the fused path's or an old learner's request
    auto w = weights_for(mb);
    store->draw_targets(mb, targets);
    CHECK(damper.damp(*store, mb, w.data(), targets) == w.data());
  }
  {
    auto store = store_with_norm(0.1f); // vectors as initialised: tiny
    auto mb = batch(40, 5, 20);
    auto w = weights_for(mb);
    targets.clear();
    store->draw_targets(mb, targets);
    CHECK(damper.damp(*store, mb, w.data(), targets) == w.data());
    CHECK(damper.scaled() == 0u);
  }
}

TEST_CASE("staleness damping: every shard estimates from its own columns, alike", "[damping]") {
  auto mb = batch(40, 5, 20);
  auto w = weights_for(mb);
  auto a = store_with_norm(2.0f, 2, 0), b = store_with_norm(2.0f, 2, 1);
  std::vector<uint32_t> targets;
  a->draw_targets(mb, targets);
  staleness_damper da, db;
  const float* x = da.damp(*a, mb, w.data(), targets);
  const float* y = db.damp(*b, mb, w.data(), targets);
  for (size_t k = 0; k < mb.dot_count(); ++k)
    CHECK(x[k] == Approx(y[k]));
}

TEST_CASE("adjust with staleness moves a repeated pair's rows less", "[damping]") {
  auto mb = batch(40, 0, 20);
  auto w = weights_for(mb);
  float moved[2];
  for (uint32_t staleness : {0u, 20u}) {
    auto store = store_with_norm(2.0f);
    mb.staleness = staleness;
    adjust_scratch scratch(store->slice().width);
    const float before = store->output_row(2)[0];
    store->adjust(mb, w.data(), scratch);
    moved[staleness ? 1 : 0] = std::fabs(store->output_row(2)[0] - before);
  }
  CHECK(moved[1] > 0.0f);
  CHECK(moved[1] < moved[0] / 5);
}

TEST_CASE("a dot product past any sane size is divergence, not only NaN", "[sgns]") {
  std::vector<float> w(3);
  for (float f : {2e4f, -2e4f, std::nanf(""), INFINITY}) {
    std::vector<float> dots{f, 0.0f, 0.0f};
    CHECK(compute_weights(dots.data(), 1, 2, 0.025f, w.data()).diverged);
  }
  std::vector<float> fine{9e3f, -50.0f, 3.0f};
  CHECK_FALSE(compute_weights(fine.data(), 1, 2, 0.025f, w.data()).diverged);
}

TEST_CASE("loss_watch: a loss far above its start is divergence", "[sgns]") {
  loss_watch ok{6}; // 6 targets per pair (-negative 5): start 6 log 2 = 4.16
  CHECK(ok.start() == Approx(4.1589).epsilon(0.001));
  for (int i = 0; i < 200; ++i)
    REQUIRE(ok.add(2.4 * 1000, 1000)); // a healthy run
  for (int i = 0; i < 200; ++i)
    REQUIRE(ok.add(30.0 * 1000, 1000)); // high, below 10x the start
  loss_watch bad{6};
  bool alive = true;
  for (int i = 0; i < 500 && alive; ++i)
    alive = bad.add(100.0 * 1000, 1000);
  CHECK_FALSE(alive);
  CHECK(bad.recent() > 41.0);
  loss_watch nan{6};
  CHECK_FALSE(nan.add(std::nan(""), 10));
  CHECK(nan.add(0.0, 0)); // nothing to count
}
