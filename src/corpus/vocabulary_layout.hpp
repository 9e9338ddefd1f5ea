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
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/vocabulary.hpp>

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
  /// The kept words' counts in id order, as runs of equal count (a run
  /// per distinct count, most frequent first): the vocabulary's counts
  /// without its words, in a few entries whatever V.
  count_histogram id_count_runs() const;

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

} // namespace gridvec
