#pragma once
// Limited-memory BFGS for L2-regularised objectives f(w) = L(w) + (l2/2)|w|^2,
// written so that the vectors never have to be in this process: every
// vector is a row of a `vector_store` (on the parameter server: a dense
// matrix in the columns layout, each shard holding a slice of every row),
// and the optimiser only asks for dot products and tells the store to
// axpy/scal/copy. Only scalars come back. The data term L is evaluated by
// a `data_pass` (the learners), which reads the rows it needs itself.
//
// The direction is the two-loop recursion over the last m (s, y) pairs,
// with the initial inverse Hessian scaled by the curvature s.y / y.y of
// the newest pair. The line search evaluates several step sizes in one
// pass over the data (the parallel line search) and keeps the one with the
// lowest objective among those that meet the Armijo (sufficient decrease)
// and curvature (Wolfe) conditions; when none meets Armijo, the next pass
// tries smaller steps (backtracking).
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

/// The rows an L-BFGS run with history m keeps (4 + 2m of them).
struct lbfgs_rows {
  static constexpr uint64_t w = 0;     // the model
  static constexpr uint64_t g = 1;     // the gradient at w
  static constexpr uint64_t d = 2;     // the search direction
  static constexpr uint64_t g_new = 3; // the gradient at the next point, while it is made
  static uint64_t s(uint32_t slot) { return 4 + 2 * uint64_t{slot}; }
  static uint64_t y(uint32_t slot) { return 5 + 2 * uint64_t{slot}; }
  static uint64_t count(uint32_t m) { return 4 + 2 * uint64_t{m}; }
};

/// Where the vectors live; every call names rows.
class vector_store {
public:
  virtual ~vector_store() = default;
  /// a[i] . b[i] for every pair, in one round.
  virtual expected<std::vector<double>> dot(std::span<const uint64_t> a, std::span<const uint64_t> b) = 0;
  virtual status axpy(double alpha, uint64_t x, uint64_t y) = 0; // y += alpha x
  virtual status scal(double alpha, uint64_t x) = 0;             // x *= alpha
  virtual status copy(uint64_t from, uint64_t to) = 0;           // to = from
  virtual status zero(uint64_t x) = 0;                           // x = 0
};

/// What one pass over the data says about the points w + step_j d.
struct line_values {
  std::vector<double> loss;  // L(w + step_j d)
  std::vector<double> slope; // d . grad L(w + step_j d)
};

/// The data term, computed where the data is.
class data_pass {
public:
  virtual ~data_pass() = default;
  /// L and its directional derivative along row d at w + step d, for every step.
  virtual expected<line_values> evaluate(std::span<const double> steps) = 0;
  /// Adds grad L(w) into row g_new (zero before) and returns L(w).
  virtual expected<double> gradient() = 0;
};

/// One pair of the history: rows s(slot), y(slot), and rho = 1 / s.y.
struct lbfgs_pair {
  uint32_t slot = 0;
  double rho = 0;
};

/// The two-loop recursion: row d = -H g, H the L-BFGS inverse Hessian of
/// `history` (oldest first) with H0 = gamma I. Only dot products cross.
status lbfgs_direction(vector_store& store, const std::vector<lbfgs_pair>& history, double gamma);

struct line_search_options {
  double c1 = 1e-4; // Armijo: f(a) <= f(0) + c1 a f'(0)
  double c2 = 0.9;  // curvature: |f'(a)| <= c2 |f'(0)| (strong Wolfe)
};

/// Which of the steps to take, given f and f' along the direction at 0
/// (slope0 < 0) and at each step: the lowest f among the steps meeting both
/// conditions, else the lowest f among those meeting Armijo; -1 if none does.
int choose_step(double f0, double slope0, std::span<const double> steps, std::span<const double> f,
                std::span<const double> slope, const line_search_options& options = {});

struct lbfgs_options {
  uint32_t memory = 10; // m: the pairs kept
  double l2 = 1.0;      // the regularisation strength (sklearn's 1/C)
  uint32_t max_iterations = 200;
  double gtol = 1e-5;          // stop when |g|_2 <= gtol * max(1, examples)
  double ftol = 1e-10;         // ... or when the objective's relative decrease is below this
  uint32_t steps_per_pass = 6; // step sizes evaluated in one data pass
  uint32_t max_passes = 6;     // line search passes per iteration before giving up
  double examples = 1;         // to scale gtol
  line_search_options search;
};

/// What a run did, per iteration and in total.
struct lbfgs_iteration {
  uint32_t iteration = 0;
  double objective = 0, gradient_norm = 0, step = 0;
  uint32_t passes = 0; // data passes of the line search
};

struct lbfgs_result {
  double objective = 0;
  double gradient_norm = 0;
  uint32_t iterations = 0;
  uint32_t data_passes = 0; // all of them, the gradient passes too
  std::string stopped;      // why it stopped, in words
  std::vector<lbfgs_iteration> trace;
};

/// Where a run stands after an iteration: with the store's rows as they
/// were at that moment, all it needs to go on from there (a checkpoint).
struct lbfgs_state {
  uint32_t iteration = 0; // iterations done
  double objective = 0, gradient_norm = 0;
  double gamma = 1;                // the initial inverse Hessian's scale
  std::vector<lbfgs_pair> history; // oldest first
  uint32_t next_slot = 0;          // where the next pair goes
  uint32_t data_passes = 0;
  std::vector<lbfgs_iteration> trace;
};

/// Minimises from w = 0 (the store's rows are zeroed first), or, given
/// `resume`, goes on from that state, the store's rows being as they were
/// then. `progress`, if given, is called after every iteration;
/// `checkpoint`, if given, with the state once the first gradient is known
/// (iteration 0) and after every iteration: a failure it returns ends the
/// run with it.
expected<lbfgs_result> run_lbfgs(vector_store& store, data_pass& data, const lbfgs_options& options,
                                 const std::function<void(const lbfgs_iteration&)>& progress = {},
                                 const std::function<status(const lbfgs_state&)>& checkpoint = {},
                                 const lbfgs_state* resume = nullptr);

} // namespace gridvec
