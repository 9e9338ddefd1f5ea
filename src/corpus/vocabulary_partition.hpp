#pragma once
// One vocabulary partition's words (src/corpus/vocabulary_layout.hpp says
// how partitions decide the vocabulary together): the words of count >=
// min-count it counted, then their ids, and from keep_ids_only() on only
// the words and their ids, for the join's lookups.
//
// The words stay split into the counter's shards (word_shard_of_hash),
// one map each. Taking the counters' words and sorting them by count is
// done shard by shard, each on a thread of its own, and no shard's words
// are ever copied into another's map (with one map, joining the shards'
// words and rebuilding the map for lookups took half of the wall time of
// counting 3M distinct words on 2 cores). The lookup maps are filled as
// the words are paged out in id order, each record read once.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/vocabulary.hpp>
#include <gridvec/core/word_map.hpp>
#include "src/corpus/bounded_counter.hpp"
#include "src/corpus/sharded_counter.hpp"
#include "src/corpus/vocabulary_layout.hpp"

namespace gridvec {

class vocabulary_partition {
public:
  /// Takes the counter's words (merging its runs) with count >= min_count.
  static expected<vocabulary_partition> collect(bounded_counter& counter, uint64_t min_count) {
    return collect(std::span<bounded_counter>{&counter, 1}, min_count);
  }
  /// The same over a sharded_counter's shards, which hold the words
  /// word_shard_of_hash gives them. Each shard's words are kept as its
  /// own map where nothing was spilled and every word is kept (taken
  /// whole, not copied), otherwise as a copy of its kept words.
  static expected<vocabulary_partition> collect(std::span<bounded_counter> counters, uint64_t min_count);

  /// A partition that only looks words up: `ids` maps each of its words to
  /// its id (as after keep_ids_only()); `tokens` is what its words' counts add
  /// up to.
  static vocabulary_partition of_ids(word_map<uint32_t> ids, uint64_t tokens) {
    vocabulary_partition p;
    p.distinct_ = ids.size();
    p.ids_.push_back(std::move(ids));
    p.ids_only_ = true;
    p.assigned_ = true;
    p.tokens_ = tokens;
    return p;
  }

  vocabulary_partition() = default;
  vocabulary_partition(vocabulary_partition&&) noexcept = default;
  vocabulary_partition& operator=(vocabulary_partition&&) noexcept = default;
  // Not copied: order_ holds places in words_' arenas.
  vocabulary_partition(const vocabulary_partition&) = delete;
  vocabulary_partition& operator=(const vocabulary_partition&) = delete;

  /// Its words by count, most frequent first.
  count_histogram histogram() const;
  /// Its words of `count` first seen before place `first_limit`.
  uint64_t earlier(uint64_t count, uint64_t first_limit) const;
  /// Tokens the counter counted (its words below min-count included).
  uint64_t tokens() const { return tokens_; }
  /// Distinct words the counter counted (those below min-count included).
  uint64_t distinct() const { return distinct_; }

  /// Numbers the words the layout keeps and forgets the others.
  void assign(const vocabulary_layout& layout, uint32_t partition);

  size_t size() const {
    size_t n = 0;
    if (ids_only_)
      for (const auto& m : ids_)
        n += m.size();
    else
      for (const auto& m : words_)
        n += m.size();
    return n;
  }
  /// The id of `word`, vocabulary::npos if this partition does not hold it
  /// (or has not numbered its words yet).
  uint32_t id_of(std::string_view word) const {
    const uint64_t h = word_hash(word);
    if (ids_only_) {
      const auto& ids = ids_[shard_of(h, ids_.size())];
      const auto r = ids.find(word, h);
      return r == 0 ? vocabulary::npos : ids.value(r);
    }
    if (!assigned_)
      return vocabulary::npos;
    const auto& words = words_[shard_of(h, words_.size())];
    const auto r = words.find(word, h);
    return r == 0 ? vocabulary::npos : static_cast<uint32_t>(words.value(r).first);
  }
  /// Memory ids_of keeps between calls (a lookup's hashes and word
  /// starts), so that each does not take fresh pages for them.
  struct lookup_scratch {
    std::vector<uint64_t> hashes;
    std::vector<size_t> starts;
  };
  /// id_of for each word of a chunk (`words` back to back, `lengths`
  /// adding up to its size: the caller checks), into `ids`. Many words at
  /// once: each one's slot and record are asked for some words before it
  /// is looked up, so that the cache misses overlap.
  void ids_of(std::string_view words, const std::vector<uint32_t>& lengths, std::vector<uint32_t>& ids,
              lookup_scratch& scratch) const;
  /// Once every word has been paged out: keeps each word and its id only
  /// (what the join's lookups need), 20 bytes a word less than with its
  /// count and first place. Nothing is paged after it. (The maps paging
  /// filled, if it went through every word; else made now.)
  void keep_ids_only();
  /// Calls f(word, count, first, id) for every word held: by decreasing
  /// count and first place, id npos, before assign(); after it, in no
  /// particular order, with the id (and the id as `first`).
  template <class F>
  void for_each(F&& f) const {
    auto one = [&](const seen_map& words, seen_map::ref r) {
      const word_counts::seen e = words.value(r);
      f(words.word(r), e.count, e.first, assigned_ ? static_cast<uint32_t>(e.first) : vocabulary::npos);
    };
    if (assigned_)
      for (const auto& words : words_)
        words.for_each([&](seen_map::ref r) { one(words, r); });
    else
      for (auto p : order_)
        one(map_at(p), ref_at(p));
  }
  /// After assign(): appends the next `most` words in id order (from the
  /// first, on the first call) to `page`, each with its count (and 0 as
  /// its first place), and returns how many; 0 once every word has been
  /// given (the order is then forgotten). Pages of a partition too large
  /// to send whole. Paged from the first word to the last, the words also
  /// fill the lookup maps keep_ids_only() keeps, while their records are
  /// in the cache.
  size_t next_page(size_t most, count_table& page);

  /// Bytes held: the words, their counts, places and ids, their order, and
  /// the lookup maps paging fills.
  size_t memory_bytes() const {
    size_t bytes = order_.capacity() * sizeof(uint64_t);
    for (const auto& m : words_)
      bytes += m.memory_bytes();
    for (const auto& m : ids_)
      bytes += m.memory_bytes();
    for (const auto& m : paged_ids_)
      bytes += m.memory_bytes();
    return bytes;
  }

private:
  using seen_map = word_map<word_counts::seen>;
  // next_page's walks over order_[begin, end): the words and counts into
  // the page; the words of one shard, each with its id, into its lookup map.
  void copy_to_page(size_t begin, size_t end, count_table& page) const;
  void fill_lookup_map(size_t begin, size_t end, size_t shard);
  // A word's place: its shard in the top bits, its record in that shard's
  // map below (a record's place in an arena takes 40 bits).
  static constexpr unsigned shard_shift = 48;
  static uint64_t place(size_t shard, seen_map::ref r) { return uint64_t{shard} << shard_shift | r; }
  static seen_map::ref ref_at(uint64_t place) { return place & ((uint64_t{1} << shard_shift) - 1); }
  const seen_map& map_at(uint64_t place) const { return words_[place >> shard_shift]; }
  seen_map& map_at(uint64_t place) { return words_[place >> shard_shift]; }
  static size_t shard_of(uint64_t h, size_t shards) {
    return shards > 1 ? word_shard_of_hash(h, static_cast<uint32_t>(shards)) : 0;
  }

  std::vector<seen_map> words_; // one map a shard
  // By decreasing count, then first place; from assign() on, the kept
  // words in id order, until they have been paged out.
  std::vector<uint64_t> order_;
  // order_'s counts, as runs of equal count (few: see count_histogram), so
  // that walking the order by count reads no word's record.
  count_histogram runs_;
  std::vector<word_map<uint32_t>> ids_;            // after keep_ids_only(), instead of words_
  std::vector<word_map<uint32_t>> paged_ids_;      // ids_ as paging fills them
  std::vector<std::vector<uint64_t>> shard_pages_; // a page's places, by shard (fill_lookup_map's)
  bool paged_every_word_ = false;                  // paged_ids_ holds every word
  size_t page_word_bytes_ = 16;                    // the last page's bytes a word, to reserve the next
  bool ids_only_ = false;
  uint64_t tokens_ = 0;
  uint64_t distinct_ = 0;
  size_t page_at_ = 0; // next_page's place in order_
  bool assigned_ = false;
};

/// The whole vocabulary from its partitions, each assigned, where one
/// process holds them all (the tests compare it with vocabulary::build).
/// Fails if the partitions' ids do not cover 0 .. size-1 once each.
expected<vocabulary> assemble_vocabulary(const std::vector<vocabulary_partition>& partitions,
                                         const vocabulary_layout& layout);

} // namespace gridvec
