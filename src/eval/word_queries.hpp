#pragma once
// Questions asked of a vectors file, answered as gensim's KeyedVectors
// answers them, so that a gensim user gets the same words and scores:
//   most_similar(positive, negative): 3CosAdd -- the mean of the query
//     words' unit vectors, each weighted +1 (positive) or -1 (negative),
//     made unit length; every word scored by its cosine with it, the query
//     words themselves left out (gensim's most_similar);
//   analogy a b c: most_similar(positive=[b, c], negative=[a]), the word
//     closest to b - a + c (word2vec.c's word-analogy ranks the same way);
//   doesnt_match(words): the word whose unit vector has the lowest cosine
//     with the mean of the words' unit vectors (gensim's doesnt_match,
//     rank_by_centrality); words outside the vocabulary are left out.
// Words are looked up as they are written (case matters, as in gensim's
// most_similar); a word twice in the file answers with its first row.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/formats/vectors_file.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec {

struct word_score {
  uint32_t row = 0;
  double score = 0;
};

class word_queries {
public:
  /// Takes the table over: its rows are scaled to unit length in place
  /// (a zero row stays zero and scores 0).
  explicit word_queries(embedding_table table);
  word_queries(const word_queries&) = delete; // rows_ views table_'s words
  word_queries& operator=(const word_queries&) = delete;

  std::optional<uint32_t> find(std::string_view word) const;
  const std::string& word(uint32_t row) const { return table_.words[row]; }
  size_t size() const { return table_.words.size(); }

  /// The k words of highest cosine with the 3CosAdd query, best first,
  /// among the first `restrict` rows (0: all), the query's words left out.
  /// Fails naming a word outside the vocabulary, or when no word is given.
  expected<std::vector<word_score>> most_similar(const std::vector<std::string>& positive,
                                                 const std::vector<std::string>& negative, size_t k,
                                                 size_t restrict = 0) const;

  /// Every word given that is in the vocabulary, by cosine with the mean
  /// of their unit vectors, lowest first: the first is the one that does
  /// not match. `missing` gets the words left out. Fails when none is in
  /// the vocabulary.
  expected<std::vector<word_score>> rank_by_centrality(const std::vector<std::string>& words,
                                                       std::vector<std::string>& missing) const;

private:
  const float* unit_row(uint32_t row) const { return table_.row(row); }
  embedding_table table_;
  std::unordered_map<std::string_view, uint32_t> rows_;
};

} // namespace gridvec
