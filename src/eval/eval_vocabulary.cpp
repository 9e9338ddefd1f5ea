#include "src/eval/eval_vocabulary.hpp"

#include <algorithm>
#include <cmath>

namespace gridvec {

std::string ascii_upper(std::string_view word) {
  std::string up(word);
  for (char& c : up)
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
  return up;
}

eval_vocabulary::eval_vocabulary(const embedding_table& table, size_t restrict)
  : words_(&table.words), dim_(table.dim), size_(static_cast<uint32_t>(std::min(restrict, table.words.size()))) {
  unit_.resize(size_t{size_} * dim_);
  for (uint32_t i = 0; i < size_; ++i) {
    const float* v = table.row(i);
    double sq = 0;
    for (uint32_t j = 0; j < dim_; ++j)
      sq += double{v[j]} * v[j];
    const float norm = static_cast<float>(std::sqrt(sq));
    float* u = unit_.data() + size_t{i} * dim_;
    for (uint32_t j = 0; j < dim_; ++j)
      u[j] = norm > 0 ? v[j] / norm : 0.0f;
  }
  // Walked backwards, as gensim builds its dict: the earliest (most
  // frequent) spelling of an upper-cased word is the one that stays.
  for (uint32_t i = size_; i-- > 0;)
    by_upper_[ascii_upper(table.words[i])] = i;
}

std::optional<uint32_t> eval_vocabulary::find(std::string_view word) const {
  auto it = by_upper_.find(ascii_upper(word));
  if (it == by_upper_.end())
    return std::nullopt;
  return it->second;
}

} // namespace gridvec
