#include "src/corpus/vocabulary_layout.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace gridvec {

expected<vocabulary_layout> vocabulary_layout::decide(const std::vector<count_histogram>& histograms, uint64_t tokens,
                                                      uint64_t min_count, uint64_t max_size,
                                                      const earlier_fn& earlier) {
  if (tokens == 0)
    return failure{"the corpus contains no words"};
  const auto partitions = static_cast<uint32_t>(histograms.size());
  // count -> words of each partition, most frequent first.
  std::map<uint64_t, std::vector<uint64_t>, std::greater<>> classes;
  for (uint32_t p = 0; p < partitions; ++p)
    for (const count_class& c : histograms[p])
      if (c.count >= min_count && c.words > 0) {
        auto& words = classes[c.count];
        words.resize(partitions);
        words[p] += c.words;
      }
  vocabulary_layout layout;
  layout.partitions_ = partitions;
  for (auto& entry : classes) {
    const uint64_t count = entry.first;
    std::vector<uint64_t>& words = entry.second;
    uint64_t total = 0;
    for (uint64_t n : words)
      total += n;
    if (max_size > 0 && layout.size_ + total > max_size) {
      // -max-vocab cuts through this count: keep its words that appeared
      // first, as one process does. Find the smallest place L such that
      // the words first seen before L number what is left; first places
      // are distinct (each is one token's), so exactly that many are.
      const uint64_t need = max_size - layout.size_;
      auto before = [&](uint64_t limit) {
        uint64_t n = 0;
        for (uint32_t p = 0; p < partitions; ++p)
          if (words[p] > 0)
            n += earlier(p, count, limit);
        return n;
      };
      uint64_t lo = 0, hi = std::numeric_limits<uint64_t>::max();
      while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (before(mid) >= need)
          hi = mid;
        else
          lo = mid + 1;
      }
      total = 0;
      for (uint32_t p = 0; p < partitions; ++p) {
        words[p] = words[p] > 0 ? earlier(p, count, lo) : 0;
        total += words[p];
      }
      if (total != need)
        return failure{"the partitions' words of count " + std::to_string(count) +
                       " do not have distinct first places: -max-vocab cannot be cut among them"};
    }
    kept_class k{count, layout.size_, std::vector<uint64_t>(partitions + 1, 0)};
    for (uint32_t p = 0; p < partitions; ++p)
      k.starts[p + 1] = k.starts[p] + words[p];
    layout.size_ += total;
    layout.train_words_ += total * count;
    layout.classes_.push_back(std::move(k));
    if (max_size > 0 && layout.size_ >= max_size)
      break;
  }
  if (layout.size_ == 0)
    return failure{"the vocabulary is empty: no word occurs at least " + std::to_string(min_count) +
                   " times (-min-count " + std::to_string(min_count) + ")"};
  if (layout.size_ > vocabulary::max_words)
    return failure{"the vocabulary would hold " + std::to_string(layout.size_) + " words, more than the " +
                   std::to_string(vocabulary::max_words) +
                   " that 32-bit word ids can number (raise -min-count or give -max-vocab)"};
  return layout;
}

const vocabulary_layout::kept_class* vocabulary_layout::find(uint64_t count) const {
  auto it = std::lower_bound(classes_.begin(), classes_.end(), count,
                             [](const kept_class& k, uint64_t c) { return k.count > c; });
  return it != classes_.end() && it->count == count ? &*it : nullptr;
}

uint64_t vocabulary_layout::kept(uint32_t partition, uint64_t count) const {
  const kept_class* k = find(count);
  return k == nullptr || partition >= partitions_ ? 0 : k->starts[partition + 1] - k->starts[partition];
}

uint64_t vocabulary_layout::id(uint32_t partition, uint64_t count, uint64_t rank) const {
  const kept_class* k = find(count);
  return k->first_id + k->starts[partition] + rank;
}

std::vector<uint64_t> vocabulary_layout::counts() const {
  std::vector<uint64_t> out;
  out.reserve(classes_.size());
  for (const auto& k : classes_)
    out.push_back(k.count);
  return out;
}

count_histogram vocabulary_layout::id_count_runs() const {
  count_histogram out;
  out.reserve(classes_.size());
  for (const auto& k : classes_)
    if (k.starts.back() > 0)
      out.push_back({k.count, k.starts.back()});
  return out;
}

// partitions, size, train words, classes; then each class's count, first
// id and its P + 1 starts.
std::vector<uint64_t> vocabulary_layout::encode() const {
  std::vector<uint64_t> code{partitions_, size_, train_words_, classes_.size()};
  for (const auto& k : classes_) {
    code.push_back(k.count);
    code.push_back(k.first_id);
    code.insert(code.end(), k.starts.begin(), k.starts.end());
  }
  return code;
}

expected<vocabulary_layout> vocabulary_layout::decode(const std::vector<uint64_t>& code) {
  const failure bad{"a vocabulary layout that does not add up"};
  if (code.size() < 4 || code[0] == 0 || code[0] > max_partitions)
    return bad;
  vocabulary_layout layout;
  layout.partitions_ = static_cast<uint32_t>(code[0]);
  const uint64_t per_class = 2 + uint64_t{layout.partitions_} + 1;
  if (code[3] != (code.size() - 4) / per_class || (code.size() - 4) % per_class != 0)
    return bad;
  // Every class follows the last, with fewer occurrences, and the kept
  // words and their occurrences add up to the header's.
  uint64_t id = 0, train_words = 0, previous = std::numeric_limits<uint64_t>::max();
  for (size_t at = 4; at < code.size(); at += per_class) {
    kept_class k{code[at], code[at + 1],
                 std::vector<uint64_t>(code.begin() + static_cast<ptrdiff_t>(at + 2),
                                       code.begin() + static_cast<ptrdiff_t>(at + per_class))};
    if (k.count == 0 || k.count >= previous || k.first_id != id || k.starts.front() != 0 ||
        !std::is_sorted(k.starts.begin(), k.starts.end()) || k.starts.back() > vocabulary::max_words)
      return bad;
    const uint64_t words = k.starts.back();
    if (words > std::numeric_limits<uint64_t>::max() / k.count)
      return bad;
    id += words;
    train_words += words * k.count;
    previous = k.count;
    layout.classes_.push_back(std::move(k));
  }
  layout.size_ = code[1];
  layout.train_words_ = code[2];
  if (id != layout.size_ || train_words != layout.train_words_ || layout.size_ > vocabulary::max_words)
    return bad;
  return layout;
}

} // namespace gridvec
