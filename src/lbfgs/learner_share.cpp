#include "src/lbfgs/learner_share.hpp"

#include <algorithm>

namespace gridvec {

share_range share_of(uint64_t examples, uint32_t k, uint32_t count) {
  // floor(examples * i / count), without overflow.
  auto bound = [&](uint64_t i) { return examples / count * i + examples % count * i / count; };
  return {bound(k), bound(uint64_t{k} + 1)};
}

expected<line_values> share_line(sparse_model& model, const logistic_part& part, std::span<const double> steps) {
  line_values v{std::vector<double>(steps.size(), 0.0), std::vector<double>(steps.size(), 0.0)};
  const uint64_t rows[] = {lbfgs_rows::w, lbfgs_rows::d};
  auto wd = model.fetch_rows(rows, part.columns);
  if (!wd)
    return failure{wd.error()};
  const size_t k = part.columns.size();
  logistic_line(part, wd->data(), wd->data() + k, steps, v.loss.data(), v.slope.data());
  return v;
}

expected<double> share_gradient(sparse_model& model, const logistic_part& part) {
  const uint64_t rows[] = {lbfgs_rows::w};
  auto w = model.fetch_rows(rows, part.columns);
  if (!w)
    return failure{w.error()};
  std::vector<double> g(part.columns.size(), 0.0);
  const double loss = logistic_gradient(part, w->data(), g.data());
  std::vector<float> gf(g.begin(), g.end());
  if (auto ok = model.increment(lbfgs_rows::g_new, part.columns, gf); !ok)
    return failure{ok.error()};
  return loss;
}

expected<uint64_t> share_correct(sparse_model& model, const logistic_part& part) {
  const uint64_t rows[] = {lbfgs_rows::w};
  auto w = model.fetch_rows(rows, part.columns);
  if (!w)
    return failure{w.error()};
  uint64_t count = 0;
  for (size_t e = 0; e < part.labels.size(); ++e) {
    double a = 0;
    for (uint64_t k = part.offsets[e]; k < part.offsets[e + 1]; ++k)
      a += double{part.values[k]} * (*w)[part.local[k]];
    count += a * part.labels[e] > 0;
  }
  return count;
}

void add_line_values(line_values& sum, const line_values& part) {
  if (sum.loss.empty()) {
    sum.loss.assign(part.loss.size(), 0.0);
    sum.slope.assign(part.slope.size(), 0.0);
  }
  for (size_t j = 0; j < sum.loss.size() && j < part.loss.size(); ++j)
    sum.loss[j] += part.loss[j];
  for (size_t j = 0; j < sum.slope.size() && j < part.slope.size(); ++j)
    sum.slope[j] += part.slope[j];
}

std::vector<uint32_t> reassign_shares(const std::vector<uint32_t>& owner, const std::vector<bool>& alive) {
  std::vector<uint32_t> load(alive.size(), 0);
  bool any = false;
  for (size_t l = 0; l < alive.size(); ++l)
    any = any || alive[l];
  if (!any)
    return {};
  for (uint32_t o : owner)
    if (o < alive.size() && alive[o])
      ++load[o];
  std::vector<uint32_t> out = owner;
  for (auto& o : out) {
    if (o < alive.size() && alive[o])
      continue;
    uint32_t best = 0;
    bool found = false;
    for (uint32_t l = 0; l < alive.size(); ++l)
      if (alive[l] && (!found || load[l] < load[best])) {
        best = l;
        found = true;
      }
    o = best;
    ++load[best];
  }
  return out;
}

} // namespace gridvec
