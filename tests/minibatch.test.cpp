#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "src/sgns/minibatch.hpp"
#include "src/util/rng.hpp"

using namespace gridvec;

namespace {

// The context words of `pos` for window b, in sentence order, centre excluded.
std::vector<uint32_t> context(const std::vector<uint32_t>& s, size_t pos, size_t b) {
  std::vector<uint32_t> out;
  const size_t from = pos >= b ? pos - b : 0;
  const size_t to = std::min(s.size() - 1, pos + b);
  for (size_t j = from; j <= to; ++j)
    if (j != pos)
      out.push_back(s[j]);
  return out;
}

// The window b in 1..window that produced `ctx`, or 0 if none did.
size_t window_of(const std::vector<uint32_t>& s, size_t pos, uint32_t window, const std::vector<uint32_t>& ctx) {
  for (size_t b = 1; b <= window; ++b)
    if (context(s, pos, b) == ctx)
      return b;
  return 0;
}

std::vector<uint32_t> distinct_sentence(size_t n) {
  std::vector<uint32_t> s(n);
  std::iota(s.begin(), s.end(), 100u);
  return s;
}

} // namespace

TEST_CASE("minibatch: shape helpers", "[minibatch]") {
  minibatch mb;
  mb.negatives = 5;
  mb.inputs = {1, 2};
  mb.outputs = {3, 4, 5};
  mb.output_counts = {2, 1};
  CHECK(mb.examples() == 2u);
  CHECK(mb.pairs() == 3u);
  CHECK(mb.dot_count() == 18u);
  mb.clear();
  CHECK(mb.inputs.empty());
  CHECK(mb.outputs.empty());
  CHECK(mb.output_counts.empty());
  CHECK(mb.input_counts.empty());
  CHECK(mb.examples() == 0u);

  // CBOW shape: counts on the input side.
  mb.inputs = {1, 2, 3};
  mb.input_counts = {3};
  mb.outputs = {9};
  CHECK(mb.examples() == 1u);
  CHECK(mb.pairs() == 1u);
}

TEST_CASE("example_builder: skip-gram contexts", "[minibatch]") {
  for (uint32_t window : {1u, 2u, 5u, 8u}) {
    for (size_t len : {2u, 3u, 7u, 20u}) {
      const auto s = distinct_sentence(len);
      example_builder b(window, false);
      rng r(window * 1000 + len);
      minibatch mb;
      size_t expect_outputs = 0;
      for (int round = 0; round < 20; ++round) {
        for (size_t pos = 0; pos < len; ++pos) {
          minibatch one;
          REQUIRE(b.add(s, pos, r, one));
          REQUIRE(one.inputs == std::vector<uint32_t>{s[pos]});
          REQUIRE(one.output_counts.size() == 1u);
          CHECK(one.input_counts.empty());
          CHECK(one.output_counts[0] == one.outputs.size());
          INFO("window " << window << ", length " << len << ", pos " << pos);
          // Centre never among its outputs, everything within the sentence
          // and within 1..window on each side.
          CHECK(std::find(one.outputs.begin(), one.outputs.end(), s[pos]) == one.outputs.end());
          for (uint32_t w : one.outputs) {
            auto j = static_cast<long>(w) - 100;
            CHECK(j >= 0);
            CHECK(j < static_cast<long>(len));
            CHECK(std::abs(j - static_cast<long>(pos)) >= 1);
            CHECK(std::abs(j - static_cast<long>(pos)) <= static_cast<long>(window));
          }
          CHECK(window_of(s, pos, window, one.outputs) != 0u);
        }
        // The same examples appended to one minibatch keep their layout.
        for (size_t pos = 0; pos < len; ++pos) {
          size_t before = mb.outputs.size();
          REQUIRE(b.add(s, pos, r, mb));
          CHECK(mb.output_counts.back() == mb.outputs.size() - before);
          expect_outputs += mb.output_counts.back();
        }
      }
      CHECK(mb.examples() == 20 * len);
      CHECK(mb.inputs.size() == 20 * len);
      CHECK(mb.outputs.size() == expect_outputs);
      CHECK(std::accumulate(mb.output_counts.begin(), mb.output_counts.end(), size_t{0}) == mb.outputs.size());
    }
  }
}

TEST_CASE("example_builder: contexts are by position, not by word", "[minibatch]") {
  // Repeated words: the centre position is skipped, other occurrences are not.
  const std::vector<uint32_t> s{7, 7, 7};
  example_builder b(1, false);
  rng r(1);
  minibatch mb;
  REQUIRE(b.add(s, 1, r, mb));
  CHECK(mb.outputs == std::vector<uint32_t>{7, 7});
  CHECK(mb.inputs == std::vector<uint32_t>{7});
}

TEST_CASE("example_builder: the effective window is uniform on 1..window", "[minibatch]") {
  constexpr uint32_t window = 5;
  constexpr size_t draws = 100'000;
  const auto s = distinct_sentence(31);
  const size_t pos = 15; // far from both ends
  example_builder b(window, false);
  rng r(2024);
  std::vector<size_t> hist(window + 1, 0);
  for (size_t i = 0; i < draws; ++i) {
    minibatch mb;
    REQUIRE(b.add(s, pos, r, mb));
    const size_t eff = mb.outputs.size() / 2;
    REQUIRE(mb.outputs.size() == 2 * eff);
    REQUIRE(eff >= 1);
    REQUIRE(eff <= window);
    REQUIRE(mb.outputs == context(s, pos, eff));
    ++hist[eff];
  }
  CHECK(hist[0] == 0u);
  const double p = 1.0 / window;
  const double sd = std::sqrt(draws * p * (1 - p));
  for (uint32_t w = 1; w <= window; ++w) {
    INFO("b = " << w << ": " << hist[w] << " of " << draws);
    CHECK(std::abs(static_cast<double>(hist[w]) - draws * p) < 5 * sd);
  }
}

TEST_CASE("example_builder: CBOW is skip-gram with the sides swapped", "[minibatch]") {
  rng g(9);
  std::vector<uint32_t> s(40);
  for (auto& x : s)
    x = g.below(10); // repeated words on purpose
  for (uint32_t window : {1u, 3u, 6u}) {
    example_builder sg(window, false), cbow(window, true);
    rng r1(window), r2(window);
    minibatch a, c;
    for (size_t pos = 0; pos < s.size(); ++pos) {
      bool added_sg = sg.add(s, pos, r1, a);
      bool added_cbow = cbow.add(s, pos, r2, c);
      CHECK(added_sg == added_cbow);
    }
    CHECK(c.inputs == a.outputs);
    CHECK(c.input_counts == a.output_counts);
    CHECK(c.outputs == a.inputs);
    CHECK(c.output_counts.empty());
    CHECK(a.input_counts.empty());
    CHECK(c.examples() == s.size());
    CHECK(c.pairs() == s.size());
    CHECK(std::accumulate(c.input_counts.begin(), c.input_counts.end(), size_t{0}) == c.inputs.size());
  }
}

TEST_CASE("example_builder: word2vec.c's skip-gram is one pair a context, the centre the output", "[minibatch]") {
  rng g(11);
  std::vector<uint32_t> s(40);
  for (auto& x : s)
    x = g.below(10); // repeated words on purpose
  for (uint32_t window : {1u, 3u, 6u}) {
    example_builder centre_in(window, example_form::centre_predicts_contexts),
      contexts_in(window, example_form::contexts_predict_centre);
    rng r1(window), r2(window);
    minibatch a, c;
    for (size_t pos = 0; pos < s.size(); ++pos) {
      const size_t before = c.pairs();
      const bool added_a = centre_in.add(s, pos, r1, a);
      const bool added_c = contexts_in.add(s, pos, r2, c);
      REQUIRE(added_a == added_c);
      if (!added_c)
        continue;
      // The same window (the same draw), each context its own pair.
      REQUIRE(c.pairs() - before == a.output_counts.back());
      for (size_t k = before; k < c.pairs(); ++k)
        CHECK(c.outputs[k] == s[pos]);
    }
    CHECK(c.inputs == a.outputs); // the contexts, in the same order
    CHECK(c.input_counts.empty());
    CHECK(c.output_counts.empty());
    CHECK(c.examples() == c.pairs());
    CHECK(c.pairs() == a.pairs());
  }
}

TEST_CASE("example_builder: a one-word sentence adds nothing", "[minibatch]") {
  const std::vector<uint32_t> s{42};
  for (bool cbow : {false, true}) {
    example_builder b(5, cbow);
    rng r(3);
    minibatch mb;
    mb.inputs = {1};
    mb.outputs = {2};
    mb.output_counts = {1};
    for (int i = 0; i < 50; ++i)
      CHECK_FALSE(b.add(s, 0, r, mb));
    CHECK(mb.inputs == std::vector<uint32_t>{1});
    CHECK(mb.outputs == std::vector<uint32_t>{2});
    CHECK(mb.output_counts == std::vector<uint32_t>{1});
    CHECK(mb.input_counts.empty());
  }
}
