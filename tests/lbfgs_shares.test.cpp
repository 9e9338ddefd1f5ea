// A learner's share of an L-BFGS data pass (src/lbfgs/learner_share.hpp):
// the shares of the examples, the pass over a share against a model read
// and written at the share's columns only, a gradient pass redone after a
// learner died halfway through it, and how a lost learner's shares move.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "src/lbfgs/learner_share.hpp"
#include "src/lbfgs/svm_data.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;

namespace {

// The model table in memory: rows of `n` floats; counts what crosses.
class memory_model : public sparse_model {
public:
  memory_model(size_t rows, size_t n) : rows_(rows, std::vector<float>(n, 0.0f)) {}
  expected<std::vector<float>> fetch_rows(std::span<const uint64_t> rows, std::span<const uint32_t> columns) override {
    std::vector<float> out;
    for (uint64_t r : rows)
      for (uint32_t c : columns)
        out.push_back(rows_.at(r).at(c));
    fetched += columns.size();
    return out;
  }
  status increment(uint64_t row, std::span<const uint32_t> columns, std::span<const float> values) override {
    for (size_t j = 0; j < columns.size(); ++j)
      rows_.at(row).at(columns[j]) += values[j];
    ++increments;
    return {};
  }
  std::vector<std::vector<float>> rows_;
  size_t fetched = 0, increments = 0;
};

svm_data example_data() {
  auto d = parse_svm_text("+1 0:1 3:2\n-1 1:0.5 3:-1\n+1 2:1\n-1 0:-1 1:1 2:0.25\n+1 5:1 7:3\n-1 6:2\n+1 7:-1 0:1\n", 8,
                          "test");
  REQUIRE(d);
  return *d;
}

} // namespace

TEST_CASE("shares of the examples are contiguous, in order, and differ by at most one", "[lbfgs]") {
  for (uint64_t n : {1u, 7u, 10u, 3000u}) {
    for (uint32_t count = 1; count <= 5; ++count) {
      uint64_t next = 0;
      for (uint32_t k = 0; k < count; ++k) {
        auto r = share_of(n, k, count);
        CHECK(r.begin == next);
        CHECK(r.end - r.begin <= n / count + 1);
        CHECK(r.end - r.begin >= n / count);
        next = r.end;
      }
      CHECK(next == n);
    }
  }
  // As the learner threads always split: n * k / count.
  CHECK(share_of(3000, 1, 2).begin == 1500);
  CHECK(share_of(uint64_t{1} << 40, 2, 3).begin == (uint64_t{1} << 40) * 2 / 3);
}

TEST_CASE("the passes over two shares add up to the pass over all examples", "[lbfgs]") {
  const auto d = example_data();
  memory_model model(lbfgs_rows::count(1), 8);
  for (uint32_t c = 0; c < 8; ++c) {
    model.rows_[lbfgs_rows::w][c] = 0.1f * float(c) - 0.3f;
    model.rows_[lbfgs_rows::d][c] = 0.05f * float(7 - c);
  }
  const auto whole = make_logistic_part(d, 0, d.examples());
  const auto a = make_logistic_part(d, 0, 3), b = make_logistic_part(d, 3, d.examples());
  const std::vector<double> steps{1.0, 0.5, 0.25};

  // Line search values.
  auto all = share_line(model, whole, steps);
  auto va = share_line(model, a, steps), vb = share_line(model, b, steps);
  REQUIRE((all && va && vb));
  line_values sum;
  add_line_values(sum, *va);
  add_line_values(sum, *vb);
  for (size_t j = 0; j < steps.size(); ++j) {
    CHECK(sum.loss[j] == Approx(all->loss[j]).epsilon(1e-12));
    CHECK(sum.slope[j] == Approx(all->slope[j]).epsilon(1e-12));
  }

  // Gradient: one increment per share, at the share's columns only.
  auto la = share_gradient(model, a);
  auto lb = share_gradient(model, b);
  REQUIRE((la && lb));
  CHECK(model.increments == 2);
  // The whole part's gradient, at its columns (a column no example has stays 0).
  std::vector<float> w_at;
  for (uint32_t c : whole.columns)
    w_at.push_back(model.rows_[lbfgs_rows::w][c]);
  std::vector<double> g_at(whole.columns.size(), 0.0), g(8, 0.0);
  const double loss = logistic_gradient(whole, w_at.data(), g_at.data());
  for (size_t j = 0; j < whole.columns.size(); ++j)
    g[whole.columns[j]] = g_at[j];
  CHECK(*la + *lb == Approx(loss).epsilon(1e-12));
  for (uint32_t c = 0; c < 8; ++c)
    CHECK(model.rows_[lbfgs_rows::g_new][c] == Approx(g[c]).epsilon(1e-6).margin(1e-7));
  CHECK(model.rows_[lbfgs_rows::g_new][4] == 0.0f);
  CHECK(a.columns.size() < 8); // a sparse fetch: share a touches columns 0 to 3 only

  // Accuracy.
  auto ca = share_correct(model, a), cb = share_correct(model, b);
  REQUIRE((ca && cb));
  uint64_t right = 0;
  for (size_t e = 0; e < d.examples(); ++e) {
    double m = 0;
    for (uint64_t k = d.offsets[e]; k < d.offsets[e + 1]; ++k)
      m += double{d.values[k]} * model.rows_[lbfgs_rows::w][d.columns[k]];
    right += m * d.labels[e] > 0;
  }
  CHECK(*ca + *cb == right);
}

TEST_CASE("a gradient pass redone from a zeroed row does not count a dead learner's part twice", "[lbfgs]") {
  const auto d = example_data();
  const auto a = make_logistic_part(d, 0, 4), b = make_logistic_part(d, 4, d.examples());
  memory_model clean(lbfgs_rows::count(1), 8), redone(lbfgs_rows::count(1), 8);
  for (auto* m : {&clean, &redone})
    for (uint32_t c = 0; c < 8; ++c)
      m->rows_[lbfgs_rows::w][c] = 0.2f * float(c % 3) - 0.1f;
  REQUIRE(share_gradient(clean, a));
  REQUIRE(share_gradient(clean, b));
  // The first try: share a's learner finished, share b's died after its
  // increment reached part of the row.
  REQUIRE(share_gradient(redone, a));
  {
    memory_model partial(lbfgs_rows::count(1), 8);
    partial.rows_ = redone.rows_;
    REQUIRE(share_gradient(partial, b));
    for (uint32_t c : b.columns)
      if (c % 2 == 0)
        redone.rows_[lbfgs_rows::g_new][c] = partial.rows_[lbfgs_rows::g_new][c];
  }
  // The redo: the row zeroed, both shares again (b at its new learner).
  std::fill(redone.rows_[lbfgs_rows::g_new].begin(), redone.rows_[lbfgs_rows::g_new].end(), 0.0f);
  REQUIRE(share_gradient(redone, a));
  REQUIRE(share_gradient(redone, b));
  CHECK(redone.rows_[lbfgs_rows::g_new] == clean.rows_[lbfgs_rows::g_new]);
}

TEST_CASE("a lost learner's shares go to the live learners with the fewest", "[lbfgs]") {
  // Learners 0..3, one share each; learner 1 is lost.
  CHECK(reassign_shares({0, 1, 2, 3}, {true, false, true, true}) == std::vector<uint32_t>{0, 0, 2, 3});
  // Then learner 0 (two shares now) too: its two go to 2 and 3.
  CHECK(reassign_shares({0, 0, 2, 3}, {false, false, true, true}) == std::vector<uint32_t>{2, 3, 2, 3});
  // Nothing lost: nothing moves.
  CHECK(reassign_shares({1, 0, 1}, {true, true}) == std::vector<uint32_t>{1, 0, 1});
  // No learner left.
  CHECK(reassign_shares({0, 1}, {false, false}).empty());
}

TEST_CASE("a learner reads its share of a LIBSVM file: its range kept, every line checked", "[lbfgs]") {
  test::temp_dir dir;
  const std::string text = "# a comment\n+1 0:1 3:2\n-1 1:0.5 3:-1\n\n+1 2:1\n-1 0:-1 1:1 2:0.25\n+1 5:1 7:3\n";
  const auto path = dir.write("data.svm", text);
  auto whole = read_svm_file(path, 8);
  REQUIRE(whole);
  uint64_t total = 0;
  auto share = read_svm_range(path, 8, 1, 4, total);
  REQUIRE(share);
  CHECK(total == 5);
  REQUIRE(share->examples() == 3);
  const auto a = make_logistic_part(*whole, 1, 4), b = make_logistic_part(*share, 0, 3);
  CHECK(a.columns == b.columns);
  CHECK(a.labels == b.labels);
  CHECK(a.offsets == b.offsets);
  CHECK(a.local == b.local);
  CHECK(a.values == b.values);
  // A range past the end keeps nothing; the count is still the file's.
  auto none = read_svm_range(path, 8, 7, 9, total);
  REQUIRE(none);
  CHECK(none->examples() == 0);
  CHECK(total == 5);
  // A bad line outside the range is still an error, with its line number.
  const auto bad = dir.write("bad.svm", text + "-1 4:x\n");
  auto refused = read_svm_range(bad, 8, 0, 1, total);
  REQUIRE_FALSE(refused);
  CHECK(refused.error() == bad + ":8: the value of '4:x' is not a finite number");
}
