// The protocol path's refresh of stale weights (src/sgns/weight_refresh.hpp)
// and what a shard keeps between a minibatch's two calls for it
// (src/sgns/drawn_targets.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "src/model/shard_store.hpp"
#include "src/sgns/drawn_targets.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/weight_refresh.hpp"
#include "src/sgns/vector_math.hpp"
#include "src/util/rng.hpp"

using namespace gridvec;

namespace {

constexpr uint32_t vocab = 50, dim = 16;
constexpr float alpha = 0.025f;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Shard `index` of `shards`, every row random with components in [-0.5, 0.5].
std::shared_ptr<shard_store> random_store(uint32_t shards = 1, uint32_t index = 0) {
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(std::vector<uint64_t>(vocab, 10)));
  auto s = std::make_shared<shard_store>(index, shards, dim, vocab, 1, noise);
  const uint32_t first = s->slice().first, width = s->slice().width;
  for (uint32_t w = 0; w < vocab; ++w)
    for (uint32_t j = 0; j < width; ++j) {
      // The same model whatever the sharding: a value per (row, column).
      s->input_row(w)[j] = static_cast<float>(mix64(w, first + j) % 1000) / 1000.0f - 0.5f;
      s->output_row(w)[j] = static_cast<float>(mix64(w + vocab, first + j) % 1000) / 1000.0f - 0.5f;
    }
  return s;
}

// Skip-gram pairs (i, i + 1) for i < pairs, two noise words each.
minibatch batch(uint32_t pairs, uint64_t seed, uint32_t staleness) {
  minibatch mb;
  mb.seed = seed;
  mb.negatives = 2;
  mb.alpha = alpha;
  mb.staleness = staleness;
  for (uint32_t i = 0; i < pairs; ++i) {
    mb.inputs.push_back(i);
    mb.outputs.push_back((i + 1) % vocab);
  }
  return mb;
}

// Exact weights alpha (label - sigma(f)) for full dot products f.
std::vector<float> exact_weights(const minibatch& mb, const std::vector<float>& dots) {
  std::vector<uint8_t> labels;
  mb.labels(labels);
  std::vector<float> w(dots.size());
  for (size_t k = 0; k < dots.size(); ++k)
    w[k] = static_cast<float>(alpha * (target_label::value(labels[k]) - sigmoid(dots[k])));
  return w;
}

std::vector<float> dotprod(const shard_store& s, const minibatch& mb, std::vector<uint32_t>& targets) {
  std::vector<float> dots(mb.dot_count()), hidden(s.slice().width);
  targets.clear();
  s.dotprod(mb, dots.data(), hidden, &targets);
  return dots;
}

} // namespace

TEST_CASE("refreshed_weight: the weight of f + drift, read back from the weight of f", "[refresh]") {
  for (double f : {-4.0, -1.0, 0.0, 0.3, 2.5}) {
    for (uint8_t label : {target_label::positive, target_label::noise}) {
      const double value = target_label::value(label);
      const float g = static_cast<float>(alpha * (value - sigmoid(f)));
      CHECK(refreshed_weight(g, alpha, label, 0.0f) == Approx(g).margin(1e-7));
      for (double drift : {-2.0, -0.1, 0.7, 3.0}) {
        CAPTURE(f, label, drift);
        const double want = alpha * (value - sigmoid(f + drift));
        CHECK(refreshed_weight(g, alpha, label, static_cast<float>(drift)) == Approx(want).margin(1e-6));
      }
    }
  }
  // A weight clipped beyond |f| = 6 (sigma 0 or 1) or an inner node's
  // skipped update (0) stays as it is.
  CHECK(refreshed_weight(0.0f, alpha, target_label::positive, -5.0f) == 0.0f);
  CHECK(refreshed_weight(-alpha, alpha, target_label::noise, -5.0f) == -alpha);
  CHECK(refreshed_weight(alpha, alpha, target_label::positive, 5.0f) == alpha);
  // A huge drift saturates instead of overflowing.
  CHECK(std::isfinite(refreshed_weight(alpha / 2, alpha, target_label::positive, 500.0f)));
  CHECK(refreshed_weight(alpha / 2, alpha, target_label::positive, 500.0f) == Approx(0.0f).margin(1e-6));
}

TEST_CASE("exp_approx: within 2 ulp of expf over the refresh's range", "[refresh]") {
  float worst = 0;
  for (float x = -30.0f; x <= 30.0f; x += 0.00731f) {
    const float want = std::exp(x), got = exp_approx(x);
    worst = std::max(worst, std::fabs(got - want) / want);
  }
  CHECK(worst < 2.5e-7f); // 2 ulp of a float is 2.4e-7 relative
  CHECK(exp_approx(0.0f) == 1.0f);
}

TEST_CASE("refresh_weights: the weights refreshed_weight gives, for a whole pair at once", "[refresh]") {
  // Counts around the vector width, so the vector loop and its tail are both run.
  for (size_t count : {1, 6, 16, 23}) {
    std::vector<float> weights(count), partials(count), now(count), out(count);
    std::vector<uint8_t> labels(count);
    for (size_t k = 0; k < count; ++k) {
      labels[k] = k % 3 == 0 ? target_label::positive : target_label::noise;
      const double f = -3.0 + 0.37 * static_cast<double>(k);
      weights[k] = static_cast<float>(alpha * (target_label::value(labels[k]) - sigmoid(f)));
      partials[k] = 0.1f * static_cast<float>(k);
      now[k] = partials[k] + 0.05f * static_cast<float>(k % 5) - 0.1f;
    }
    weights[0] = -alpha; // clipped: stays
    refresh_weights(weights.data(), partials.data(), now.data(), labels.data(), alpha, 2.0f, count, out.data());
    for (size_t k = 0; k < count; ++k) {
      CAPTURE(count, k);
      CHECK(out[k] ==
            Approx(refreshed_weight(weights[k], alpha, labels[k], 2.0f * (now[k] - partials[k]))).epsilon(1e-6));
    }
    CHECK(out[0] == -alpha);
  }
}

namespace {

// Every row of `s`, input and output.
std::vector<float> rows_of(const shard_store& s) {
  std::vector<float> out;
  for (uint32_t w = 0; w < vocab; ++w) {
    out.insert(out.end(), s.input_row(w), s.input_row(w) + s.slice().width);
    out.insert(out.end(), s.output_row(w), s.output_row(w) + s.slice().width);
  }
  return out;
}

// Moves the rows of `s` as another minibatch's adjust would, with a big step.
void move_rows(shard_store& s) {
  auto other = batch(20, 8, 10);
  std::vector<uint32_t> other_targets;
  auto w = exact_weights(other, dotprod(s, other, other_targets));
  for (float& x : w)
    x *= 40;
  adjust_scratch scratch(s.slice().width);
  s.adjust(other, w.data(), scratch, &other_targets);
}

void check_rows(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == Approx(want[i]).margin(1e-6));
  }
}

} // namespace

TEST_CASE("the refresh on one shard: the weights of the rows as they are now, exactly", "[refresh]") {
  // Stale weights, refreshed by adjust, move the rows as the weights of
  // fresh dot products do.
  auto refreshed = random_store(), exact = random_store();
  auto mb = batch(20, 7, 10);
  std::vector<uint32_t> targets;
  const auto partials = dotprod(*refreshed, mb, targets);
  const auto stale = exact_weights(mb, partials);
  move_rows(*refreshed);
  move_rows(*exact);
  std::vector<uint32_t> again;
  const auto fresh = exact_weights(mb, dotprod(*exact, mb, again));
  REQUIRE(again == targets);
  size_t moved = 0;
  for (size_t k = 0; k < fresh.size(); ++k)
    moved += std::fabs(fresh[k] - stale[k]) > 1e-4f;
  CHECK(moved > fresh.size() / 2); // the refresh had something to do
  adjust_scratch sa(dim), sb(dim);
  refreshed->adjust(mb, stale.data(), sa, &targets, partials.data());
  auto plain = mb;
  plain.staleness = 0;
  exact->adjust(plain, fresh.data(), sb, &targets);
  check_rows(rows_of(*refreshed), rows_of(*exact));
}

TEST_CASE("the refresh on two shards: each widens its own slice's drift", "[refresh]") {
  auto mb = batch(10, 3, 10);
  auto plain = mb;
  plain.staleness = 0;
  // Shard a's rows move, shard b's do not; twins of each take the weights
  // the refresh should compute.
  auto a = random_store(2, 0), b = random_store(2, 1), a2 = random_store(2, 0), b2 = random_store(2, 1);
  std::vector<uint32_t> targets, tb;
  const auto pa = dotprod(*a, mb, targets), pb = dotprod(*b, mb, tb);
  REQUIRE(tb == targets);
  std::vector<float> full(pa.size());
  for (size_t k = 0; k < full.size(); ++k)
    full[k] = pa[k] + pb[k];
  const auto stale = exact_weights(mb, full);
  for (auto* s : {a.get(), a2.get()})
    for (uint32_t w = 0; w < vocab; ++w)
      for (uint32_t j = 0; j < s->slice().width; ++j)
        s->output_row(w)[j] *= 1.5f;
  std::vector<uint32_t> again;
  const auto moved_a = dotprod(*a, mb, again);
  std::vector<uint8_t> labels;
  mb.labels(labels);
  std::vector<float> want_a(full.size());
  for (size_t k = 0; k < full.size(); ++k) {
    const double drift = 2.0 * (moved_a[k] - pa[k]); // dim / width = 2
    want_a[k] = static_cast<float>(alpha * (target_label::value(labels[k]) - sigmoid(full[k] + drift)));
  }
  adjust_scratch s1(dim / 2), s2(dim / 2), s3(dim / 2), s4(dim / 2);
  a->adjust(mb, stale.data(), s1, &targets, pa.data());
  a2->adjust(plain, want_a.data(), s2, &targets);
  check_rows(rows_of(*a), rows_of(*a2));
  b->adjust(mb, stale.data(), s3, &targets, pb.data());
  b2->adjust(plain, stale.data(), s4, &targets); // nothing moved on b
  check_rows(rows_of(*b), rows_of(*b2));
}

TEST_CASE("adjust refreshes only a minibatch that was in flight beside others", "[refresh]") {
  // The same stale weights applied to moved rows: with a staleness over 1
  // and the dotprod's partials the shard uses the refreshed weights; with
  // a staleness of 0 or 1, or no partials, the weights as sent.
  auto rows_after = [](uint32_t staleness, bool with_partials) {
    auto store = random_store();
    auto mb = batch(20, 7, staleness);
    std::vector<uint32_t> targets;
    const auto partials = dotprod(*store, mb, targets);
    const auto stale = exact_weights(mb, partials);
    for (uint32_t w = 0; w < vocab; ++w)
      for (uint32_t j = 0; j < dim; ++j)
        store->output_row(w)[j] *= 3.0f;
    adjust_scratch scratch(dim);
    store->adjust(mb, stale.data(), scratch, &targets, with_partials ? partials.data() : nullptr);
    return std::vector<float>(store->input_row(0), store->input_row(0) + dim);
  };
  const auto plain = rows_after(0, true);
  CHECK(rows_after(1, true) == plain);
  CHECK(rows_after(10, false) == plain);
  CHECK(rows_after(10, true) != plain);
}

// (tests/shard_store.test.cpp: how an entry is found.)
TEST_CASE("drawn_targets keeps a minibatch's dot products, and grows to what is in flight", "[refresh]") {
  drawn_targets kept;
  CHECK(kept.capacity() == 64);
  auto record = [&](uint64_t seed) {
    auto mb = batch(3, seed, 0);
    auto& t = kept.record(mb);
    for (size_t k = 0; k < mb.dot_count(); ++k)
      t.push_back(static_cast<uint32_t>(seed + k));
    std::vector<float> dots(mb.dot_count(), static_cast<float>(seed));
    kept.keep_partials(dots.data(), dots.size());
  };
  for (uint64_t seed = 1; seed <= 100; ++seed)
    record(seed);
  // 64 entries: the first 36 were overwritten.
  CHECK(kept.find(batch(3, 36, 0)) == nullptr);
  const auto* e = kept.find(batch(3, 37, 0));
  REQUIRE(e != nullptr);
  CHECK(e->targets[0] == 37u);
  CHECK(e->partials == std::vector<float>(9, 37.0f));
  // Two learners with 60 in flight each: room for all of them, and a
  // staleness a peer inflates is bounded.
  kept.fit(120);
  CHECK(kept.capacity() >= 150);
  for (uint64_t seed = 101; seed <= 250; ++seed)
    record(seed);
  CHECK(kept.find(batch(3, 101, 0)) != nullptr);
  // The same minibatch recorded again (a learner's rollback): the newest
  // dot products are found.
  {
    auto mb = batch(3, 101, 0);
    kept.record(mb).assign(mb.dot_count(), 1);
    std::vector<float> dots(mb.dot_count(), 7.0f);
    kept.keep_partials(dots.data(), dots.size());
    REQUIRE(kept.find(mb) != nullptr);
    CHECK(kept.find(mb)->partials == dots);
  }
  kept.fit(4000000000u);
  CHECK(kept.capacity() == drawn_targets::max_entries);
}
