// A shard's dotprod and adjust for skip-gram windows with shared negatives
// (HogBatch on the protocol path), against the update written out in
// double.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "src/formats/wire.hpp"
#include "src/model/shard_store.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/sgns/sgns.hpp"
#include "tests/model_stores.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;

namespace shard_windows_test {

using test::gather;
using test::make_stores;
using test::stores_t;
using model = test::dense_model;

minibatch windows_batch(uint64_t seed, uint32_t vocab) {
  rng r(seed);
  example_builder b(4, false);
  minibatch mb;
  mb.seed = seed * 7919 + 1;
  mb.negatives = 5;
  mb.shared_negatives = true;
  test::add_random_sentences(r, b, vocab, 6, 10, mb, true); // a word twice in a sentence
  return mb;
}

// The windows' targets as the protocol lays them out: per window its
// centre, then `negatives` draws from one generator seeded with the
// minibatch's seed, in window order, a word drawn twice kept twice.
std::vector<uint32_t> written_targets(const shard_store& any, const minibatch& mb) {
  rng r(mb.seed);
  std::vector<uint32_t> out;
  for (uint32_t centre : mb.inputs) {
    out.push_back(centre);
    for (uint32_t i = 0; i < mb.negatives; ++i)
      out.push_back(any.draw_negative(r, centre));
  }
  return out;
}

// HogBatch written out: window by window (centre c, contexts x_1..x_m,
// targets t_0 = c, t_1..t_n), with G[i][j] the weight of F[i][j] (`dots`,
// the dot products as the learner summed them), or of the dot product as
// the window finds the rows (`fresh`); a noise word equal to c gets none.
// Every read of a window sees the rows as the window found them:
//   u_xj += sum_i G[i][j] v_ti,   v_ti += sum_j G[i][j] u_xj.
void written_adjust(model& m, const minibatch& mb, const std::vector<uint32_t>& targets, const std::vector<float>& dots,
                    float alpha, bool fresh) {
  const size_t per_window = mb.negatives + 1;
  size_t out = 0, d = 0;
  for (size_t e = 0; e < mb.inputs.size(); ++e) {
    const uint32_t m_ctx = mb.output_counts[e];
    const uint32_t* ctx = mb.outputs.data() + out;
    const uint32_t* t = targets.data() + e * per_window;
    std::vector<double> g(per_window * m_ctx);
    for (size_t i = 0; i < per_window; ++i)
      for (uint32_t j = 0; j < m_ctx; ++j) {
        const float f = fresh ? static_cast<float>(m.dot(t[i], ctx[j])) : dots[d + i * m_ctx + j];
        const uint8_t label = i == 0 ? target_label::positive : target_label::noise;
        float weight = 0; // word2vec.c's sigmoid table, as the learner's weights
        target_weights(&f, &label, 1, alpha, &weight);
        g[i * m_ctx + j] = i > 0 && t[i] == mb.inputs[e] ? 0.0 : weight;
      }
    const model before = m;
    for (size_t i = 0; i < per_window; ++i)
      for (uint32_t j = 0; j < m_ctx; ++j)
        for (uint32_t k = 0; k < m.dim; ++k) {
          m.urow(ctx[j])[k] += g[i * m_ctx + j] * before.v[size_t{t[i]} * m.dim + k];
          m.vrow(t[i])[k] += g[i * m_ctx + j] * before.u[size_t{ctx[j]} * m.dim + k];
        }
    out += m_ctx;
    d += per_window * m_ctx;
  }
}

// The learner's side: the shards' partial dot products summed.
std::vector<float> summed_dots(const stores_t& stores, const minibatch& mb) {
  std::vector<float> sum(mb.dot_count(), 0.0f), part(mb.dot_count());
  std::vector<float> hidden;
  for (const auto& s : stores) {
    s->dotprod(mb, part.data(), hidden);
    for (size_t k = 0; k < sum.size(); ++k)
      sum[k] += part[k];
  }
  return sum;
}

} // namespace shard_windows_test

using namespace shard_windows_test;

TEST_CASE("shard: windows with shared negatives lay out targets x contexts, one draw a window", "[shard_windows]") {
  const uint32_t vocab = 12, dim = 37; // noise words repeat and hit the centre
  auto noise = test::zipf_noise(vocab);
  auto stores = make_stores(3, dim, vocab, noise);
  auto mb = windows_batch(5, vocab);
  REQUIRE(stores[0]->validate(mb));
  size_t dots = 0;
  for (size_t e = 0; e < mb.examples(); ++e)
    dots += (mb.negatives + 1) * size_t{mb.output_counts[e]};
  CHECK(mb.dot_count() == dots);
  CHECK(mb.target_count() == mb.examples() * (mb.negatives + 1));
  std::vector<uint32_t> drawn;
  stores[1]->draw_targets(mb, drawn);
  CHECK(drawn == written_targets(*stores[1], mb));
  // Labels run along each target's row of contexts.
  std::vector<uint8_t> labels;
  mb.labels(labels);
  REQUIRE(labels.size() == dots);
  CHECK(labels[0] == target_label::positive);
  CHECK(labels[mb.output_counts[0]] == target_label::noise);
  // Summed over the shards, the dot products are those of the whole rows.
  model m = gather(stores, dim, vocab);
  const auto sum = summed_dots(stores, mb);
  size_t d = 0, out = 0;
  for (size_t e = 0; e < mb.examples(); ++e) {
    for (size_t i = 0; i <= mb.negatives; ++i)
      for (uint32_t j = 0; j < mb.output_counts[e]; ++j, ++d)
        CHECK(sum[d] == Approx(m.dot(drawn[e * (mb.negatives + 1) + i], mb.outputs[out + j])).margin(1e-5));
    out += mb.output_counts[e];
  }
  // The flag travels on the wire.
  minibatch back;
  REQUIRE(decode_dotprod_request(encode_dotprod_request(mb), back));
  CHECK(back.shared_negatives);
}

TEST_CASE("shard: adjust of windows with shared negatives is the written-out HogBatch update", "[shard_windows]") {
  const uint32_t vocab = 12, dim = 37;
  auto noise = test::zipf_noise(vocab);
  const float alpha = 0.05f;
  for (uint32_t shards : {1u, 3u}) {
    INFO(shards << " shards");
    auto stores = make_stores(shards, dim, vocab, noise);
    model expect = gather(stores, dim, vocab);
    std::vector<adjust_scratch> scratch;
    for (const auto& s : stores)
      scratch.emplace_back(s->slice().width);
    for (uint64_t round = 1; round <= 20; ++round) {
      auto mb = windows_batch(round, vocab);
      const auto dots = summed_dots(stores, mb);
      std::vector<float> weights(dots.size());
      std::vector<uint8_t> labels;
      mb.labels(labels);
      target_weights(dots.data(), labels.data(), dots.size(), alpha, weights.data());
      for (size_t s = 0; s < stores.size(); ++s)
        stores[s]->adjust(mb, weights.data(), scratch[s]);
      written_adjust(expect, mb, written_targets(*stores[0], mb), dots, alpha, false);
    }
    // Float against double, and word2vec.c's sigmoid table against exp:
    // a lost, doubled or early-applied update would be ~1e-2.
    auto after = gather(stores, dim, vocab);
    CHECK(test::max_abs_diff(after.u, expect.u) < 1e-3);
    CHECK(test::max_abs_diff(after.v, expect.v) < 1e-3);
  }
}

TEST_CASE("shard: stale weights of windows are refreshed for the rows as each window finds them", "[shard_windows]") {
  const uint32_t vocab = 12, dim = 37;
  auto noise = test::zipf_noise(vocab);
  const float alpha = 0.02f; // 0.05 blows this tiny vocabulary up without the refresh
  // One shard: the refresh is exact, up to the sigmoid table the learner's
  // weights come from.
  auto stores = make_stores(1, dim, vocab, noise);
  shard_store& s = *stores[0];
  adjust_scratch scratch(dim);
  model fresh = gather(stores, dim, vocab), stale = fresh;
  for (uint64_t round = 1; round <= 10; ++round) {
    // A's dot products are taken, B trains in between, then A's adjust.
    auto a = windows_batch(2 * round, vocab), b = windows_batch(2 * round + 1, vocab);
    std::vector<float> partials(a.dot_count()), hidden;
    s.dotprod(a, partials.data(), hidden);
    const auto b_dots = summed_dots(stores, b);
    std::vector<float> wa(a.dot_count()), wb(b.dot_count());
    std::vector<uint8_t> la, lb;
    a.labels(la);
    b.labels(lb);
    target_weights(b_dots.data(), lb.data(), wb.size(), alpha, wb.data());
    s.adjust(b, wb.data(), scratch);
    written_adjust(fresh, b, written_targets(s, b), b_dots, alpha, false);
    written_adjust(stale, b, written_targets(s, b), b_dots, alpha, false);
    target_weights(partials.data(), la.data(), wa.size(), alpha, wa.data());
    a.alpha = alpha;
    a.staleness = 2;
    s.adjust(a, wa.data(), scratch, nullptr, partials.data());
    written_adjust(fresh, a, written_targets(s, a), partials, alpha, true);
    written_adjust(stale, a, written_targets(s, a), partials, alpha, false);
  }
  auto after = gather(stores, dim, vocab);
  const double to_fresh = test::max_abs_diff(after.v, fresh.v), to_stale = test::max_abs_diff(after.v, stale.v);
  INFO("from the fresh update " << to_fresh << ", from the stale one " << to_stale);
  CHECK(to_fresh < 1e-3);
  CHECK(to_fresh * 100 < to_stale);
}

TEST_CASE("shard: shared negatives are refused where they do not apply", "[shard_windows]") {
  const uint32_t vocab = 12, dim = 8;
  auto noise = test::zipf_noise(vocab);
  auto store = make_stores(1, dim, vocab, noise)[0];
  rng r(1);
  minibatch cbow;
  cbow.negatives = 5;
  cbow.mean_inputs = true;
  cbow.shared_negatives = true;
  test::add_random_sentences(r, example_builder(3, true), vocab, 3, 6, cbow);
  const auto refused = store->validate(cbow);
  REQUIRE_FALSE(refused);
  CHECK(refused.why().message == "minibatch asks for shared negatives on examples that are not skip-gram windows");
  shard_store split(word_rows{0, 2}, dim, vocab, 1);
  auto mb = windows_batch(1, vocab);
  const auto split_refused = split.validate(mb);
  REQUIRE_FALSE(split_refused);
}
