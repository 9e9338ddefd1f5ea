#include "src/alias_sampler.hpp"

#include <cmath>

#include "src/huge_buffer.hpp"

namespace gridvec {

alias_sampler::alias_sampler(const std::vector<double>& weights) {
  const size_t n = weights.size();
  double total = 0;
  for (double w : weights)
    total += w;
  if (n == 0 || total <= 0)
    return;
  // Noise words are random rows of this table: on a large vocabulary, huge
  // pages save a TLB miss per draw.
  table_.reserve(n);
  advise_huge_pages(table_.data(), n * sizeof(entry));
  table_.assign(n, entry{});
  // Scaled probabilities: mean 1. Columns below 1 are topped up by one
  // column above 1 (Vose's stable variant of Walker's method).
  std::vector<double> scaled(n);
  std::vector<uint32_t> small, large;
  for (size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / total;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  constexpr double two32 = 4294967296.0;
  auto set_threshold = [&](uint32_t i, double p) {
    double t = std::floor(p * two32);
    table_[i].threshold = t >= two32 ? 0xFFFFFFFFu : static_cast<uint32_t>(t);
  };
  while (!small.empty() && !large.empty()) {
    uint32_t s = small.back();
    small.pop_back();
    uint32_t l = large.back();
    set_threshold(s, scaled[s]);
    table_[s].alias = l;
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Leftovers are 1 up to rounding: they always keep themselves.
  for (uint32_t i : large)
    table_[i] = {0xFFFFFFFFu, i};
  for (uint32_t i : small)
    table_[i] = {0xFFFFFFFFu, i};
}

alias_sampler alias_sampler::from_counts(const std::vector<uint64_t>& counts, double power) {
  std::vector<double> w(counts.size());
  for (size_t i = 0; i < counts.size(); ++i)
    w[i] = std::pow(static_cast<double>(counts[i]), power);
  return alias_sampler{w};
}

double alias_sampler::probability(uint32_t i) const {
  const double n = static_cast<double>(size());
  constexpr double two32 = 4294967296.0;
  double p = 0;
  for (uint32_t c = 0; c < size(); ++c) {
    const entry& e = table_[c];
    double keep = e.threshold == 0xFFFFFFFFu ? 1.0 : e.threshold / two32;
    if (c == i)
      p += keep / n;
    if (e.alias == i && e.alias != c)
      p += (1.0 - keep) / n;
  }
  return p;
}

} // namespace gridvec
