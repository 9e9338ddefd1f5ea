#include "src/lbfgs/lbfgs.hpp"

#include <algorithm>
#include <cmath>

namespace gridvec {

namespace {

using R = lbfgs_rows;

expected<double> dot1(vector_store& store, uint64_t a, uint64_t b) {
  auto d = store.dot(std::span<const uint64_t>(&a, 1), std::span<const uint64_t>(&b, 1));
  if (!d)
    return failure{d.error()};
  return (*d)[0];
}

} // namespace

status lbfgs_direction(vector_store& store, const std::vector<lbfgs_pair>& history, double gamma) {
  if (auto ok = store.copy(R::g, R::d); !ok)
    return ok;
  std::vector<double> alpha(history.size());
  for (size_t k = history.size(); k-- > 0;) {
    auto sq = dot1(store, R::s(history[k].slot), R::d);
    if (!sq)
      return failure{sq.error()};
    alpha[k] = history[k].rho * *sq;
    if (auto ok = store.axpy(-alpha[k], R::y(history[k].slot), R::d); !ok)
      return ok;
  }
  if (auto ok = store.scal(gamma, R::d); !ok)
    return ok;
  for (size_t k = 0; k < history.size(); ++k) {
    auto yr = dot1(store, R::y(history[k].slot), R::d);
    if (!yr)
      return failure{yr.error()};
    const double beta = history[k].rho * *yr;
    if (auto ok = store.axpy(alpha[k] - beta, R::s(history[k].slot), R::d); !ok)
      return ok;
  }
  return store.scal(-1.0, R::d);
}

int choose_step(double f0, double slope0, std::span<const double> steps, std::span<const double> f,
                std::span<const double> slope, const line_search_options& o) {
  int wolfe = -1, armijo = -1;
  for (size_t j = 0; j < steps.size(); ++j) {
    if (!std::isfinite(f[j]) || !(f[j] <= f0 + o.c1 * steps[j] * slope0))
      continue;
    if (armijo < 0 || f[j] < f[armijo])
      armijo = static_cast<int>(j);
    if (std::abs(slope[j]) <= o.c2 * std::abs(slope0) && (wolfe < 0 || f[j] < f[wolfe]))
      wolfe = static_cast<int>(j);
  }
  return wolfe >= 0 ? wolfe : armijo;
}

expected<lbfgs_result> run_lbfgs(vector_store& store, data_pass& data, const lbfgs_options& o,
                                 const std::function<void(const lbfgs_iteration&)>& progress,
                                 const std::function<status(const lbfgs_state&)>& checkpoint,
                                 const lbfgs_state* resume) {
  if (o.memory == 0 || o.steps_per_pass == 0 || o.max_passes == 0)
    return failure{"L-BFGS needs a history of at least one pair and at least one step per pass"};
  if (resume && (resume->next_slot >= o.memory || std::any_of(resume->history.begin(), resume->history.end(),
                                                              [&](const lbfgs_pair& p) { return p.slot >= o.memory; })))
    return failure{"L-BFGS: the state to resume from has another history length"};
  lbfgs_result result;
  // f(w) with grad f(w) left in row g_new.
  auto objective_and_gradient = [&]() -> expected<double> {
    if (auto ok = store.zero(R::g_new); !ok)
      return failure{ok.error()};
    auto loss = data.gradient();
    if (!loss)
      return failure{loss.error()};
    ++result.data_passes;
    if (auto ok = store.axpy(o.l2, R::w, R::g_new); !ok)
      return failure{ok.error()};
    auto ww = dot1(store, R::w, R::w);
    if (!ww)
      return failure{ww.error()};
    return *loss + 0.5 * o.l2 * *ww;
  };
  double fx = 0, gnorm = 0;
  std::vector<lbfgs_pair> history; // oldest first
  double gamma = 1.0;
  uint32_t next_slot = 0, first = 1;
  if (resume) {
    fx = resume->objective;
    gnorm = resume->gradient_norm;
    history = resume->history;
    gamma = resume->gamma;
    next_slot = resume->next_slot;
    first = resume->iteration + 1;
    result.data_passes = resume->data_passes;
    result.trace = resume->trace;
    result.iterations = resume->iteration;
  } else {
    for (uint64_t r = 0; r < R::count(o.memory); ++r)
      if (auto ok = store.zero(r); !ok)
        return failure{ok.error()};
    auto f = objective_and_gradient();
    if (!f)
      return failure{f.error()};
    if (auto ok = store.copy(R::g_new, R::g); !ok)
      return failure{ok.error()};
    auto gg = dot1(store, R::g, R::g);
    if (!gg)
      return failure{gg.error()};
    fx = *f;
    gnorm = std::sqrt(*gg);
  }
  // What a checkpoint keeps of the run as it stands after iteration `done`.
  auto state_after = [&](uint32_t done) {
    lbfgs_state st;
    st.iteration = done;
    st.objective = fx;
    st.gradient_norm = gnorm;
    st.gamma = gamma;
    st.history = history;
    st.next_slot = next_slot;
    st.data_passes = result.data_passes;
    st.trace = result.trace;
    return st;
  };
  if (checkpoint && !resume)
    if (auto ok = checkpoint(state_after(0)); !ok)
      return failure{ok.error()};
  const double gtol = o.gtol * std::max(1.0, o.examples);
  result.stopped = "the iteration limit";
  for (uint32_t it = first; it <= o.max_iterations; ++it) {
    if (gnorm <= gtol) {
      result.stopped = "the gradient's norm";
      break;
    }
    if (auto ok = lbfgs_direction(store, history, gamma); !ok)
      return failure{ok.error()};
    const std::vector<uint64_t> a{R::d, R::w, R::d}, b{R::g, R::d, R::d};
    auto dots = store.dot(a, b);
    if (!dots)
      return failure{dots.error()};
    if ((*dots)[0] >= 0) {
      // Not a descent direction (rounding in a long history): start over
      // from steepest descent.
      history.clear();
      gamma = 1.0;
      if (auto ok = store.copy(R::g, R::d); !ok)
        return failure{ok.error()};
      if (auto ok = store.scal(-1.0, R::d); !ok)
        return failure{ok.error()};
      dots = store.dot(a, b);
      if (!dots)
        return failure{dots.error()};
    }
    const double slope0 = (*dots)[0], wd = (*dots)[1], dd = (*dots)[2];
    auto ww = dot1(store, R::w, R::w);
    if (!ww)
      return failure{ww.error()};
    // Without history the direction is the gradient's: start with a step
    // of length 1, as with a curvature-scaled one the natural step is 1.
    double top = history.empty() ? 1.0 / std::sqrt(dd) : 1.0;
    int chosen = -1;
    std::vector<double> steps, fs, slopes;
    uint32_t passes = 0;
    for (uint32_t pass = 0; pass < o.max_passes && chosen < 0; ++pass) {
      // The first pass also tries one longer step.
      steps.clear();
      double step = pass == 0 ? 2 * top : top;
      for (uint32_t j = 0; j < o.steps_per_pass; ++j, step /= 2)
        steps.push_back(step);
      top = step;
      auto values = data.evaluate(steps);
      if (!values)
        return failure{values.error()};
      ++passes;
      ++result.data_passes;
      fs.assign(steps.size(), 0);
      slopes.assign(steps.size(), 0);
      for (size_t j = 0; j < steps.size(); ++j) {
        const double t = steps[j];
        fs[j] = values->loss[j] + 0.5 * o.l2 * (*ww + 2 * t * wd + t * t * dd);
        slopes[j] = values->slope[j] + o.l2 * (wd + t * dd);
      }
      chosen = choose_step(fx, slope0, steps, fs, slopes, o.search);
    }
    if (chosen < 0) {
      result.stopped = "the line search, which found no step that lowers the objective";
      break;
    }
    const double step = steps[chosen];
    const uint32_t slot = next_slot;
    next_slot = (next_slot + 1) % o.memory;
    std::erase_if(history, [&](const lbfgs_pair& p) { return p.slot == slot; });
    // s = step d; w += s.
    if (auto ok = store.copy(R::d, R::s(slot)); !ok)
      return failure{ok.error()};
    if (auto ok = store.scal(step, R::s(slot)); !ok)
      return failure{ok.error()};
    if (auto ok = store.axpy(1.0, R::s(slot), R::w); !ok)
      return failure{ok.error()};
    auto f_new = objective_and_gradient();
    if (!f_new)
      return failure{f_new.error()};
    // y = g_new - g; g = g_new.
    if (auto ok = store.copy(R::g_new, R::y(slot)); !ok)
      return failure{ok.error()};
    if (auto ok = store.axpy(-1.0, R::g, R::y(slot)); !ok)
      return failure{ok.error()};
    if (auto ok = store.copy(R::g_new, R::g); !ok)
      return failure{ok.error()};
    const std::vector<uint64_t> a2{R::s(slot), R::y(slot), R::g}, b2{R::y(slot), R::y(slot), R::g};
    auto after = store.dot(a2, b2);
    if (!after)
      return failure{after.error()};
    const double sy = (*after)[0], yy = (*after)[1];
    gnorm = std::sqrt((*after)[2]);
    if (sy > 1e-12 * yy && yy > 0) { // keep only pairs of positive curvature
      history.push_back({slot, 1.0 / sy});
      gamma = sy / yy;
    }
    const double decrease = (fx - *f_new) / std::max({std::abs(fx), std::abs(*f_new), 1.0});
    fx = *f_new;
    lbfgs_iteration rec{it, fx, gnorm, step, passes};
    result.trace.push_back(rec);
    result.iterations = it;
    if (progress)
      progress(rec);
    if (checkpoint)
      if (auto ok = checkpoint(state_after(it)); !ok)
        return failure{ok.error()};
    if (decrease <= o.ftol) {
      result.stopped = "the objective's relative decrease";
      break;
    }
  }
  result.objective = fx;
  result.gradient_norm = gnorm;
  return result;
}

} // namespace gridvec
