#include "src/sgns/noise_sampler.hpp"

namespace gridvec {

const char* negatives_mode_name(negatives_mode m) {
  switch (m) {
    case negatives_mode::sns: return "sns";
    case negatives_mode::tns: return "tns";
    default: return "bns";
  }
}

bool parse_negatives_mode(const std::string& text, negatives_mode& out) {
  for (auto m : {negatives_mode::bns, negatives_mode::sns, negatives_mode::tns})
    if (text == negatives_mode_name(m)) {
      out = m;
      return true;
    }
  return false;
}

noise_sampler::noise_sampler(const std::vector<uint64_t>& counts, noise_spec spec) : spec_(spec) {
  if (spec_.partitions == 0)
    spec_.partitions = 1;
  if (spec_.negatives == negatives_mode::bns && !spec_.hierarchical) {
    whole_.emplace(alias_sampler::from_counts(counts));
    return;
  }
  const uint32_t p = spec_.partitions;
  const auto masses = hierarchical_sampler::partition_masses(counts, p);
  parts_.reserve(p);
  std::vector<uint64_t> own;
  for (uint32_t k = 0; k < p; ++k) {
    own.clear();
    for (size_t w = k; w < counts.size(); w += p)
      own.push_back(counts[w]);
    parts_.emplace_back(masses, k, own);
  }
}

uint32_t noise_sampler::draw_one(rng& r, uint32_t positive) const {
  if (whole_) {
    uint32_t w = whole_->draw(r);
    for (int tries = 0; w == positive && tries < max_redraws; ++tries)
      w = whole_->draw(r);
    return w;
  }
  uint32_t w = positive;
  for (int tries = 0; w == positive && tries <= max_redraws; ++tries)
    w = parts_[parts_[0].draw_partition(r)].draw_own_word(r);
  return w;
}

void noise_sampler::draw_for_pair(rng& r, uint32_t positive, uint32_t n, std::vector<uint32_t>& out) const {
  switch (spec_.negatives) {
    case negatives_mode::bns:
      for (uint32_t i = 0; i < n; ++i)
        out.push_back(draw_one(r, positive));
      return;
    case negatives_mode::sns: {
      const uint32_t k = parts_[0].draw_partition(r);
      for (uint32_t i = 0; i < n; ++i)
        out.push_back(parts_[k].draw_own_word_except(r, positive));
      return;
    }
    case negatives_mode::tns: {
      const uint32_t k = positive % spec_.partitions;
      for (uint32_t i = 0; i < n; ++i)
        out.push_back(parts_[k].draw_own_word_except(r, positive));
      return;
    }
  }
}

uint64_t noise_sampler::bytes() const {
  uint64_t total = whole_ ? whole_->bytes() : 0;
  for (const auto& part : parts_)
    total += part.bytes();
  return total;
}

uint64_t noise_sampler::partition_bytes(uint32_t k) const { return k < parts_.size() ? parts_[k].bytes() : bytes(); }

} // namespace gridvec
