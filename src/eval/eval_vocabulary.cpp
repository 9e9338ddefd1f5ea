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
  // The earliest (most frequent) spelling of an upper-cased word is the
  // one that stays, as in gensim's dict (built backwards, overwriting).
  by_upper_.reserve(size_);
  for (uint32_t i = 0; i < size_; ++i)
    by_upper_.insert(ascii_upper(table.words[i]), i);
}

std::optional<uint32_t> eval_vocabulary::find(std::string_view word) const {
  const auto r = by_upper_.find(ascii_upper(word));
  if (r == 0)
    return std::nullopt;
  return by_upper_.value(r);
}

} // namespace gridvec
