// The three ways of the Distributed negative sampling paper to draw a pair's noise words over word
// partitions (--negatives bns|sns|tns): bns keeps word2vec's distribution
// (through one alias table, bit for bit as before, or through the
// partitions), sns takes all of a pair's words from one partition drawn by
// its mass, tns from the positive word's partition.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "src/sgns/noise_sampler.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::chi_square_of;
using gridvec::test::zipf_counts;

namespace {

// count^0.75, normalised over `words`.
std::vector<double> unigram_power(const std::vector<uint64_t>& counts, const std::vector<uint32_t>& words) {
  std::vector<double> p(counts.size(), 0.0);
  double total = 0;
  for (uint32_t w : words)
    total += std::pow(static_cast<double>(counts[w]), 0.75);
  for (uint32_t w : words)
    p[w] = std::pow(static_cast<double>(counts[w]), 0.75) / total;
  return p;
}

std::vector<uint32_t> all_words(size_t v) {
  std::vector<uint32_t> w(v);
  for (size_t i = 0; i < v; ++i)
    w[i] = static_cast<uint32_t>(i);
  return w;
}

} // namespace

TEST_CASE("noise sampler: bns through one alias table draws what word2vec's table draws", "[sampler]") {
  const auto counts = zipf_counts(5000, 1e6);
  const auto whole = alias_sampler::from_counts(counts);
  const noise_sampler noise(counts);
  REQUIRE(noise.whole() != nullptr);
  rng a(99), b(99);
  std::vector<uint32_t> drawn;
  for (uint32_t positive = 0; positive < 2000; ++positive) {
    drawn.clear();
    noise.draw_for_pair(a, positive, 5, drawn);
    for (uint32_t w : drawn) {
      uint32_t expected = whole.draw(b);
      while (expected == positive) // word2vec's: never the positive
        expected = whole.draw(b);
      REQUIRE(w == expected);
    }
  }
}

TEST_CASE("noise sampler: bns through the partitions has word2vec's distribution", "[sampler]") {
  const auto counts = zipf_counts(800, 1e5);
  const noise_sampler noise(counts, {negatives_mode::bns, true, 7});
  CHECK(noise.whole() == nullptr);
  constexpr size_t pairs = 400'000, n = 5;
  const uint32_t positive = 799; // rare: its exclusion barely moves the others
  std::vector<double> seen(counts.size(), 0.0);
  rng r(5);
  std::vector<uint32_t> drawn;
  for (size_t i = 0; i < pairs; ++i) {
    drawn.clear();
    noise.draw_for_pair(r, positive, n, drawn);
    REQUIRE(drawn.size() == n);
    for (uint32_t w : drawn) {
      REQUIRE(w < counts.size());
      seen[w] += 1;
    }
  }
  auto words = all_words(counts.size());
  words.pop_back(); // the positive is never drawn
  auto expected = unigram_power(counts, words);
  for (auto& e : expected)
    e *= pairs * n;
  CHECK(seen[positive] == 0);
  const auto c = chi_square_of(seen, expected);
  INFO("chi-square " << c.statistic << " against " << c.critical);
  CHECK(c.statistic < c.critical);
}

TEST_CASE("noise sampler: tns draws from the positive's partition by count^0.75", "[sampler]") {
  const uint32_t p = 4;
  const auto counts = zipf_counts(1000, 1e5);
  const noise_sampler noise(counts, {negatives_mode::tns, false, p});
  const uint32_t positive = 6; // partition 2
  std::vector<double> seen(counts.size(), 0.0);
  rng r(17);
  std::vector<uint32_t> drawn;
  constexpr size_t pairs = 200'000, n = 5;
  for (size_t i = 0; i < pairs; ++i) {
    drawn.clear();
    noise.draw_for_pair(r, positive, n, drawn);
    for (uint32_t w : drawn) {
      REQUIRE(w % p == positive % p);
      REQUIRE(w != positive);
      seen[w] += 1;
    }
  }
  std::vector<uint32_t> others;
  for (uint32_t w = positive % p; w < counts.size(); w += p)
    if (w != positive)
      others.push_back(w);
  auto expected = unigram_power(counts, others);
  for (auto& e : expected)
    e *= pairs * n;
  const auto c = chi_square_of(seen, expected);
  INFO("chi-square " << c.statistic << " against " << c.critical);
  CHECK(c.statistic < c.critical);
}

TEST_CASE("noise sampler: sns takes a pair's words from one partition drawn by its mass", "[sampler]") {
  const uint32_t p = 5;
  const auto counts = zipf_counts(1000, 1e5);
  const noise_sampler noise(counts, {negatives_mode::sns, false, p});
  std::vector<double> partition_seen(p, 0.0);
  rng r(23);
  std::vector<uint32_t> drawn;
  constexpr size_t pairs = 200'000;
  for (size_t i = 0; i < pairs; ++i) {
    drawn.clear();
    noise.draw_for_pair(r, 999, 5, drawn);
    for (uint32_t w : drawn)
      REQUIRE(w % p == drawn[0] % p); // one partition per pair
    partition_seen[drawn[0] % p] += 1;
  }
  std::vector<double> expected(p, 0.0);
  double total = 0;
  for (size_t w = 0; w < counts.size(); ++w) {
    expected[w % p] += std::pow(static_cast<double>(counts[w]), 0.75);
    total += std::pow(static_cast<double>(counts[w]), 0.75);
  }
  for (auto& e : expected)
    e *= pairs / total;
  const auto c = chi_square_of(partition_seen, expected);
  INFO("chi-square " << c.statistic << " against " << c.critical);
  CHECK(c.statistic < c.critical);
}

TEST_CASE("noise sampler: a partition holds O(p + V/p) for sampling", "[sampler]") {
  // Counts that all differ: the alias table cannot merge runs of equal
  // counts, so its size is V entries -- the case the partitions are for.
  const uint32_t p = 16;
  std::vector<uint64_t> counts(200'000);
  for (size_t w = 0; w < counts.size(); ++w)
    counts[w] = 10'000'000 - w;
  const noise_sampler whole(counts);
  const noise_sampler parts(counts, {negatives_mode::tns, false, p});
  CHECK(parts.partition_bytes(0) <= 20 * (p + counts.size() / p + 1) * 2);
  CHECK(parts.partition_bytes(0) * (p / 2) < whole.bytes());
  CHECK(parts.bytes() >= whole.bytes()); // a column shard holds them all
}

TEST_CASE("noise sampler: one partition, or a partition of one word, stays sane", "[sampler]") {
  const auto counts = zipf_counts(10, 100);
  // p = 1: tns is bns through one partition.
  const noise_sampler one(counts, {negatives_mode::tns, false, 1});
  rng r(1);
  std::vector<uint32_t> drawn;
  std::map<uint32_t, int> seen;
  for (int i = 0; i < 1000; ++i) {
    drawn.clear();
    one.draw_for_pair(r, 3, 5, drawn);
    for (uint32_t w : drawn) {
      REQUIRE(w < 10);
      REQUIRE(w != 3);
      ++seen[w];
    }
  }
  CHECK(seen.size() == 9);
  // p = V: the positive's partition holds only itself; the bounded redraws
  // end, drawing the positive (as a one-word vocabulary does).
  const noise_sampler each(counts, {negatives_mode::tns, false, 10});
  drawn.clear();
  each.draw_for_pair(r, 4, 3, drawn);
  CHECK(drawn == std::vector<uint32_t>{4, 4, 4});
}
