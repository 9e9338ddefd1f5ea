#include "src/corpus/vocabulary_partition.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "src/util/on_threads.hpp"

namespace gridvec {

namespace {

// A word as the count order sorts it. Sorted as (count, first, place)
// triples, read in arena order: sorting the places alone would fetch two
// words' values from anywhere in the arena for every comparison. First
// places are unique, so the order is the same either way.
struct order_key {
  uint64_t count;
  uint64_t first;
  uint64_t ref;
};
bool comes_before(const order_key& x, const order_key& y) {
  return x.count != y.count ? x.count > y.count : x.first < y.first;
}

} // namespace

expected<vocabulary_partition> vocabulary_partition::collect(std::span<bounded_counter> counters, uint64_t min_count) {
  const size_t shards = std::max<size_t>(1, counters.size());
  vocabulary_partition part;
  part.words_.resize(shards);
  // Shard by shard, each on its own thread: a counter that spilled
  // nothing gives its map away (no merge by bytes), kept whole when every
  // word is kept (the usual case at -min-count 1 and with id-like words),
  // else its kept words copied; a counter that spilled is merged from its
  // runs. Then the shard's words sorted into the count order.
  std::vector<uint64_t> distinct(shards, 0);
  std::vector<std::optional<failure>> failed(shards);
  std::vector<std::vector<order_key>> keys(shards);
  on_threads(counters.size(), [&](size_t s) {
    seen_map& words = part.words_[s];
    if (auto taken = counters[s].take_words()) {
      distinct[s] = taken->size();
      bool all_kept = true;
      taken->for_each([&](seen_map::ref r) { all_kept = all_kept && taken->value(r).count >= min_count; });
      if (all_kept) {
        words = std::move(*taken);
      } else {
        taken->release([&](std::string_view w, word_counts::seen e) {
          if (e.count >= min_count)
            words.insert(w, e);
        });
      }
    } else {
      auto merged = counters[s].merge([&](const counted_word& w) {
        ++distinct[s];
        if (w.count >= min_count)
          words.insert(w.word, word_counts::seen{w.count, w.first});
      });
      if (!merged) {
        failed[s] = merged.why();
        return;
      }
    }
    keys[s].reserve(words.size());
    words.for_each([&](seen_map::ref r) {
      const word_counts::seen e = words.value(r);
      keys[s].push_back({e.count, e.first, r});
    });
    std::sort(keys[s].begin(), keys[s].end(), comes_before);
  });
  for (size_t s = 0; s < counters.size(); ++s) {
    if (failed[s])
      return *failed[s];
    part.tokens_ += counters[s].tokens();
    part.distinct_ += distinct[s];
  }
  // The shards' orders merged into one (a few shards: the smallest head
  // of each is picked).
  size_t total = 0;
  for (const auto& k : keys)
    total += k.size();
  part.order_.reserve(total);
  std::vector<size_t> at(shards, 0);
  for (size_t n = 0; n < total; ++n) {
    size_t best = shards;
    for (size_t s = 0; s < shards; ++s)
      if (at[s] < keys[s].size() && (best == shards || comes_before(keys[s][at[s]], keys[best][at[best]])))
        best = s;
    part.order_.push_back(place(best, keys[best][at[best]++].ref));
  }
  return part;
}

count_histogram vocabulary_partition::histogram() const {
  count_histogram h;
  for (auto p : order_) {
    const uint64_t c = map_at(p).value(ref_at(p)).count;
    if (h.empty() || h.back().count != c)
      h.push_back({c, 0});
    ++h.back().words;
  }
  return h;
}

uint64_t vocabulary_partition::earlier(uint64_t count, uint64_t first_limit) const {
  // order_ is sorted by (count descending, first ascending).
  auto below = std::partition_point(order_.begin(), order_.end(), [&](uint64_t p) {
    const word_counts::seen e = map_at(p).value(ref_at(p));
    return e.count > count || (e.count == count && e.first < first_limit);
  });
  auto start =
    std::partition_point(order_.begin(), below, [&](uint64_t p) { return map_at(p).value(ref_at(p)).count > count; });
  return static_cast<uint64_t>(below - start);
}

void vocabulary_partition::assign(const vocabulary_layout& layout, uint32_t partition) {
  // The kept words are a prefix of each count's words in order_, and ids
  // grow along order_ (within a count by rank, and counts decrease): order_
  // cut to the kept words is the id order. When every word is kept its id
  // is written in place; else the kept words are copied into new maps, so
  // that the others are forgotten.
  std::vector<uint64_t> kept_order;
  std::vector<seen_map> kept(words_.size());
  bool every_word = true;
  size_t at = 0;
  auto count_at = [&](size_t i) { return map_at(order_[i]).value(ref_at(order_[i])).count; };
  for (int pass = 0; pass < 2; ++pass) {
    at = 0;
    while (at < order_.size()) {
      const uint64_t count = count_at(at);
      size_t end = at;
      while (end < order_.size() && count_at(end) == count)
        ++end;
      const uint64_t keep = std::min<uint64_t>(layout.kept(partition, count), end - at);
      if (pass == 0) {
        every_word = every_word && keep == end - at;
      } else {
        for (uint64_t rank = 0; rank < keep; ++rank) {
          const uint64_t p = order_[at + rank];
          const word_counts::seen numbered{count, layout.id(partition, count, rank)};
          if (every_word) {
            map_at(p).set(ref_at(p), numbered);
          } else {
            const size_t s = p >> shard_shift;
            kept_order.push_back(place(s, kept[s].insert(words_[s].word(ref_at(p)), numbered).first));
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
  std::vector<word_map<uint32_t>> ids(words_.size());
  // Each shard's map on a thread of its own. Each insert is a cache miss
  // in the new index: the words are taken in arena order (a sequential
  // read) and each one's slot is fetched 16 words ahead.
  on_threads(words_.size(), [&](size_t s) {
    constexpr size_t ahead = 16;
    const seen_map& words = words_[s];
    auto& out = ids[s];
    out.reserve(words.size());
    std::vector<seen_map::ref> refs;
    refs.reserve(words.size());
    words.for_each([&](seen_map::ref r) { refs.push_back(r); });
    std::array<uint64_t, ahead> hashes{};
    for (size_t k = 0; k < std::min(ahead, refs.size()); ++k) {
      hashes[k] = word_hash(words.word(refs[k]));
      out.prefetch_slot(hashes[k]);
    }
    for (size_t k = 0; k < refs.size(); ++k) {
      const uint64_t h = hashes[k % ahead];
      if (k + ahead < refs.size()) {
        hashes[k % ahead] = word_hash(words.word(refs[k + ahead]));
        out.prefetch_slot(hashes[k % ahead]);
      }
      const auto r = refs[k];
      out.insert(words.word(r), h, assigned_ ? static_cast<uint32_t>(words.value(r).first) : vocabulary::npos);
    }
  });
  words_.clear();
  order_ = {};
  page_at_ = 0;
  ids_ = std::move(ids);
  ids_only_ = true;
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
