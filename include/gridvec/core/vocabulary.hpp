#pragma once
// (Public header of src/corpus/vocabulary.cpp.)
// The vocabulary: counting words over corpus parts, merging the counts, and
// fixing the id of every word (by decreasing frequency) once min-count and
// max-vocab are applied. Ids index the shards' vector arrays directly.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

/// 64-bit FNV-1a: the stable key of a word (the Network-efficient word2vec paper keeps hashed keys so
/// that "words" may be arbitrary strings such as queries or ad ids).
uint64_t word_key(std::string_view word);

struct string_hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return word_key(s); }
};

/// Counts in a form that can be sent between nodes.
struct count_table {
  std::vector<std::string> words;
  std::vector<uint64_t> counts;
  std::vector<uint64_t> firsts; // where each word was first seen (see word_counts)
  uint64_t total = 0;           // tokens seen, including every repetition
  uint64_t lines = 0;           // line ends seen (word2vec.c's "</s>" tokens)
};

/// Word -> occurrences, for one corpus part or merged over many. Each word
/// also keeps where it was first seen, as a number that grows through the
/// corpus (a part starting at byte B numbers its n-th token B + n, below the
/// next part's start), so that words of equal count can be ordered by first
/// appearance, as word2vec.c's vocabulary is.
class word_counts {
public:
  explicit word_counts(uint64_t first_position = 0) : next_position_(first_position) {}

  void add(std::string_view word) {
    auto it = counts_.find(word);
    if (it == counts_.end())
      counts_.emplace(std::string{word}, seen{1, next_position_});
    else
      ++it->second.count;
    ++next_position_;
    ++total_;
  }
  void add_line_end() { ++lines_; }
  /// Adds `count` occurrences of `word`, first seen at `first`.
  void add(std::string_view word, uint64_t count, uint64_t first);
  void merge(const word_counts& other);
  void merge(const count_table& table);
  count_table to_table() const;

  uint64_t total() const { return total_; }
  uint64_t lines() const { return lines_; }
  size_t distinct() const { return counts_.size(); }

  struct seen {
    uint64_t count = 0;
    uint64_t first = 0;
  };
  const auto& map() const { return counts_; }

private:
  std::unordered_map<std::string, seen, string_hash, std::equal_to<>> counts_;
  uint64_t next_position_;
  uint64_t total_ = 0;
  uint64_t lines_ = 0;
};

class vocabulary {
public:
  static constexpr uint32_t npos = 0xFFFFFFFFu;

  /// Keeps words with count >= min_count, at most max_size of the most
  /// frequent (0 = no limit), ordered by count descending, then by first
  /// appearance (word2vec.c's order: its stable sort of words as they came).
  static expected<vocabulary> build(const word_counts& counts, uint64_t min_count, uint64_t max_size);

  uint32_t size() const { return static_cast<uint32_t>(words_.size()); }
  const std::string& word(uint32_t id) const { return words_[id]; }
  uint64_t count(uint32_t id) const { return counts_[id]; }
  const std::vector<uint64_t>& counts() const { return counts_; }
  /// Occurrences of vocabulary words in the corpus (word2vec's train_words).
  uint64_t train_words() const { return train_words_; }

  /// Saves as text, atomically: a header line
  ///   "gridvec-vocabulary 1 SIZE TRAIN_WORDS"
  /// then one "COUNT WORD" line per word in id order.
  status save(const std::string& path) const;
  static expected<vocabulary> load(const std::string& path);

  uint32_t id_of(std::string_view word) const {
    auto it = ids_.find(word);
    return it == ids_.end() ? npos : it->second;
  }

private:
  void add_word(std::string word, uint64_t count);

  std::vector<std::string> words_;
  std::vector<uint64_t> counts_;
  std::unordered_map<std::string, uint32_t, string_hash, std::equal_to<>> ids_;
  uint64_t train_words_ = 0;
};

/// Frequent-word subsampling of word2vec.c: a word of count c is kept with
/// probability (sqrt(c / (t·N)) + 1) · t·N / c, N = train_words, t = -sample.
class subsampler {
public:
  subsampler(const vocabulary& vocab, double sample);
  /// Threshold against a uniform 32-bit number: keep if below.
  uint64_t threshold(uint32_t id) const { return keep_[id]; }
  double keep_probability(uint32_t id) const { return static_cast<double>(keep_[id]) / 4294967296.0; }

private:
  std::vector<uint64_t> keep_; // in [0, 2^32]
};

} // namespace gridvec
