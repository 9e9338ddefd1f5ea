#pragma once
// The view of a vectors file that gensim's evaluations take (KeyedVectors
// evaluate_word_analogies / evaluate_word_pairs), so that `gridvec eval`
// prints the numbers a gensim user would get:
//   - words are looked up upper-cased (case_insensitive=True); when two
//     words differ only in case, the more frequent one (earlier in the
//     file) answers for both;
//   - only the first `restrict` words of the file take part;
//   - similarities are cosines of unit-length vectors.
// Upper-casing is ASCII only: other bytes are compared as they are.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/word_map.hpp>
#include "src/formats/vectors_file.hpp"

namespace gridvec {

class eval_vocabulary {
public:
  eval_vocabulary(const embedding_table& table, size_t restrict);

  /// The row of a word (already upper-cased or not), if it takes part.
  std::optional<uint32_t> find(std::string_view word) const;
  /// Row i scaled to length 1 (zero rows stay zero).
  const float* unit_row(uint32_t i) const { return unit_.data() + size_t{i} * dim_; }
  uint32_t dim() const { return dim_; }
  /// How many rows take part (the first ones of the file).
  uint32_t size() const { return size_; }
  const std::string& word(uint32_t i) const { return (*words_)[i]; }

private:
  const std::vector<std::string>* words_;
  uint32_t dim_;
  uint32_t size_;
  std::vector<float> unit_;
  word_map<uint32_t> by_upper_; // upper-cased word -> row
};

std::string ascii_upper(std::string_view word);

} // namespace gridvec
