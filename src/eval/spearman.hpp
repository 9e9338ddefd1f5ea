#pragma once
// Spearman's rank correlation as scipy.stats.spearmanr computes it (what
// gensim's evaluate_word_pairs reports): Pearson's r of the two rank
// vectors, tied values sharing the average of their ranks.
#include <vector>

namespace gridvec {

// Ranks 1..n; equal values get the mean of the ranks they span.
std::vector<double> average_ranks(const std::vector<double>& values);

// NaN when fewer than two pairs or either side is constant (as scipy).
double spearman_rho(const std::vector<double>& x, const std::vector<double>& y);

} // namespace gridvec
