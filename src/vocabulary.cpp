#include "src/vocabulary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gridvec {

uint64_t word_key(std::string_view word) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : word) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

void word_counts::merge(const word_counts& other) {
  for (const auto& [word, n] : other.counts_) {
    auto it = counts_.find(std::string_view{word});
    if (it == counts_.end())
      counts_.emplace(word, n);
    else
      it->second += n;
  }
  total_ += other.total_;
}

expected<vocabulary> vocabulary::build(const word_counts& counts, uint64_t min_count,
                                       uint64_t max_size) {
  if (counts.total() == 0)
    return failure{"the corpus contains no words"};
  std::vector<std::pair<const std::string*, uint64_t>> kept;
  for (const auto& [word, n] : counts.map())
    if (n >= min_count)
      kept.emplace_back(&word, n);
  if (kept.empty())
    return failure{"the vocabulary is empty: no word occurs at least " + std::to_string(min_count) +
                   " times (-min-count " + std::to_string(min_count) + ")"};
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : *a.first < *b.first;
  });
  if (max_size > 0 && kept.size() > max_size)
    kept.resize(max_size);
  vocabulary v;
  v.words_.reserve(kept.size());
  v.counts_.reserve(kept.size());
  v.ids_.reserve(kept.size());
  for (const auto& [word, n] : kept) {
    v.ids_.emplace(*word, static_cast<uint32_t>(v.words_.size()));
    v.words_.push_back(*word);
    v.counts_.push_back(n);
    v.train_words_ += n;
  }
  return v;
}

subsampler::subsampler(const vocabulary& vocab, double sample) {
  keep_.resize(vocab.size());
  const double tn = sample * static_cast<double>(vocab.train_words());
  for (uint32_t id = 0; id < vocab.size(); ++id) {
    double p = 1.0;
    if (sample > 0) {
      double c = static_cast<double>(vocab.count(id));
      p = std::min(1.0, (std::sqrt(c / tn) + 1.0) * tn / c);
    }
    keep_[id] = static_cast<uint64_t>(p * 4294967296.0);
  }
}

} // namespace gridvec
