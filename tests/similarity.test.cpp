// Nearest neighbours from partial dot products: summed over any number of
// shards, they give the same cosines and ranking as full vectors.
#include <catch2/catch.hpp>

#include <cmath>

#include "src/model/similarity.hpp"
#include <gridvec/core/vocabulary.hpp>

using namespace gridvec;

namespace {

std::shared_ptr<const noise_sampler> flat_noise(uint32_t v) {
  return std::make_shared<const noise_sampler>(alias_sampler(std::vector<double>(v, 1.0)));
}

// Full vectors as one store (S = 1) sees them.
std::vector<float> full_row(const shard_store& s, uint32_t w) {
  const float* r = s.input_row(w);
  return {r, r + s.slice().width};
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

std::vector<float> summed_query(const std::vector<shard_store*>& shards, const std::vector<uint32_t>& words,
                                const std::vector<float>& signs) {
  std::vector<float> norms;
  for (auto* s : shards)
    add_partials(norms, partial_norms(*s, words));
  std::vector<float> weights(words.size());
  for (size_t i = 0; i < words.size(); ++i)
    weights[i] = signs[i] / std::sqrt(norms[i]);
  std::vector<float> summed;
  for (auto* s : shards)
    add_partials(summed, partial_similarity(*s, words, weights));
  return summed;
}

} // namespace

TEST_CASE("similarity: nearest over 3 shards equals nearest over full vectors", "[similarity]") {
  const uint32_t V = 50, d = 12;
  shard_store whole(0, 1, d, V, 9, flat_noise(V));
  shard_store s0(0, 3, d, V, 9, flat_noise(V));
  shard_store s1(1, 3, d, V, 9, flat_noise(V));
  shard_store s2(2, 3, d, V, 9, flat_noise(V));

  auto summed = summed_query({&s0, &s1, &s2}, {7}, {1.0f});
  auto best = top_cosine(summed, 5, {7});
  REQUIRE(best.size() == 5);
  // The reference: cosines of full rows, sorted.
  std::vector<std::pair<double, uint32_t>> ref;
  for (uint32_t x = 0; x < V; ++x)
    if (x != 7)
      ref.emplace_back(cosine(full_row(whole, 7), full_row(whole, x)), x);
  std::sort(ref.rbegin(), ref.rend());
  for (size_t i = 0; i < 5; ++i) {
    CHECK(best[i].id == ref[i].second);
    CHECK(best[i].score == Approx(ref[i].first).margin(1e-5));
  }
  for (size_t i = 1; i < best.size(); ++i)
    CHECK(best[i - 1].score >= best[i].score);
}

TEST_CASE("similarity: an analogy query is b - a + c of normalised vectors", "[similarity]") {
  const uint32_t V = 30, d = 8;
  shard_store whole(0, 1, d, V, 4, flat_noise(V));
  shard_store s0(0, 2, d, V, 4, flat_noise(V));
  shard_store s1(1, 2, d, V, 4, flat_noise(V));
  auto summed = summed_query({&s0, &s1}, {1, 2, 3}, {-1.0f, 1.0f, 1.0f});
  auto best = top_cosine(summed, 1, {1, 2, 3});
  REQUIRE(best.size() == 1);
  auto unit = [&](uint32_t w) {
    auto r = full_row(whole, w);
    double n = 0;
    for (float x : r)
      n += x * x;
    for (float& x : r)
      x = static_cast<float>(x / std::sqrt(n));
    return r;
  };
  std::vector<float> q(d);
  auto a = unit(1), b = unit(2), c = unit(3);
  for (uint32_t j = 0; j < d; ++j)
    q[j] = b[j] - a[j] + c[j];
  double best_ref = -2;
  uint32_t best_id = 0;
  for (uint32_t x = 0; x < V; ++x)
    if (x > 3 || x == 0)
      if (double cs = cosine(q, full_row(whole, x)); cs > best_ref) {
        best_ref = cs;
        best_id = x;
      }
  CHECK(best[0].id == best_id);
  CHECK(best[0].score == Approx(best_ref).margin(1e-5));
}

TEST_CASE("similarity: float arrays cross as bytes", "[similarity]") {
  std::vector<float> v{1.5f, -2.0f, 0.0f};
  auto back = floats_of(float_bytes(v));
  REQUIRE(back);
  CHECK(*back == v);
  CHECK_FALSE(floats_of(std::vector<char>(7)));
}
