// L-BFGS's pieces against dense references: the two-loop recursion
// against the inverse-Hessian matrix it stands for, the line search on a
// quadratic, a whole run on a quadratic and on logistic regression, and
// the LIBSVM reader's errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <optional>
#include <random>

#include "src/lbfgs/lbfgs.hpp"
#include "src/lbfgs/lbfgs_state_file.hpp"
#include "src/lbfgs/logistic.hpp"
#include "src/lbfgs/svm_data.hpp"
#include "tests/test_util.hpp"
#include <gridvec/core/table_spec.hpp>

using namespace gridvec;

namespace {

using vec = std::vector<double>;

// The vectors in memory, as doubles.
class memory_store : public vector_store {
public:
  memory_store(size_t rows, size_t n) : rows_(rows, vec(n, 0.0)) {}
  expected<std::vector<double>> dot(std::span<const uint64_t> a, std::span<const uint64_t> b) override {
    std::vector<double> out;
    for (size_t i = 0; i < a.size(); ++i) {
      double s = 0;
      for (size_t c = 0; c < rows_[0].size(); ++c)
        s += rows_[a[i]][c] * rows_[b[i]][c];
      out.push_back(s);
    }
    ++dots;
    return out;
  }
  status axpy(double alpha, uint64_t x, uint64_t y) override {
    for (size_t c = 0; c < rows_[0].size(); ++c)
      rows_[y][c] += alpha * rows_[x][c];
    return {};
  }
  status scal(double alpha, uint64_t x) override {
    for (double& v : rows_[x])
      v *= alpha;
    return {};
  }
  status copy(uint64_t from, uint64_t to) override {
    rows_[to] = rows_[from];
    return {};
  }
  status zero(uint64_t x) override {
    std::fill(rows_[x].begin(), rows_[x].end(), 0.0);
    return {};
  }
  vec& row(uint64_t r) { return rows_[r]; }
  size_t dots = 0;

private:
  std::vector<vec> rows_;
};

using matrix = std::vector<vec>;

matrix identity(size_t n, double scale) {
  matrix m(n, vec(n, 0.0));
  for (size_t i = 0; i < n; ++i)
    m[i][i] = scale;
  return m;
}

matrix multiply(const matrix& a, const matrix& b) {
  const size_t n = a.size();
  matrix c(n, vec(n, 0.0));
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < n; ++j)
        c[i][j] += a[i][k] * b[k][j];
  return c;
}

// f(w) = 1/2 w'Aw - b'w as a data pass (the store adds l2 = 0).
class quadratic : public data_pass {
public:
  quadratic(memory_store& store, matrix a, vec b) : store_(store), a_(std::move(a)), b_(std::move(b)) {}
  double f(const vec& w) const {
    double s = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      for (size_t j = 0; j < w.size(); ++j)
        s += 0.5 * w[i] * a_[i][j] * w[j];
      s -= b_[i] * w[i];
    }
    return s;
  }
  vec grad(const vec& w) const {
    vec g(w.size(), 0.0);
    for (size_t i = 0; i < w.size(); ++i) {
      for (size_t j = 0; j < w.size(); ++j)
        g[i] += a_[i][j] * w[j];
      g[i] -= b_[i];
    }
    return g;
  }
  expected<line_values> evaluate(std::span<const double> steps) override {
    ++passes;
    line_values v;
    const vec &w = store_.row(lbfgs_rows::w), &d = store_.row(lbfgs_rows::d);
    for (double t : steps) {
      vec x(w.size());
      for (size_t i = 0; i < w.size(); ++i)
        x[i] = w[i] + t * d[i];
      v.loss.push_back(f(x));
      vec g = grad(x);
      double s = 0;
      for (size_t i = 0; i < w.size(); ++i)
        s += g[i] * d[i];
      v.slope.push_back(s);
    }
    return v;
  }
  expected<double> gradient() override {
    ++passes;
    const vec& w = store_.row(lbfgs_rows::w);
    vec g = grad(w);
    for (size_t i = 0; i < w.size(); ++i)
      store_.row(lbfgs_rows::g_new)[i] += g[i];
    return f(w);
  }
  size_t passes = 0;

private:
  memory_store& store_;
  matrix a_;
  vec b_;
};

matrix random_spd(size_t n, std::mt19937& rng) {
  std::normal_distribution<double> z(0, 1);
  matrix m(n, vec(n));
  for (auto& r : m)
    for (auto& v : r)
      v = z(rng);
  matrix a(n, vec(n, 0.0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      for (size_t k = 0; k < n; ++k)
        a[i][j] += m[k][i] * m[k][j];
      if (i == j)
        a[i][j] += 1.0;
    }
  return a;
}

} // namespace

TEST_CASE("the two-loop recursion gives -H g of the dense L-BFGS inverse Hessian", "[lbfgs]") {
  const size_t n = 7, m = 4;
  std::mt19937 rng(11);
  std::normal_distribution<double> z(0, 1);
  memory_store store(lbfgs_rows::count(m), n);
  matrix a = random_spd(n, rng);
  std::vector<lbfgs_pair> history;
  // Pairs of a convex quadratic (y = A s), in slots out of order as a ring leaves them.
  const uint32_t slots[] = {2, 3, 0, 1};
  for (uint32_t slot : slots) {
    vec s(n), y(n, 0.0);
    for (auto& v : s)
      v = z(rng);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        y[i] += a[i][j] * s[j];
    store.row(lbfgs_rows::s(slot)) = s;
    store.row(lbfgs_rows::y(slot)) = y;
    double sy = 0;
    for (size_t i = 0; i < n; ++i)
      sy += s[i] * y[i];
    history.push_back({slot, 1.0 / sy});
  }
  vec g(n);
  for (auto& v : g)
    v = z(rng);
  store.row(lbfgs_rows::g) = g;
  const double gamma = 0.37;
  REQUIRE(lbfgs_direction(store, history, gamma));
  // H = V' H V + rho s s', oldest pair first, from H0 = gamma I.
  matrix h = identity(n, gamma);
  for (auto& p : history) {
    const vec &s = store.row(lbfgs_rows::s(p.slot)), &y = store.row(lbfgs_rows::y(p.slot));
    matrix v = identity(n, 1.0), vt = identity(n, 1.0);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        v[i][j] -= p.rho * y[i] * s[j];  // I - rho y s'
        vt[i][j] -= p.rho * s[i] * y[j]; // I - rho s y'
      }
    h = multiply(multiply(vt, h), v);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        h[i][j] += p.rho * s[i] * s[j];
  }
  for (size_t i = 0; i < n; ++i) {
    double expect = 0;
    for (size_t j = 0; j < n; ++j)
      expect -= h[i][j] * g[j];
    CHECK(store.row(lbfgs_rows::d)[i] == Approx(expect).epsilon(1e-9).margin(1e-12));
  }
  // Only dot products came back: two per pair.
  CHECK(store.dots == 2 * m);
}

TEST_CASE("the line search keeps the lowest step meeting Armijo and Wolfe, and backtracks", "[lbfgs]") {
  // phi(t) = (t - 0.7)^2: phi(0) = 0.49, phi'(0) = -1.4.
  auto phi = [](double t) { return (t - 0.7) * (t - 0.7); };
  auto dphi = [](double t) { return 2 * (t - 0.7); };
  std::vector<double> steps{2, 1, 0.5, 0.25, 0.125};
  std::vector<double> f, s;
  for (double t : steps) {
    f.push_back(phi(t));
    s.push_back(dphi(t));
  }
  // 2 fails Armijo; 1, 0.5, 0.25 meet both; 0.5 has the lowest value.
  CHECK(choose_step(phi(0), dphi(0), steps, f, s) == 2);
  // With a tight curvature condition only steps near 0.7 pass it: none of
  // these does, and the Armijo step with the lowest value is kept.
  line_search_options tight;
  tight.c2 = 0.1;
  CHECK(choose_step(phi(0), dphi(0), steps, f, s, tight) == 2);
  std::vector<double> far{8, 4, 3};
  std::vector<double> ff, fs;
  for (double t : far) {
    ff.push_back(phi(t));
    fs.push_back(dphi(t));
  }
  CHECK(choose_step(phi(0), dphi(0), far, ff, fs) == -1); // none lowers it: backtrack

  // A whole run on a quadratic in 6 dimensions finds A^-1 b.
  std::mt19937 rng(3);
  const size_t n = 6;
  matrix a = random_spd(n, rng);
  vec b{1, -2, 0.5, 3, 0, -1};
  memory_store store(lbfgs_rows::count(3), n);
  quadratic q(store, a, b);
  lbfgs_options o;
  o.memory = 3;
  o.l2 = 0;
  o.gtol = 1e-10;
  o.ftol = 0;
  auto r = run_lbfgs(store, q, o);
  REQUIRE(r);
  vec ax(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      ax[i] += a[i][j] * store.row(lbfgs_rows::w)[j];
  for (size_t i = 0; i < n; ++i)
    CHECK(ax[i] == Approx(b[i]).margin(1e-8));
  CHECK(r->iterations < 40);
  // Every iteration is one line-search pass and one gradient pass when step 1 or 2 is taken.
  CHECK(r->data_passes <= 2 * r->iterations + 1 + r->iterations);
}

TEST_CASE("a run cut short and resumed from its last checkpoint ends where the whole run ends", "[lbfgs]") {
  std::mt19937 rng(5);
  const size_t n = 12;
  matrix a = random_spd(n, rng);
  vec b(n);
  for (size_t i = 0; i < n; ++i)
    b[i] = std::sin(double(i) + 1);
  lbfgs_options o;
  o.memory = 4; // fewer pairs than iterations: the history's slots wrap around
  o.l2 = 0.5;
  o.gtol = 1e-12;
  o.ftol = 0;
  o.max_iterations = 30;
  memory_store whole_store(lbfgs_rows::count(o.memory), n);
  quadratic whole_q(whole_store, a, b);
  auto whole = run_lbfgs(whole_store, whole_q, o);
  REQUIRE(whole);
  REQUIRE(whole->iterations > 12);

  // The same run, its data failing (a lost shard) during iteration 11; the
  // checkpoints every 4 iterations copy the rows, as the shards' save does.
  struct failing : quadratic {
    using quadratic::quadratic;
    size_t fail_at = 0;
    expected<double> gradient() override {
      if (fail_at > 0 && passes + 1 >= fail_at)
        return failure{"table shard 1: no answer within 3000 ms"};
      return quadratic::gradient();
    }
  };
  memory_store store(lbfgs_rows::count(o.memory), n);
  failing q(store, a, b);
  std::optional<lbfgs_state> saved;
  std::vector<vec> saved_rows;
  std::vector<uint32_t> checkpoints;
  auto checkpoint = [&](const lbfgs_state& state) -> status {
    checkpoints.push_back(state.iteration);
    if (state.iteration % 4 == 0) {
      saved = state;
      saved_rows.clear();
      for (uint64_t r = 0; r < lbfgs_rows::count(o.memory); ++r)
        saved_rows.push_back(store.row(r));
    }
    return {};
  };
  q.fail_at = 0;
  // Find the data pass of iteration 11 from the whole run's trace.
  size_t passes = 1;
  for (size_t i = 0; i < 10; ++i)
    passes += whole->trace[i].passes + 1;
  q.fail_at = passes + whole->trace[10].passes + 1; // iteration 11's gradient pass
  auto cut = run_lbfgs(store, q, o, {}, checkpoint);
  REQUIRE_FALSE(cut);
  CHECK(test::contains(cut.error(), "no answer"));
  REQUIRE(saved);
  CHECK(saved->iteration == 8);
  CHECK(checkpoints.front() == 0);
  CHECK(checkpoints.back() == 10);
  // Back to the checkpoint's rows, and on from there.
  for (uint64_t r = 0; r < saved_rows.size(); ++r)
    store.row(r) = saved_rows[r];
  q.fail_at = 0;
  auto resumed = run_lbfgs(store, q, o, {}, checkpoint, &*saved);
  REQUIRE(resumed);
  CHECK(resumed->iterations == whole->iterations);
  CHECK(resumed->objective == whole->objective);
  CHECK(resumed->stopped == whole->stopped);
  REQUIRE(resumed->trace.size() == whole->trace.size());
  for (size_t i = 0; i < whole->trace.size(); ++i) {
    CHECK(resumed->trace[i].objective == whole->trace[i].objective);
    CHECK(resumed->trace[i].step == whole->trace[i].step);
  }
  CHECK(store.row(lbfgs_rows::w) == whole_store.row(lbfgs_rows::w));
  // A state of another history length is refused.
  o.memory = 2;
  CHECK_FALSE(run_lbfgs(store, q, o, {}, {}, &*saved));
}

TEST_CASE("L-BFGS on logistic regression reaches the optimum's gradient", "[lbfgs]") {
  // 300 examples of 10 features from a planted model.
  std::mt19937 rng(9);
  std::normal_distribution<float> z(0, 1);
  std::string text;
  for (int i = 0; i < 300; ++i) {
    std::vector<float> x(10);
    double m = 0;
    for (int c = 0; c < 10; ++c) {
      x[c] = z(rng);
      m += (c - 4.5) * 0.3 * x[c];
    }
    text += (m + 0.5 * z(rng) > 0 ? "+1" : "-1");
    for (int c = 0; c < 10; ++c)
      text += " " + std::to_string(c + 1) + ":" + std::to_string(x[c]);
    text += "\n";
  }
  auto data = parse_svm_text(text, 16, "planted");
  REQUIRE(data);
  auto part = make_logistic_part(*data, 0, data->examples());
  memory_store store(lbfgs_rows::count(10), 16);
  struct pass : data_pass {
    memory_store& store;
    logistic_part& part;
    pass(memory_store& s, logistic_part& p) : store(s), part(p) {}
    std::vector<float> at(uint64_t row) {
      std::vector<float> v;
      for (uint32_t c : part.columns)
        v.push_back(static_cast<float>(store.row(row)[c]));
      return v;
    }
    expected<line_values> evaluate(std::span<const double> steps) override {
      line_values v{std::vector<double>(steps.size()), std::vector<double>(steps.size())};
      auto w = at(lbfgs_rows::w), d = at(lbfgs_rows::d);
      logistic_line(part, w.data(), d.data(), steps, v.loss.data(), v.slope.data());
      return v;
    }
    expected<double> gradient() override {
      auto w = at(lbfgs_rows::w);
      std::vector<double> g(part.columns.size(), 0.0);
      const double loss = logistic_gradient(part, w.data(), g.data());
      for (size_t k = 0; k < g.size(); ++k)
        store.row(lbfgs_rows::g_new)[part.columns[k]] += g[k];
      return loss;
    }
  } p(store, part);
  lbfgs_options o;
  o.l2 = 1.0;
  o.gtol = 1e-7;
  o.ftol = 0;
  o.examples = 300;
  auto r = run_lbfgs(store, p, o);
  REQUIRE(r);
  // The data pass reads the model as float32 (as the shards hold it): near
  // the optimum rounding, not the gradient, may end the run.
  CHECK((r->stopped == "the gradient's norm" || r->stopped == "the objective's relative decrease"));
  CHECK(r->iterations < 60);
  // The gradient there, recomputed directly in doubles, is ~0.
  const vec& w = store.row(lbfgs_rows::w);
  vec g(16, 0.0);
  for (size_t c = 0; c < 16; ++c)
    g[c] = o.l2 * w[c];
  for (size_t i = 0; i < data->examples(); ++i) {
    double a = 0;
    for (uint64_t k = data->offsets[i]; k < data->offsets[i + 1]; ++k)
      a += data->values[k] * w[data->columns[k]];
    const double y = data->labels[i], c = -y / (1 + std::exp(y * a));
    for (uint64_t k = data->offsets[i]; k < data->offsets[i + 1]; ++k)
      g[data->columns[k]] += c * data->values[k];
  }
  double norm = 0;
  for (double v : g)
    norm += v * v;
  CHECK(std::sqrt(norm) < 1e-3);
  // Each later objective is lower (to float32's rounding).
  for (size_t i = 1; i < r->trace.size(); ++i)
    CHECK(r->trace[i].objective <= r->trace[i - 1].objective * (1 + 1e-7));
}

TEST_CASE("LIBSVM lines: labels, hashed feature names, and one error line for a bad one", "[lbfgs]") {
  auto d = parse_svm_text("+1 3:1.5 7:2 # comment\n\n0 word:1 3:0\n-1 99:1\n", 16, "x.svm");
  REQUIRE(d);
  CHECK(d->labels == std::vector<float>{1, -1, -1});
  CHECK(d->offsets == std::vector<uint64_t>{0, 2, 3, 4});
  CHECK(d->columns[0] == 3);
  CHECK(d->columns[2] == table_key("word") % 16);
  CHECK(d->columns[3] == table_key("99") % 16); // a number past the features is hashed too
  CHECK(parse_svm_text("1 2:x\n", 8, "x.svm").error() == "x.svm:1: the value of '2:x' is not a finite number");
  CHECK(parse_svm_text("1 2:1\nyes 3:1\n", 8, "x.svm").error() == "x.svm:2: the label 'yes' is not a number");
  CHECK(parse_svm_text("1 2:1 3\n", 8, "x.svm").error() == "x.svm:1: '3' is not FEATURE:VALUE");
  CHECK(parse_svm_text("# nothing\n", 8, "x.svm").error() == "x.svm: no examples");
  CHECK(*parse_feature_count("2^24") == 16777216u);
  CHECK(*parse_feature_count("1000") == 1000u);
  CHECK(test::contains(parse_feature_count("2^31").error(), "K at most 30"));
  CHECK(test::contains(parse_feature_count("0").error(), "between 1 and 2^30"));
}

TEST_CASE("an L-BFGS state file reads back exactly, and only for its own run", "[lbfgs]") {
  gridvec::test::temp_dir dir;
  lbfgs_state s;
  s.iteration = 7;
  s.objective = 1465.6592810123;
  s.gradient_norm = 0.1 / 3;
  s.gamma = 1e-7 / 7;
  s.history = {{3, 0.25 / 3}, {4, 1e300}, {0, -2.5e-300}};
  s.next_slot = 1;
  s.data_passes = 19;
  s.trace = {{1, 2.0 / 3, 0.5, 1.0, 1}, {2, 1.0 / 7, 0.25, 0.5, 2}};
  const lbfgs_run_identity run{"model", 4096, 5, 0.1, 3000};
  const auto path = dir.file("run.state");
  REQUIRE(write_lbfgs_state(path, {s, 2}, run));
  auto checkpoint = read_lbfgs_state(path, run);
  REQUIRE(checkpoint);
  CHECK(checkpoint->table_slot == 2u);
  const lbfgs_state* back = &checkpoint->state;
  CHECK(back->iteration == s.iteration);
  CHECK(back->objective == s.objective);
  CHECK(back->gradient_norm == s.gradient_norm);
  CHECK(back->gamma == s.gamma);
  CHECK(back->next_slot == s.next_slot);
  CHECK(back->data_passes == s.data_passes);
  REQUIRE(back->history.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(back->history[i].slot == s.history[i].slot);
    CHECK(back->history[i].rho == s.history[i].rho);
  }
  REQUIRE(back->trace.size() == 2);
  CHECK(back->trace[1].objective == s.trace[1].objective);
  CHECK(back->trace[1].passes == 2);

  auto other = run;
  other.l2 = 0.2;
  auto refused = read_lbfgs_state(path, other);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().find("it is of another run") != std::string::npos);

  // Damaged copies: each refused with one line naming the file.
  std::ifstream in(path);
  std::stringstream whole;
  whole << in.rdbuf();
  const std::string text = whole.str();
  auto refuse = [&](const std::string& damaged, const std::string& why) {
    const auto p = dir.write("damaged.state", damaged);
    auto r = read_lbfgs_state(p, run);
    REQUIRE_FALSE(r);
    INFO(r.error());
    CHECK(r.error().find(p) != std::string::npos);
    CHECK(r.error().find(why) != std::string::npos);
  };
  refuse(text.substr(0, text.size() - 4), "does not end with 'end'");
  refuse(text.substr(0, text.find("trace")), "it ends before 'trace'");
  refuse("not a state\n", "is not a gridvec L-BFGS state");
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  refuse(replaced("pair 4 ", "pair 5 "), "is not a slot below 5");
  refuse(replaced("next-slot 1", "next-slot 9"), "next-slot '9' is not a number from 0 to 4");
  refuse(replaced("history 3", "history 6"), "history '6' is not a number from 0 to 5");
  refuse(replaced("trace 2", "trace 99999999999"), "trace '99999999999' is not a number from 0 to 7");
  refuse(replaced("gamma ", "gamma x"), "gamma 'x");
  refuse(replaced("objective ", "objective inf"), "is not a finite number");
  refuse(replaced("table-slot 2", "table-slot 4"), "table-slot '4' is not a number from 0 to 3");
  // A file of the first format, without a table slot, reads as slot 0.
  std::string first_format = replaced("gridvec-lbfgs-state 2\n", "gridvec-lbfgs-state 1\n");
  first_format.erase(first_format.find("table-slot 2\n"), std::string("table-slot 2\n").size());
  auto first = read_lbfgs_state(dir.write("first.state", first_format), run);
  REQUIRE(first);
  CHECK(first->table_slot == 0u);
  CHECK(first->state.iteration == s.iteration);
  CHECK(first->state.trace.size() == 2);
  CHECK_FALSE(read_lbfgs_state(dir.file("missing.state"), run));
}
