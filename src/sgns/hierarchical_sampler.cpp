#include "src/sgns/hierarchical_sampler.hpp"

#include <cmath>

namespace gridvec {

std::vector<double> hierarchical_sampler::partition_masses(const std::vector<uint64_t>& counts, uint32_t partitions,
                                                           double power) {
  std::vector<double> masses(partitions, 0.0);
  for (size_t w = 0; w < counts.size(); ++w)
    masses[w % partitions] += std::pow(static_cast<double>(counts[w]), power);
  return masses;
}

hierarchical_sampler::hierarchical_sampler(const std::vector<double>& masses, uint32_t mine,
                                           const std::vector<uint64_t>& own_counts, double power)
  : partitions_(masses), own_(alias_sampler::from_counts(own_counts, power)), mine_(mine) {}

double hierarchical_sampler::probability(uint32_t w) const {
  const uint32_t p = partition_count();
  if (p == 0 || w % p != mine_)
    return 0;
  return partitions_.probability(mine_) * own_.probability(w / p);
}

} // namespace gridvec
