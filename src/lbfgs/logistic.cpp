#include "src/lbfgs/logistic.hpp"

#include <algorithm>
#include <cmath>

namespace gridvec {

double logistic_loss(double m) { return m > 0 ? std::log1p(std::exp(-m)) : -m + std::log1p(std::exp(m)); }

namespace {

// 1 / (1 + exp(m)): minus the loss's derivative in the margin m.
double sigmoid_neg(double m) {
  if (m >= 0) {
    const double e = std::exp(-m);
    return e / (1 + e);
  }
  return 1 / (1 + std::exp(m));
}

} // namespace

logistic_part make_logistic_part(const svm_data& data, size_t begin, size_t end) {
  logistic_part p;
  const uint64_t from = data.offsets[begin], to = data.offsets[end];
  p.columns.assign(data.columns.begin() + from, data.columns.begin() + to);
  std::sort(p.columns.begin(), p.columns.end());
  p.columns.erase(std::unique(p.columns.begin(), p.columns.end()), p.columns.end());
  p.labels.assign(data.labels.begin() + begin, data.labels.begin() + end);
  p.offsets.reserve(end - begin + 1);
  for (size_t i = begin; i <= end; ++i)
    p.offsets.push_back(data.offsets[i] - from);
  p.local.reserve(to - from);
  for (uint64_t k = from; k < to; ++k)
    p.local.push_back(
      static_cast<uint32_t>(std::lower_bound(p.columns.begin(), p.columns.end(), data.columns[k]) - p.columns.begin()));
  p.values.assign(data.values.begin() + from, data.values.begin() + to);
  return p;
}

void logistic_line(const logistic_part& p, const float* w, const float* d, std::span<const double> steps, double* loss,
                   double* slope) {
  for (size_t i = 0; i < p.labels.size(); ++i) {
    double a = 0, b = 0;
    for (uint64_t k = p.offsets[i]; k < p.offsets[i + 1]; ++k) {
      a += double{p.values[k]} * w[p.local[k]];
      b += double{p.values[k]} * d[p.local[k]];
    }
    const double y = p.labels[i];
    for (size_t j = 0; j < steps.size(); ++j) {
      const double m = y * (a + steps[j] * b);
      loss[j] += logistic_loss(m);
      slope[j] -= y * b * sigmoid_neg(m);
    }
  }
}

double logistic_gradient(const logistic_part& p, const float* w, double* gradient) {
  double loss = 0;
  for (size_t i = 0; i < p.labels.size(); ++i) {
    double a = 0;
    for (uint64_t k = p.offsets[i]; k < p.offsets[i + 1]; ++k)
      a += double{p.values[k]} * w[p.local[k]];
    const double y = p.labels[i], m = y * a;
    loss += logistic_loss(m);
    const double c = -y * sigmoid_neg(m);
    for (uint64_t k = p.offsets[i]; k < p.offsets[i + 1]; ++k)
      gradient[p.local[k]] += c * p.values[k];
  }
  return loss;
}

} // namespace gridvec
