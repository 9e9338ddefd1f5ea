#include "src/corpus/vocabulary_layout.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>

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

expected<vocabulary_partition> vocabulary_partition::collect(std::span<bounded_counter> counters, uint64_t min_count) {
  using map = word_map<word_counts::seen>;
  vocabulary_partition part;
  // A counter that spilled nothing gives its map away (no merge by bytes):
  // the largest is kept whole when every word is kept (the usual case at
  // -min-count 1 and with id-like words), the others' kept words are added
  // to it, and a counter that spilled is merged from its runs.
  std::vector<std::optional<map>> taken;
  bool all_kept = true;
  size_t largest = counters.size(), total = 0;
  for (size_t i = 0; i < counters.size(); ++i) {
    part.tokens_ += counters[i].tokens();
    taken.push_back(counters[i].take_words());
    if (!taken.back()) {
      all_kept = false;
      continue;
    }
    const map& words = *taken.back();
    total += words.size();
    part.distinct_ += words.size();
    if (largest == counters.size() || words.size() > taken[largest]->size())
      largest = i;
    words.for_each([&](map::ref r) { all_kept = all_kept && words.value(r).count >= min_count; });
  }
  if (all_kept && largest < counters.size()) {
    part.words_ = std::move(*taken[largest]);
    part.words_.reserve(total);
    taken[largest].reset();
  }
  for (size_t i = 0; i < counters.size(); ++i) {
    if (i == largest && !taken[i])
      continue; // kept whole above
    if (taken[i]) {
      taken[i]->release([&](std::string_view w, word_counts::seen s) {
        if (s.count >= min_count)
          part.words_.insert(w, s);
      });
      continue;
    }
    auto merged = counters[i].merge([&](const counted_word& w) {
      ++part.distinct_;
      if (w.count >= min_count)
        part.words_.insert(w.word, word_counts::seen{w.count, w.first});
    });
    if (!merged)
      return failure{merged.why()};
  }
  // Sorted as (count, first, place) triples, read in arena order: sorting
  // the places alone would fetch two words' values from anywhere in the
  // arena for every comparison. First places are unique, so the order is
  // the same either way.
  struct key {
    uint64_t count;
    uint64_t first;
    map::ref r;
  };
  std::vector<key> keys;
  keys.reserve(part.words_.size());
  part.words_.for_each([&](map::ref r) {
    const word_counts::seen s = part.words_.value(r);
    keys.push_back({s.count, s.first, r});
  });
  std::sort(keys.begin(), keys.end(),
            [](const key& x, const key& y) { return x.count != y.count ? x.count > y.count : x.first < y.first; });
  part.order_.reserve(keys.size());
  for (const key& k : keys)
    part.order_.push_back(k.r);
  return part;
}

count_histogram vocabulary_partition::histogram() const {
  count_histogram h;
  for (auto r : order_) {
    const uint64_t c = words_.value(r).count;
    if (h.empty() || h.back().count != c)
      h.push_back({c, 0});
    ++h.back().words;
  }
  return h;
}

uint64_t vocabulary_partition::earlier(uint64_t count, uint64_t first_limit) const {
  // order_ is sorted by (count descending, first ascending).
  using ref = word_map<word_counts::seen>::ref;
  auto below = std::partition_point(order_.begin(), order_.end(), [&](ref r) {
    const word_counts::seen e = words_.value(r);
    return e.count > count || (e.count == count && e.first < first_limit);
  });
  auto start = std::partition_point(order_.begin(), below, [&](ref r) { return words_.value(r).count > count; });
  return static_cast<uint64_t>(below - start);
}

void vocabulary_partition::assign(const vocabulary_layout& layout, uint32_t partition) {
  // The kept words are a prefix of each count's words in order_, and ids
  // grow along order_ (within a count by rank, and counts decrease): order_
  // cut to the kept words is the id order. When every word is kept its id
  // is written in place; else the kept words are copied into a new map, so
  // that the others are forgotten.
  using map = word_map<word_counts::seen>;
  std::vector<map::ref> kept_order;
  map kept;
  bool every_word = true;
  size_t at = 0;
  for (int pass = 0; pass < 2; ++pass) {
    at = 0;
    while (at < order_.size()) {
      const uint64_t count = words_.value(order_[at]).count;
      size_t end = at;
      while (end < order_.size() && words_.value(order_[end]).count == count)
        ++end;
      const uint64_t keep = std::min<uint64_t>(layout.kept(partition, count), end - at);
      if (pass == 0) {
        every_word = every_word && keep == end - at;
      } else {
        for (uint64_t rank = 0; rank < keep; ++rank) {
          const auto r = order_[at + rank];
          const word_counts::seen numbered{count, layout.id(partition, count, rank)};
          if (every_word) {
            words_.set(r, numbered);
          } else {
            kept_order.push_back(kept.insert(words_.word(r), numbered).first);
          }
        }
      }
      at = end;
    }
    if (pass == 0 && !every_word)
      kept_order.reserve(order_.size());
  }
  if (!every_word) {
    words_ = std::move(kept);
    order_ = std::move(kept_order);
  }
  page_at_ = 0;
  assigned_ = true;
}

void vocabulary_partition::keep_ids_only() {
  if (ids_only_)
    return;
  word_map<uint32_t> ids;
  ids.reserve(words_.size());
  // After assign(), a word's `first` holds its id. Each insert is a cache
  // miss in the new index: the words are taken in arena order (a
  // sequential read) and each one's slot is fetched 16 words ahead.
  constexpr size_t ahead = 16;
  std::vector<word_map<word_counts::seen>::ref> refs;
  refs.reserve(words_.size());
  words_.for_each([&](word_map<word_counts::seen>::ref r) { refs.push_back(r); });
  std::array<uint64_t, ahead> hashes{};
  for (size_t k = 0; k < std::min(ahead, refs.size()); ++k) {
    hashes[k] = word_hash(words_.word(refs[k]));
    ids.prefetch_slot(hashes[k]);
  }
  for (size_t k = 0; k < refs.size(); ++k) {
    const uint64_t h = hashes[k % ahead];
    if (k + ahead < refs.size()) {
      hashes[k % ahead] = word_hash(words_.word(refs[k + ahead]));
      ids.prefetch_slot(hashes[k % ahead]);
    }
    const auto r = refs[k];
    ids.insert(words_.word(r), h, assigned_ ? static_cast<uint32_t>(words_.value(r).first) : vocabulary::npos);
  }
  words_ = word_map<word_counts::seen>{};
  order_ = {};
  page_at_ = 0;
  ids_ = std::move(ids);
  ids_only_ = true;
}

std::vector<uint64_t> vocabulary_layout::counts() const {
  std::vector<uint64_t> out;
  out.reserve(classes_.size());
  for (const auto& k : classes_)
    out.push_back(k.count);
  return out;
}

std::vector<uint64_t> vocabulary_layout::id_counts() const {
  std::vector<uint64_t> out;
  out.reserve(size_);
  for (const auto& k : classes_)
    out.insert(out.end(), k.starts.back(), k.count);
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

expected<vocabulary> assemble_vocabulary(const std::vector<vocabulary_partition>& partitions,
                                         const vocabulary_layout& layout) {
  // Each partition's words come in id order: a merge by id.
  struct word_at {
    std::string_view word;
    uint64_t count;
  };
  std::vector<word_at> words(layout.size(), word_at{{}, 0});
  uint64_t placed = 0;
  for (const auto& part : partitions) {
    bool fine = true;
    part.for_each([&](std::string_view w, uint64_t count, uint64_t, uint32_t id) {
      if (id >= words.size() || words[id].count != 0) {
        fine = false;
        return;
      }
      words[id] = {w, count};
      ++placed;
    });
    if (!fine)
      return failure{"the partitions' word ids overlap or fall outside the vocabulary"};
  }
  if (placed != layout.size())
    return failure{"the partitions hold " + std::to_string(placed) + " words, the layout " +
                   std::to_string(layout.size())};
  vocabulary v;
  v.reserve(words.size());
  for (const auto& w : words)
    if (!v.add_word(w.word, w.count))
      return failure{"the word '" + std::string{w.word} + "' is in two partitions"};
  return v;
}

} // namespace gridvec
