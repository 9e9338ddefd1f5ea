#include "src/sgns/alias_sampler.hpp"

#include <cmath>

#include "src/util/huge_buffer.hpp"

namespace gridvec {

alias_sampler::alias_sampler(const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights)
    total += w;
  if (weights.empty() || total <= 0)
    return;
  // Runs of consecutive equal weights; each is one column of the table,
  // weighted by its size.
  struct run {
    uint32_t first, size;
    double weight;
  };
  std::vector<run> runs;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (i > 0 && weights[i] == weights[i - 1]) {
      ++runs.back().size;
      runs.back().weight += weights[i];
      continue;
    }
    runs.push_back(run{static_cast<uint32_t>(i), 1, weights[i]});
  }
  words_ = static_cast<uint32_t>(weights.size());
  const size_t n = runs.size();
  // Scaled probabilities: mean 1. Columns below 1 are topped up by one
  // column above 1 (Vose's stable variant of Walker's method).
  std::vector<double> scaled(n);
  std::vector<uint32_t> thresholds(n, 0xFFFFFFFFu), aliases(n), small, large;
  for (size_t i = 0; i < n; ++i) {
    aliases[i] = static_cast<uint32_t>(i);
    scaled[i] = runs[i].weight * static_cast<double>(n) / total;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  constexpr double two32 = 4294967296.0;
  while (!small.empty() && !large.empty()) {
    uint32_t s = small.back();
    small.pop_back();
    uint32_t l = large.back();
    const double t = std::floor(scaled[s] * two32);
    thresholds[s] = t >= two32 ? 0xFFFFFFFFu : static_cast<uint32_t>(t);
    aliases[s] = l;
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Leftovers (in `large` or `small`) are 1 up to rounding: they always
  // keep themselves, as initialised.

  // Where nearly every weight differs the table is as large as the
  // vocabulary; huge pages then save a TLB miss per draw.
  table_.reserve(n);
  advise_huge_pages(table_.data(), n * sizeof(entry));
  for (size_t i = 0; i < n; ++i) {
    const run& keep = runs[i];
    const run& alias = runs[aliases[i]];
    table_.push_back(entry{thresholds[i], {{keep.first, keep.size}, {alias.first, alias.size}}});
  }
}

alias_sampler alias_sampler::from_counts(const std::vector<uint64_t>& counts, double power) {
  std::vector<double> w(counts.size());
  for (size_t i = 0; i < counts.size(); ++i)
    w[i] = std::pow(static_cast<double>(counts[i]), power);
  return alias_sampler{w};
}

double alias_sampler::probability(uint32_t i) const {
  if (i >= words_)
    return 0;
  // The run holding word i: the last one starting at or before it.
  uint32_t r = 0;
  for (uint32_t lo = 0, hi = runs(); lo < hi;) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (table_[mid].run_or_alias[0].first <= i) {
      r = mid;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const uint32_t first = table_[r].run_or_alias[0].first;
  const double n = static_cast<double>(runs());
  constexpr double two32 = 4294967296.0;
  double p = 0;
  for (uint32_t c = 0; c < runs(); ++c) {
    const entry& e = table_[c];
    double keep = e.threshold == 0xFFFFFFFFu ? 1.0 : e.threshold / two32;
    // Runs are told apart by their first word.
    if (c == r)
      p += keep / n;
    const uint32_t alias = e.run_or_alias[1].first;
    if (alias == first && alias != e.run_or_alias[0].first)
      p += (1.0 - keep) / n;
  }
  return p / table_[r].run_or_alias[0].size;
}

} // namespace gridvec
