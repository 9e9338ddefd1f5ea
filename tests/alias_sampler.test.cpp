#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "src/sgns/alias_sampler.hpp"
#include "src/util/rng.hpp"

using namespace gridvec;

namespace {

std::vector<double> normalised(const std::vector<double>& w) {
  double total = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<double> p(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    p[i] = w[i] / total;
  return p;
}

std::vector<uint64_t> histogram(const alias_sampler& s, uint64_t seed, size_t draws) {
  std::vector<uint64_t> h(s.size(), 0);
  rng r(seed);
  for (size_t i = 0; i < draws; ++i) {
    uint32_t x = s.draw(r);
    REQUIRE(x < s.size());
    ++h[x];
  }
  return h;
}

// Checks every bin against its binomial standard error and the whole
// histogram with a chi-square bound (df + 6 sd of the chi-square).
void check_frequencies(const std::vector<uint64_t>& h, const std::vector<double>& p, size_t draws) {
  const double n = static_cast<double>(draws);
  double chi2 = 0;
  size_t df = 0;
  size_t worst = 0;
  double worst_z = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double expect = n * p[i];
    if (p[i] == 0) {
      CHECK(h[i] == 0u);
      continue;
    }
    const double sd = std::sqrt(n * p[i] * (1 - p[i]));
    const double z = std::abs(static_cast<double>(h[i]) - expect) / sd;
    if (z > worst_z) {
      worst_z = z;
      worst = i;
    }
    chi2 += (static_cast<double>(h[i]) - expect) * (static_cast<double>(h[i]) - expect) / expect;
    ++df;
  }
  --df;
  INFO("worst bin " << worst << ": " << h[worst] << " draws, expected " << n * p[worst]);
  CHECK(worst_z < 6.0);
  INFO("chi-square " << chi2 << " with " << df << " degrees of freedom");
  CHECK(chi2 < static_cast<double>(df) + 6.0 * std::sqrt(2.0 * static_cast<double>(df)));
}

} // namespace

TEST_CASE("alias_sampler: probability() equals the target distribution", "[alias_sampler]") {
  rng r(20240601);
  for (size_t n : {1u, 2u, 3u, 7u, 64u, 1000u, 3001u}) {
    std::vector<double> w(n);
    for (auto& x : w)
      x = r.uniform() * (r.below(4) == 0 ? 100.0 : 1.0);
    if (n > 2)
      w[n / 2] = 0; // a zero-weight entry in the middle
    const auto p = normalised(w);
    alias_sampler s(w);
    REQUIRE(s.size() == n);
    double sum = 0;
    for (uint32_t i = 0; i < n; ++i) {
      INFO("n = " << n << ", i = " << i);
      CHECK(std::abs(s.probability(i) - p[i]) < 1e-9);
      sum += s.probability(i);
    }
    CHECK(std::abs(sum - 1.0) < 1e-9);
  }
}

TEST_CASE("alias_sampler: degenerate inputs", "[alias_sampler]") {
  CHECK(alias_sampler{}.size() == 0u);
  CHECK(alias_sampler{std::vector<double>{}}.size() == 0u);
  CHECK(alias_sampler{std::vector<double>{0.0, 0.0}}.size() == 0u);

  alias_sampler one(std::vector<double>{3.5});
  REQUIRE(one.size() == 1u);
  CHECK(one.probability(0) == 1.0);
  rng r(1);
  for (int i = 0; i < 1000; ++i)
    CHECK(one.draw(r) == 0u);

  // Equal weights: every column keeps itself.
  alias_sampler flat(std::vector<double>(10, 2.0));
  for (uint32_t i = 0; i < 10; ++i)
    CHECK(std::abs(flat.probability(i) - 0.1) < 1e-12);
}

TEST_CASE("alias_sampler: from_counts uses count^power", "[alias_sampler]") {
  std::vector<uint64_t> counts{1000, 100, 10, 1, 0, 5};
  for (double power : {0.75, 1.0, 0.5}) {
    auto s = alias_sampler::from_counts(counts, power);
    std::vector<double> w;
    for (auto c : counts)
      w.push_back(std::pow(static_cast<double>(c), power));
    auto p = normalised(w);
    for (uint32_t i = 0; i < counts.size(); ++i)
      CHECK(std::abs(s.probability(i) - p[i]) < 1e-9);
    CHECK(s.probability(4) == 0.0);
  }
}

TEST_CASE("alias_sampler: empirical frequencies match the target", "[alias_sampler]") {
  constexpr size_t draws = 2'000'000;

  SECTION("random weights over 50 entries") {
    rng r(7);
    std::vector<double> w(50);
    for (auto& x : w)
      x = 0.01 + r.uniform();
    alias_sampler s(w);
    check_frequencies(histogram(s, 12345, draws), normalised(w), draws);
  }

  SECTION("very skewed: one entry holds almost all the mass") {
    std::vector<double> w(100, 1.0);
    w[37] = 1e5;
    alias_sampler s(w);
    auto p = normalised(w);
    auto h = histogram(s, 99, draws);
    check_frequencies(h, p, draws);
    CHECK(std::abs(static_cast<double>(h[37]) / draws - p[37]) < 1e-3);
  }

  SECTION("word2vec noise: counts^0.75 of a Zipf vocabulary of 10k words") {
    constexpr size_t vocab = 10'000;
    std::vector<uint64_t> counts(vocab);
    for (size_t rank = 0; rank < vocab; ++rank)
      counts[rank] = 10'000'000 / (rank + 1);
    auto s = alias_sampler::from_counts(counts, 0.75);
    REQUIRE(s.size() == vocab);
    std::vector<double> w(vocab);
    for (size_t i = 0; i < vocab; ++i)
      w[i] = std::pow(static_cast<double>(counts[i]), 0.75);
    auto p = normalised(w);
    // Spot-check the table itself at both ends of the distribution.
    for (uint32_t i : {0u, 1u, 2u, 10u, 100u, 5000u, 9998u, 9999u})
      CHECK(std::abs(s.probability(i) - p[i]) < 1e-9);
    check_frequencies(histogram(s, 4242, draws), p, draws);
  }
}

TEST_CASE("alias_sampler: zero-weight entries are never drawn", "[alias_sampler]") {
  constexpr size_t draws = 2'000'000;
  rng r(3);
  std::vector<double> w(200);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = (i % 3 == 0) ? 0.0 : r.uniform() * (i < 10 ? 1000.0 : 1.0);
  w.front() = 0; // first and last entries too
  w.back() = 0;
  alias_sampler s(w);
  auto p = normalised(w);
  for (uint32_t i = 0; i < w.size(); ++i)
    if (w[i] == 0)
      CHECK(s.probability(i) == 0.0);
  auto h = histogram(s, 777, draws);
  for (size_t i = 0; i < w.size(); ++i)
    if (w[i] == 0) {
      INFO("entry " << i);
      CHECK(h[i] == 0u);
    }
  check_frequencies(h, p, draws);
}

TEST_CASE("alias_sampler: draws are a deterministic function of the rng seed", "[alias_sampler]") {
  auto s = alias_sampler::from_counts({50, 40, 30, 20, 10, 5, 1});
  rng a(11), b(11), c(12);
  std::vector<uint32_t> xa, xb, xc;
  for (int i = 0; i < 1000; ++i) {
    xa.push_back(s.draw(a));
    xb.push_back(s.draw(b));
    xc.push_back(s.draw(c));
  }
  CHECK(xa == xb);
  CHECK(xa != xc);
}

TEST_CASE("alias_sampler: words of equal weight share one table entry, drawn uniformly within", "[alias_sampler]") {
  // A vocabulary shaped like a large one: a few frequent words, then long
  // runs of words seen 3, 2 and once (ids sorted by count, as vocabulary ids).
  std::vector<uint64_t> counts{5000, 4000, 4000, 900, 30};
  for (uint64_t c : {3u, 2u, 1u})
    counts.insert(counts.end(), 20000 * (4 - c), c);
  auto s = alias_sampler::from_counts(counts, 0.75);
  REQUIRE(s.size() == counts.size());
  CHECK(s.runs() == 7u); // 5000, 4000 x 2, 900, 30, 3, 2, 1
  std::vector<double> w;
  for (auto c : counts)
    w.push_back(std::pow(static_cast<double>(c), 0.75));
  auto p = normalised(w);
  for (uint32_t i : {0u, 1u, 2u, 3u, 4u, 5u, 20004u, 20005u, 60004u, 60005u, 120004u})
    CHECK(std::abs(s.probability(i) - p[i]) < 1e-9);
  CHECK(s.probability(static_cast<uint32_t>(counts.size())) == 0.0);

  // Empirically: per word for the frequent ones, per run for the rest (and
  // every word of a run is drawn, over the run's whole range).
  constexpr size_t draws = 4'000'000;
  auto h = histogram(s, 31337, draws);
  std::vector<uint64_t> grouped{h[0], h[1], h[2], h[3], h[4], 0, 0, 0};
  std::vector<double> expected{p[0], p[1], p[2], p[3], p[4], 0, 0, 0};
  size_t first = 5;
  for (size_t g = 5; g < 8; ++g) {
    const size_t len = 20000 * (g - 4);
    size_t seen = 0;
    for (size_t i = first; i < first + len; ++i) {
      grouped[g] += h[i];
      expected[g] += p[i];
      seen += h[i] > 0 ? 1 : 0;
    }
    CHECK(seen > len * 9 / 10);
    first += len;
  }
  check_frequencies(grouped, expected, draws);
}

TEST_CASE("alias_sampler: a look-ahead copy of the generator stays in step with the draws", "[alias_sampler]") {
  // Runs of several words, so that every draw also draws within its run.
  std::vector<uint64_t> counts;
  for (uint64_t c = 50; c >= 1; --c)
    for (int k = 0; k < 4; ++k)
      counts.push_back(c);
  auto s = alias_sampler::from_counts(counts);
  rng real(99), ahead(99);
  for (int i = 0; i < 1000; ++i) {
    s.draw(real);
    s.prefetch_draw(ahead);
  }
  CHECK(real.next() == ahead.next());
}
