#pragma once
// The correlations gensim's evaluate_word_pairs reports, as scipy computes
// them: Pearson's r, and Spearman's rho (Pearson's r of the two rank
// vectors, tied values sharing the average of their ranks).
#include <vector>

namespace gridvec {

// Ranks 1..n; equal values get the mean of the ranks they span.
std::vector<double> average_ranks(const std::vector<double>& values);

// Both are NaN when fewer than two pairs or either side is constant (as scipy).
double pearson_r(const std::vector<double>& x, const std::vector<double>& y);
double spearman_rho(const std::vector<double>& x, const std::vector<double>& y);

} // namespace gridvec
