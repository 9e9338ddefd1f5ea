#include "src/eval/correlation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gridvec {

std::vector<double> average_ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
      ++j;
    // Positions i..j (0-based) hold ranks i+1..j+1; each gets their mean.
    const double mean_rank = (static_cast<double>(i + j) / 2.0) + 1.0;
    for (size_t k = i; k <= j; ++k)
      ranks[order[k]] = mean_rank;
    i = j + 1;
  }
  return ranks;
}

double pearson_r(const std::vector<double>& x, const std::vector<double>& y) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (x.size() != y.size() || x.size() < 2)
    return nan;
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0)
    return nan;
  return sxy / std::sqrt(sxx * syy);
}

double spearman_rho(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2)
    return std::numeric_limits<double>::quiet_NaN();
  return pearson_r(average_ranks(x), average_ranks(y));
}

} // namespace gridvec
