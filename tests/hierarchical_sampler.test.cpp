// The Distributed negative sampling paper's hierarchical sampling draws the same distribution as one alias
// table over the whole vocabulary, with O(p + V/p) memory per partition.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "src/sgns/alias_sampler.hpp"
#include "src/sgns/hierarchical_sampler.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::chi_square_of;
using gridvec::test::zipf_counts;

namespace {

std::vector<hierarchical_sampler> all_partitions(const std::vector<uint64_t>& counts, uint32_t p) {
  const auto masses = hierarchical_sampler::partition_masses(counts, p);
  std::vector<hierarchical_sampler> parts;
  for (uint32_t k = 0; k < p; ++k) {
    std::vector<uint64_t> own;
    for (size_t w = k; w < counts.size(); w += p)
      own.push_back(counts[w]);
    parts.emplace_back(masses, k, own);
  }
  return parts;
}

} // namespace

TEST_CASE("hierarchical sampler: each word's probability is the alias table's", "[sampler]") {
  const auto counts = zipf_counts(1000, 1e5);
  const auto whole = alias_sampler::from_counts(counts);
  for (uint32_t p : {1u, 3u, 4u, 16u}) {
    const auto parts = all_partitions(counts, p);
    double total = 0;
    for (uint32_t w = 0; w < counts.size(); ++w) {
      const double q = parts[w % p].probability(w);
      // Equal up to the tables' 32-bit thresholds.
      CHECK(q == Approx(whole.probability(w)).epsilon(1e-6));
      total += q;
    }
    CHECK(total == Approx(1.0).epsilon(1e-9));
  }
}

TEST_CASE("hierarchical sampler: draws pass a chi-square test against count^0.75", "[sampler]") {
  const uint32_t p = 4;
  const auto counts = zipf_counts(1000, 1e5);
  const auto parts = all_partitions(counts, p);
  const auto whole = alias_sampler::from_counts(counts);
  constexpr size_t draws = 2'000'000;
  std::vector<uint64_t> seen(counts.size(), 0);
  rng r(12345);
  size_t misplaced = 0; // words outside the vocabulary or not the drawn partition's
  for (size_t i = 0; i < draws; ++i) {
    const uint32_t k = parts[0].draw_partition(r); // any partition can make this draw
    const uint32_t w = parts[k].draw_own_word(r);  // the owner draws the word
    if (w >= counts.size() || w % p != k) {
      ++misplaced;
      continue;
    }
    ++seen[w];
  }
  REQUIRE(misplaced == 0);
  std::vector<double> observed(seen.begin(), seen.end()), expected(counts.size());
  for (uint32_t w = 0; w < counts.size(); ++w)
    expected[w] = whole.probability(w) * draws;
  // 999 degrees of freedom: the 0.1% critical value is about 1143, the
  // mean 999.
  const auto c = chi_square_of(observed, expected);
  INFO("chi-square " << c.statistic << " against " << c.critical);
  CHECK(c.statistic < c.critical);
  CHECK(c.statistic > static_cast<double>(counts.size() - 1) / 2); // not suspiciously exact either
}

TEST_CASE("hierarchical sampler: O(p + V/p) memory per partition at V = 10M", "[sampler]") {
  const uint32_t p = 16;
  const auto counts = zipf_counts(10'000'000, 1e9);
  const auto masses = hierarchical_sampler::partition_masses(counts, p);
  std::vector<uint64_t> own;
  for (size_t w = 3; w < counts.size(); w += p)
    own.push_back(counts[w]);
  const hierarchical_sampler part(masses, 3, own);
  const auto whole = alias_sampler::from_counts(counts);
  // A table over words would take 8 bytes a word (the Distributed negative sampling paper: 16 GB at 1B).
  const uint64_t per_word_table = counts.size() * 8;
  std::printf("hierarchical sampler, V = 10M, p = 16: %llu bytes per partition; one alias table over runs %llu, "
              "over words %llu\n",
              static_cast<unsigned long long>(part.bytes()), static_cast<unsigned long long>(whole.bytes()),
              static_cast<unsigned long long>(per_word_table));
  CHECK(part.bytes() <= 20 * (p + counts.size() / p)); // O(p + V/p), 20 bytes per table entry
  CHECK(part.bytes() <= whole.bytes());
  CHECK(part.bytes() * 100 < per_word_table);
}
