#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "src/util/rng.hpp"
#include "src/sgns/sgns.hpp"

using namespace gridvec;

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double log_sigmoid(double x) { return -std::log1p(std::exp(-x)); }

// The table has 1000 entries over [-6, 6]: steps of 0.012, sigmoid' <= 1/4.
constexpr double sigmoid_table_error = 0.012 / 4 + 1e-6;
constexpr double log_sigmoid_table_error = 0.012 + 1e-6;

} // namespace

TEST_CASE("table_sigmoid approximates the logistic function", "[sgns]") {
  CHECK(table_sigmoid(0.0f) == Approx(0.5).margin(1e-6));
  CHECK(table_sigmoid(6.0f) == 1.0f);
  CHECK(table_sigmoid(100.0f) == 1.0f);
  CHECK(table_sigmoid(std::numeric_limits<float>::infinity()) == 1.0f);
  CHECK(table_sigmoid(-6.0f) == 0.0f);
  CHECK(table_sigmoid(-100.0f) == 0.0f);
  float prev = 0.0f;
  for (int i = -6000; i < 6000; ++i) {
    const float x = static_cast<float>(i) / 1000.0f;
    const float s = table_sigmoid(x);
    INFO("x = " << x);
    CHECK(std::abs(s - sigmoid(x)) <= sigmoid_table_error);
    CHECK(s >= prev); // monotone
    prev = s;
  }
}

TEST_CASE("compute_weights: alpha(1 - sigma) for positives, -alpha sigma for negatives", "[sgns]") {
  const uint32_t negatives = 3;
  const size_t pairs = 200;
  const float alpha = 0.025f;
  rng r(1);
  std::vector<float> dots(pairs * (negatives + 1)), w(dots.size());
  for (auto& d : dots)
    d = (r.uniform() - 0.5f) * 11.8f; // inside (-6, 6)
  auto res = compute_weights(dots.data(), pairs, negatives, alpha, w.data());
  CHECK(res.pairs == pairs);
  double loss = 0;
  for (size_t k = 0; k < dots.size(); ++k) {
    const bool positive = k % (negatives + 1) == 0;
    const double f = dots[k];
    INFO("k = " << k << ", f = " << f);
    if (positive) {
      CHECK(w[k] == (1.0f - table_sigmoid(dots[k])) * alpha);
      CHECK(std::abs(w[k] - alpha * (1 - sigmoid(f))) <= alpha * sigmoid_table_error);
      CHECK(w[k] >= 0.0f);
      loss -= log_sigmoid(f);
    } else {
      CHECK(w[k] == (0.0f - table_sigmoid(dots[k])) * alpha);
      CHECK(std::abs(w[k] + alpha * sigmoid(f)) <= alpha * sigmoid_table_error);
      CHECK(w[k] <= 0.0f);
      loss -= log_sigmoid(-f);
    }
  }
  CHECK(std::abs(res.loss - loss) <= log_sigmoid_table_error * static_cast<double>(dots.size()));
  // Tighter in aggregate: the truncation error is one-sided but small on average.
  CHECK(std::abs(res.loss - loss) / static_cast<double>(dots.size()) < 0.01);
}

TEST_CASE("compute_weights: the loss of single pairs", "[sgns]") {
  float w[3];
  for (float f : {-5.5f, -2.0f, -0.3f, 0.0f, 0.7f, 3.0f, 5.9f}) {
    const float dots[3] = {f, -f, f / 2};
    auto res = compute_weights(dots, 1, 2, 1.0f, w);
    const double expect = -log_sigmoid(f) - log_sigmoid(f) - log_sigmoid(-f / 2);
    INFO("f = " << f);
    CHECK(std::abs(res.loss - expect) <= 3 * log_sigmoid_table_error);
    CHECK(res.pairs == 1u);
  }
}

TEST_CASE("compute_weights: clipping beyond +-6 as word2vec.c", "[sgns]") {
  const float alpha = 0.05f;
  const float inf = std::numeric_limits<float>::infinity();
  for (float big : {6.0f, 6.5f, 20.0f, 1e30f, inf}) {
    INFO("|f| = " << big);
    // positive pair, negative pair at +big
    float dots[2] = {big, big};
    float w[2];
    auto res = compute_weights(dots, 1, 1, alpha, w);
    CHECK(w[0] == 0.0f);   // (1 - 1) * alpha: already right
    CHECK(w[1] == -alpha); // (0 - 1) * alpha: noise word scored high
    if (std::isfinite(big) && big < 100)
      CHECK(std::abs(res.loss - (-log_sigmoid(big) - log_sigmoid(-big))) < 1e-3 * big + 1e-3);
    // ... and at -big
    float dots2[2] = {-big, -big};
    res = compute_weights(dots2, 1, 1, alpha, w);
    CHECK(w[0] == alpha); // (1 - 0) * alpha
    CHECK(w[1] == 0.0f);  // (0 - 0) * alpha
    if (std::isfinite(big) && big < 100)
      CHECK(std::abs(res.loss - (-log_sigmoid(-big) - log_sigmoid(big))) < 1e-3 * big + 1e-3);
  }
}

TEST_CASE("compute_weights: NaN dot products give no NaN weights", "[sgns]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float dots[6] = {nan, nan, 1.0f, 0.5f, nan, -nan};
  float w[6];
  auto res = compute_weights(dots, 2, 2, 0.025f, w);
  for (float x : w) {
    CHECK_FALSE(std::isnan(x));
    CHECK(std::abs(x) <= 0.025f);
  }
  CHECK_FALSE(std::isnan(res.loss));
  CHECK(std::isfinite(res.loss));
  // The finite entries are unaffected by their NaN neighbours.
  CHECK(w[3] == (1.0f - table_sigmoid(0.5f)) * 0.025f);
}

TEST_CASE("compute_weights: zero pairs", "[sgns]") {
  auto res = compute_weights(nullptr, 0, 5, 0.025f, nullptr);
  CHECK(res.pairs == 0u);
  CHECK(res.loss == 0.0);
}

TEST_CASE("learning_rate decays linearly and floors at 1e-4 of the start", "[sgns]") {
  const float start = 0.025f;
  const uint64_t total = 1'000'000;
  CHECK(learning_rate(start, 0, total) == start);
  float prev = start;
  for (uint64_t done = 0; done <= total + 10; done += 9973) {
    const float a = learning_rate(start, done, total);
    const double linear = start * (1.0 - static_cast<double>(done) / static_cast<double>(total + 1));
    INFO("done = " << done);
    CHECK(a <= prev);
    CHECK(a >= start * 1e-4f * 0.999f);
    if (linear > start * 1e-4)
      CHECK(a == Approx(linear).epsilon(1e-6));
    else
      CHECK(a == Approx(start * 1e-4).epsilon(1e-6));
    prev = a;
  }
  CHECK(learning_rate(start, total / 2, total) == Approx(start * 0.5).epsilon(1e-5));
  // At and beyond the end: the floor.
  CHECK(learning_rate(start, total, total) == Approx(start * 1e-4).epsilon(1e-5));
  CHECK(learning_rate(start, 3 * total, total) == Approx(start * 1e-4).epsilon(1e-6));
  CHECK(learning_rate(start, 100, 0) == Approx(start * 1e-4).epsilon(1e-6));
  // Short runs: linear down to 1/(total+1) of the start.
  CHECK(learning_rate(0.05f, 5, 9) == Approx(0.05 * 0.5).epsilon(1e-6));
}

TEST_CASE("compute_weights: dot products a float's step inside +-6 stay in the tables", "[sgns]") {
  // (f + 6) * (1000 / 12) rounds to exactly 1000 for f just below 6: the
  // index was one past the table, and the loss read whatever lay there.
  const float below = std::nextafter(6.0f, 0.0f), above = std::nextafter(-6.0f, 0.0f);
  for (float f : {below, above, std::nextafter(below, 0.0f)}) {
    INFO(f);
    std::vector<float> dots{f, f}, weights(2);
    auto r = compute_weights(dots.data(), 1, 1, 0.025f, weights.data());
    CHECK(std::isfinite(r.loss));
    CHECK(r.loss >= 0.0);
    CHECK(r.loss <= 6.1); // -log sigma(6) + -log sigma(-6) is about 6.0025
    CHECK(std::fabs(weights[0]) <= 0.025f);
    CHECK(std::fabs(weights[1]) <= 0.025f);
    CHECK(table_sigmoid(f) >= 0.0f);
    CHECK(table_sigmoid(f) <= 1.0f);
  }
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
