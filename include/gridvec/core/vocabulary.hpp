#pragma once
// (Public header of src/corpus/vocabulary.cpp.)
// The vocabulary: counting words over corpus parts, merging the counts, and
// fixing the id of every word (by decreasing frequency) once min-count and
// max-vocab are applied. Ids index the shards' vector arrays directly.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/word_map.hpp>

namespace gridvec {

/// 64-bit FNV-1a: the stable key of a word (the Network-efficient word2vec paper keeps hashed keys so
/// that "words" may be arbitrary strings such as queries or ad ids).
uint64_t word_key(std::string_view word);

/// Counts in a form that can be sent between nodes: the words back to back
/// in one string, their lengths, counts and first places (see word_counts)
/// in arrays, so that a table of millions of words is a few blocks, not
/// millions of strings.
struct count_table {
  std::string words;             // every word's bytes, back to back
  std::vector<uint32_t> lengths; // each word's bytes in `words`, in order
  std::vector<uint64_t> counts;
  std::vector<uint64_t> firsts; // where each word was first seen (see word_counts)
  uint64_t total = 0;           // tokens seen, including every repetition
  uint64_t lines = 0;           // line ends seen (word2vec.c's "</s>" tokens)

  size_t size() const { return lengths.size(); }
  void add(std::string_view word, uint64_t count, uint64_t first);
  /// Empties the table and keeps its memory, to be filled again.
  void clear() {
    words.clear();
    lengths.clear();
    counts.clear();
    firsts.clear();
    total = 0;
    lines = 0;
  }
  /// The arrays agree: as many counts and firsts as lengths, and the
  /// lengths add up to the words' bytes. (A table from a peer is checked.)
  bool well_formed() const;
  /// Calls f(word, count, first) for each word, in order; nothing if not well_formed().
  template <class F>
  void for_each(F&& f) const {
    if (!well_formed())
      return;
    size_t at = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      f(std::string_view{words}.substr(at, lengths[i]), counts[i], firsts[i]);
      at += lengths[i];
    }
  }
};

/// Word -> occurrences, for one corpus part or merged over many. Each word
/// also keeps where it was first seen, as a number that grows through the
/// corpus (a part starting at byte B numbers its n-th token B + n, below the
/// next part's start), so that words of equal count can be ordered by first
/// appearance, as word2vec.c's vocabulary is. The words are held in a
/// word_map: 16 bytes of counts, about 12 of index and one of length beside
/// each word's bytes.
class word_counts {
public:
  struct seen {
    uint64_t count = 0;
    uint64_t first = 0;
  };

  explicit word_counts(uint64_t first_position = 0) : next_position_(first_position) {}

  void add(std::string_view word) {
    auto [r, added] = words_.insert(word, seen{1, next_position_});
    if (!added) {
      seen s = words_.value(r);
      ++s.count;
      words_.set(r, s);
    }
    ++next_position_;
    ++total_;
  }
  void add_line_end() { ++lines_; }
  /// Adds `count` occurrences of `word`, first seen at `first`.
  void add(std::string_view word, uint64_t count, uint64_t first);
  void merge(const word_counts& other);
  /// Adds a table's words (nothing if it is not well formed: false).
  bool merge(const count_table& table);
  count_table to_table() const;
  /// The table, giving up this object's memory as it is built (the words
  /// are copied block by block and each block freed), so that counting
  /// and sending never hold two copies of the words.
  count_table release_table();

  uint64_t total() const { return total_; }
  uint64_t lines() const { return lines_; }
  size_t distinct() const { return words_.size(); }
  /// The count and first place of `word`; a count of 0 if it was not seen.
  seen find(std::string_view word) const {
    const auto r = words_.find(word);
    return r == 0 ? seen{} : words_.value(r);
  }
  /// Calls f(word, seen) for every word, in the order they were first added.
  template <class F>
  void for_each(F&& f) const {
    words_.for_each([&](word_map<seen>::ref r) { f(words_.word(r), words_.value(r)); });
  }
  /// Bytes held by the words, their counts and their index.
  size_t memory_bytes() const { return words_.memory_bytes(); }

private:
  word_map<seen> words_;
  uint64_t next_position_;
  uint64_t total_ = 0;
  uint64_t lines_ = 0;
};

class vocabulary {
public:
  static constexpr uint32_t npos = 0xFFFFFFFFu;
  /// Word ids are 32-bit (they index the shards' rows and travel in every
  /// minibatch): at most 2^32 - 1 words (4,294,967,295), npos excluded.
  static constexpr uint64_t max_words = npos;

  /// Keeps words with count >= min_count, at most max_size of the most
  /// frequent (0 = no limit), ordered by count descending, then by first
  /// appearance (word2vec.c's order: its stable sort of words as they came),
  /// then by the words' bytes.
  static expected<vocabulary> build(const word_counts& counts, uint64_t min_count, uint64_t max_size);

  uint32_t size() const { return static_cast<uint32_t>(refs_.size()); }
  std::string_view word(uint32_t id) const { return ids_.word(refs_[id]); }
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
    const auto r = ids_.find(word);
    return r == 0 ? npos : ids_.value(r);
  }
  /// Bytes held by the words, their index and counts.
  size_t memory_bytes() const {
    return ids_.memory_bytes() + refs_.capacity() * sizeof(uint64_t) + counts_.capacity() * sizeof(uint64_t);
  }

  /// Adds the next id's word (used by build and load, and by a vocabulary
  /// assembled from partitions); false if the word is already there.
  bool add_word(std::string_view word, uint64_t count);
  void reserve(size_t words);

private:
  word_map<uint32_t> ids_;     // word -> id, the words' only copy
  std::vector<uint64_t> refs_; // id -> the word's record in ids_
  std::vector<uint64_t> counts_;
  uint64_t train_words_ = 0;
};

/// A vocabulary's counts in id order without its words: what subsampling,
/// the noise tables, the Huffman tree (-hs 1) and the learning rate need,
/// at 8 bytes a word. Shards and learners of a job hold this, not the
/// vocabulary (its file beside the vocabulary's: src/corpus/vocabulary_counts.hpp).
struct vocabulary_counts {
  std::vector<uint64_t> counts;
  uint64_t train_words = 0; // the counts' sum
  uint64_t vocab_crc = 0;   // of the vocabulary file they are the counts of

  uint32_t size() const { return static_cast<uint32_t>(counts.size()); }
  static vocabulary_counts of(const vocabulary& v, uint64_t vocab_crc = 0) {
    return vocabulary_counts{v.counts(), v.train_words(), vocab_crc};
  }
};

/// Frequent-word subsampling of word2vec.c: a word of count c is kept with
/// probability (sqrt(c / (t·N)) + 1) · t·N / c, N = train_words, t = -sample.
class subsampler {
public:
  subsampler(const vocabulary& vocab, double sample) : subsampler(vocab.counts(), vocab.train_words(), sample) {}
  subsampler(const std::vector<uint64_t>& counts, uint64_t train_words, double sample);
  /// Threshold against a uniform 32-bit number: keep if below.
  uint64_t threshold(uint32_t id) const { return keep_[id]; }
  double keep_probability(uint32_t id) const { return static_cast<double>(keep_[id]) / 4294967296.0; }

private:
  std::vector<uint64_t> keep_; // in [0, 2^32]
};

} // namespace gridvec
