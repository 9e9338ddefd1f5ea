#pragma once
// The logistic loss sum_i log(1 + exp(-y_i w.x_i)) over one learner's
// share of the examples, with the columns it touches renumbered 0..k-1 so
// that it reads the model at those k columns only (a sparse fetch) and
// sends its gradient back the same way (a sparse increment).
#include <cstdint>
#include <span>
#include <vector>

#include "src/lbfgs/svm_data.hpp"

namespace gridvec {

struct logistic_part {
  std::vector<uint32_t> columns; // the global columns it touches, sorted, each once
  std::vector<float> labels;
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> local; // positions in `columns`
  std::vector<float> values;
};

/// Examples [begin, end) of `data`.
logistic_part make_logistic_part(const svm_data& data, size_t begin, size_t end);

/// For each step t: loss[j] and slope[j] (the derivative along d) at w + t d,
/// w and d given at the part's columns. Adds to loss and slope.
void logistic_line(const logistic_part& part, const float* w, const float* d, std::span<const double> steps,
                   double* loss, double* slope);

/// The loss at w; its gradient at the part's columns is added to `gradient`.
double logistic_gradient(const logistic_part& part, const float* w, double* gradient);

/// log(1 + exp(-m)), without overflow.
double logistic_loss(double margin);

} // namespace gridvec
