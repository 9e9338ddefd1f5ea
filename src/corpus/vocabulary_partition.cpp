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

// How many words ahead of the one being read a walk in the count order
// asks for its record: the records are anywhere in the arenas, and the
// misses overlap.
constexpr size_t record_ahead = 16;

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
    const order_key& key = keys[best][at[best]++];
    part.order_.push_back(place(best, key.ref));
    if (part.runs_.empty() || part.runs_.back().count != key.count)
      part.runs_.push_back({key.count, 0});
    ++part.runs_.back().words;
  }
  return part;
}

count_histogram vocabulary_partition::histogram() const { return runs_; }

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
  bool every_word = true;
  for (const auto& run : runs_)
    every_word = every_word && layout.kept(partition, run.count) >= run.words;
  std::vector<uint64_t> kept_order;
  count_histogram kept_runs;
  std::vector<seen_map> kept(words_.size());
  if (!every_word)
    kept_order.reserve(order_.size());
  size_t at = 0;
  for (const auto& run : runs_) {
    const uint64_t keep = std::min<uint64_t>(layout.kept(partition, run.count), run.words);
    for (uint64_t rank = 0; rank < keep; ++rank) {
      if (at + rank + record_ahead < order_.size()) {
        const uint64_t ahead = order_[at + rank + record_ahead];
        map_at(ahead).prefetch(ref_at(ahead));
      }
      const uint64_t p = order_[at + rank];
      const word_counts::seen numbered{run.count, layout.id(partition, run.count, rank)};
      if (every_word) {
        map_at(p).set(ref_at(p), numbered);
      } else {
        const size_t s = p >> shard_shift;
        kept_order.push_back(place(s, kept[s].insert(words_[s].word(ref_at(p)), numbered).first));
      }
    }
    if (keep > 0)
      kept_runs.push_back({run.count, keep});
    at += run.words;
  }
  if (!every_word) {
    words_ = std::move(kept);
    order_ = std::move(kept_order);
    runs_ = std::move(kept_runs);
  }
  page_at_ = 0;
  assigned_ = true;
}

void vocabulary_partition::copy_to_page(size_t begin, size_t end, count_table& page) const {
  // Each record is fetched record_ahead words before it is read.
  for (size_t k = begin; k < std::min(end, begin + record_ahead); ++k)
    map_at(order_[k]).prefetch(ref_at(order_[k]));
  for (size_t k = begin; k < end; ++k) {
    if (k + record_ahead < end)
      map_at(order_[k + record_ahead]).prefetch(ref_at(order_[k + record_ahead]));
    const uint64_t p = order_[k];
    const seen_map& words = map_at(p);
    page.add(words.word(ref_at(p)), words.value(ref_at(p)).count, 0);
  }
}

void vocabulary_partition::fill_lookup_map(size_t begin, size_t end, size_t shard) {
  // Only this shard's words, in order: their records are fetched
  // record_ahead words before they are read, and their slots in the map
  // slot_ahead words before (the record is in the cache by then).
  constexpr size_t slot_ahead = 8;
  std::vector<uint64_t>& mine = shard_pages_[shard];
  mine.clear();
  for (size_t k = begin; k < end; ++k)
    if ((order_[k] >> shard_shift) == shard)
      mine.push_back(order_[k]);
  const seen_map& words = words_[shard];
  word_map<uint32_t>& ids = paged_ids_[shard];
  std::array<uint64_t, slot_ahead> hashes{};
  auto fetch_slot = [&](size_t i) {
    hashes[i % slot_ahead] = word_hash(words.word(ref_at(mine[i])));
    ids.prefetch_slot(hashes[i % slot_ahead]);
  };
  const size_t n = mine.size();
  for (size_t i = 0; i < std::min(n, record_ahead); ++i)
    words.prefetch(ref_at(mine[i]));
  for (size_t i = 0; i < std::min(n, slot_ahead); ++i)
    fetch_slot(i);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = hashes[i % slot_ahead];
    if (i + record_ahead < n)
      words.prefetch(ref_at(mine[i + record_ahead]));
    if (i + slot_ahead < n)
      fetch_slot(i + slot_ahead);
    const seen_map::ref r = ref_at(mine[i]);
    ids.insert(words.word(r), h, static_cast<uint32_t>(words.value(r).first));
  }
}

size_t vocabulary_partition::next_page(size_t most, count_table& page) {
  const size_t begin = page_at_, end = std::min(order_.size(), page_at_ + std::min(most, order_.size()));
  if (begin == end) {
    paged_every_word_ = begin > 0 && begin == order_.size() && !paged_ids_.empty();
    order_.clear();
    order_.shrink_to_fit();
    shard_pages_ = {};
    runs_.clear();
    page_at_ = 0;
    return 0;
  }
  if (begin == 0) {
    paged_ids_.assign(words_.size(), {});
    for (size_t s = 0; s < words_.size(); ++s)
      paged_ids_[s].reserve(words_[s].size());
  }
  const size_t n = end - begin;
  page.words.reserve(page.words.size() + n * page_word_bytes_ + n / 8);
  page.lengths.reserve(page.size() + n);
  page.counts.reserve(page.size() + n);
  page.firsts.reserve(page.size() + n);
  const size_t bytes_before = page.words.size();
  // The page and each shard's lookup map are walks over the same records,
  // one a thread: the walks wait on memory, not on each other, and nothing
  // else runs in a partition while it pages.
  shard_pages_.resize(words_.size());
  on_threads(1 + words_.size(), [&](size_t walk) {
    if (walk == 0)
      copy_to_page(begin, end, page);
    else
      fill_lookup_map(begin, end, walk - 1);
  });
  page_word_bytes_ = (page.words.size() - bytes_before) / n + 1;
  page_at_ = end;
  return n;
}

void vocabulary_partition::ids_of(std::string_view words, const std::vector<uint32_t>& lengths,
                                  std::vector<uint32_t>& ids, lookup_scratch& scratch) const {
  ids.assign(lengths.size(), vocabulary::npos);
  if (!ids_only_) {
    size_t at = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      ids[i] = id_of(words.substr(at, lengths[i]));
      at += lengths[i];
    }
    return;
  }
  constexpr size_t slot_ahead = 16, record_ahead = 8;
  const size_t n = lengths.size();
  auto& hashes = scratch.hashes;
  auto& starts = scratch.starts;
  hashes.resize(n);
  starts.resize(n);
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    starts[i] = at;
    hashes[i] = word_hash(words.substr(at, lengths[i]));
    at += lengths[i];
  }
  auto map_of = [&](size_t i) -> const word_map<uint32_t>& { return ids_[shard_of(hashes[i], ids_.size())]; };
  for (size_t i = 0; i < n; ++i) {
    if (i + slot_ahead < n)
      map_of(i + slot_ahead).prefetch_slot(hashes[i + slot_ahead]);
    if (i + record_ahead < n)
      map_of(i + record_ahead).prefetch_record(hashes[i + record_ahead]);
    const auto& map = map_of(i);
    if (const auto r = map.find(words.substr(starts[i], lengths[i]), hashes[i]); r != 0)
      ids[i] = map.value(r);
  }
}

void vocabulary_partition::keep_ids_only() {
  if (ids_only_)
    return;
  if (!paged_every_word_) {
    // Paging did not go through every word (it was never asked for, or
    // the partition holds none): the maps are made here, word by word.
    paged_ids_.assign(words_.size(), {});
    for (size_t s = 0; s < words_.size(); ++s) {
      const seen_map& words = words_[s];
      paged_ids_[s].reserve(words.size());
      words.for_each([&](seen_map::ref r) {
        paged_ids_[s].insert(words.word(r), assigned_ ? static_cast<uint32_t>(words.value(r).first) : vocabulary::npos);
      });
    }
  }
  words_.clear();
  order_ = {};
  runs_ = {};
  page_at_ = 0;
  ids_ = std::move(paged_ids_);
  paged_ids_ = {};
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
