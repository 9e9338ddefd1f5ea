#pragma once
// The vocabulary decided over word partitions, no partition holding
// another's words. Each partition keeps its own words of count >=
// min-count (vocabulary_partition) and tells the others only how many
// words it has of each count (its count histogram). From the histograms
// alone every partition knows where each count's words start among the
// ids, since ids go by decreasing count (vocabulary_layout::decide); so
// -min-count, -max-vocab and the ids are decided as one process decides
// them (vocabulary::build), with the same words and counts at the same
// ids.
//
// Words of equal count: one process orders them by first appearance, as
// word2vec.c does. Over partitions they go partition by partition
// (partition 0's first), and by first appearance within a partition, so
// that a partition numbers its words without knowing the others'. With one
// partition that is word2vec.c's order. Where -max-vocab cuts through the
// words of one count, the words kept are still those that appeared first
// in the corpus, as in one process: the partitions find the cut's first
// place together by bisection (about 64 rounds of one number from each).
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/vocabulary.hpp>
#include <gridvec/core/word_map.hpp>
#include "src/corpus/bounded_counter.hpp"

namespace gridvec {

/// How many words have one count.
struct count_class {
  uint64_t count = 0;
  uint64_t words = 0;
  bool operator==(const count_class&) const = default;
};
/// A partition's words by count, most frequent first: what partitions
/// exchange instead of their words. Distinct counts are few: k of them
/// need at least k(k+1)/2 tokens, so a corpus of N tokens has fewer than
/// sqrt(2N) (45,000 at a billion tokens), whatever V.
using count_histogram = std::vector<count_class>;

/// Where the words of every partition go among the ids.
class vocabulary_layout {
public:
  /// The most partitions a vocabulary may be decided over.
  static constexpr uint32_t max_partitions = 4096;
  /// How many of partition p's words of `count` were first seen before
  /// place `first_limit` (vocabulary_partition::earlier, asked of each).
  using earlier_fn = std::function<uint64_t(uint32_t partition, uint64_t count, uint64_t first_limit)>;

  /// The layout of the partitions whose histograms are `histograms` (one
  /// each, in partition order), under min_count and max_size (0: no
  /// limit). `tokens` is the corpus's token count (every word, kept or
  /// not). Fails as vocabulary::build does: no words, an empty vocabulary,
  /// more words than 32-bit ids number.
  static expected<vocabulary_layout> decide(const std::vector<count_histogram>& histograms, uint64_t tokens,
                                            uint64_t min_count, uint64_t max_size, const earlier_fn& earlier);

  uint64_t size() const { return size_; }
  /// Occurrences of the kept words (word2vec's train_words).
  uint64_t train_words() const { return train_words_; }
  uint32_t partitions() const { return partitions_; }

  /// Of partition p's words of `count` (ranked by first place from 0), how
  /// many are kept: all, none, or where -max-vocab cuts, the first ones.
  uint64_t kept(uint32_t partition, uint64_t count) const;
  /// The id of partition p's rank-th word of `count` (rank < kept()).
  uint64_t id(uint32_t partition, uint64_t count, uint64_t rank) const;
  /// The counts of the kept words, most frequent first (each once).
  std::vector<uint64_t> counts() const;
  /// Every kept word's count, in id order (the vocabulary's counts without
  /// its words: 8 bytes a word).
  std::vector<uint64_t> id_counts() const;

  /// The layout as numbers, to send to the partitions in other processes.
  std::vector<uint64_t> encode() const;
  /// The layout encode() gave; fails on numbers that do not describe one
  /// (a peer's message is checked).
  static expected<vocabulary_layout> decode(const std::vector<uint64_t>& code);

private:
  struct kept_class {
    uint64_t count = 0;
    uint64_t first_id = 0;
    std::vector<uint64_t> starts; // partition p's words start at first_id + starts[p]; P + 1 entries
  };
  const kept_class* find(uint64_t count) const;

  std::vector<kept_class> classes_; // decreasing count
  uint64_t size_ = 0;
  uint64_t train_words_ = 0;
  uint32_t partitions_ = 0;
};

/// One partition's words of count >= min_count, then their ids. The words
/// are a counter's own map when nothing was spilled and every word
/// counted is kept (taken whole, not copied; another shard's words are
/// added to it), otherwise a copy of the kept ones; each word's value is its count and first place, and from
/// assign() on its id in place of the first place.
class vocabulary_partition {
public:
  /// Takes the counter's words (merging its runs) with count >= min_count.
  static expected<vocabulary_partition> collect(bounded_counter& counter, uint64_t min_count) {
    return collect(std::span<bounded_counter>{&counter, 1}, min_count);
  }
  /// The same over counters that hold disjoint words (a sharded_counter's
  /// shards).
  static expected<vocabulary_partition> collect(std::span<bounded_counter> counters, uint64_t min_count);

  /// A partition that only looks words up: `ids` maps each of its words to
  /// its id (as after keep_ids_only()); `tokens` is what its words' counts add
  /// up to.
  static vocabulary_partition of_ids(word_map<uint32_t> ids, uint64_t tokens) {
    vocabulary_partition p;
    p.distinct_ = ids.size();
    p.ids_ = std::move(ids);
    p.ids_only_ = true;
    p.assigned_ = true;
    p.tokens_ = tokens;
    return p;
  }

  vocabulary_partition() = default;
  vocabulary_partition(vocabulary_partition&&) noexcept = default;
  vocabulary_partition& operator=(vocabulary_partition&&) noexcept = default;
  // Not copied: order_ holds places in words_' arena.
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

  size_t size() const { return ids_only_ ? ids_.size() : words_.size(); }
  /// The id of `word`, vocabulary::npos if this partition does not hold it
  /// (or has not numbered its words yet).
  uint32_t id_of(std::string_view word) const {
    if (ids_only_) {
      const auto r = ids_.find(word);
      return r == 0 ? vocabulary::npos : ids_.value(r);
    }
    if (!assigned_)
      return vocabulary::npos;
    const auto r = words_.find(word);
    return r == 0 ? vocabulary::npos : static_cast<uint32_t>(words_.value(r).first);
  }
  /// Once every word has been paged out: keeps each word and its id only
  /// (what the join's lookups need), 20 bytes a word less than with its
  /// count and first place. Nothing is paged after it.
  void keep_ids_only();
  /// Calls f(word, count, first, id) for every word held: by decreasing
  /// count and first place, id npos, before assign(); after it, in no
  /// particular order, with the id (and the id as `first`).
  template <class F>
  void for_each(F&& f) const {
    auto one = [&](word_map<word_counts::seen>::ref r) {
      const word_counts::seen e = words_.value(r);
      f(words_.word(r), e.count, e.first, assigned_ ? static_cast<uint32_t>(e.first) : vocabulary::npos);
    };
    if (assigned_)
      words_.for_each(one);
    else
      for (auto r : order_)
        one(r);
  }
  /// After assign(): calls f(word, count) for the next `most` words in id
  /// order (from the first, on the first call) and returns how many; 0
  /// once every word has been given (the order is then forgotten). Pages
  /// of a partition too large to send whole.
  template <class F>
  size_t next_page(size_t most, F&& f) {
    size_t given = 0;
    while (given < most && page_at_ < order_.size()) {
      const auto r = order_[page_at_++];
      f(words_.word(r), words_.value(r).count);
      ++given;
    }
    if (given == 0) {
      order_.clear();
      order_.shrink_to_fit();
      page_at_ = 0;
    }
    return given;
  }

  /// Bytes held: the words, their counts, places and ids, and their order.
  size_t memory_bytes() const {
    return words_.memory_bytes() + ids_.memory_bytes() + order_.capacity() * sizeof(uint64_t);
  }

private:
  word_map<word_counts::seen> words_;
  // By decreasing count, then first place; from assign() on, the kept
  // words in id order, until they have been paged out.
  std::vector<word_map<word_counts::seen>::ref> order_;
  word_map<uint32_t> ids_; // after keep_ids_only(), instead of words_
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
