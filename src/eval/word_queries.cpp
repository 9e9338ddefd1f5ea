#include "src/eval/word_queries.hpp"

#include <algorithm>
#include <cmath>

namespace gridvec {

namespace {

double dot_with(const float* row, const std::vector<double>& q) {
  double s = 0;
  for (size_t j = 0; j < q.size(); ++j)
    s += static_cast<double>(row[j]) * q[j];
  return s;
}

void make_unit(std::vector<double>& v) {
  double norm = 0;
  for (double x : v)
    norm += x * x;
  norm = std::sqrt(norm);
  if (norm > 0)
    for (double& x : v)
      x /= norm;
}

} // namespace

word_queries::word_queries(embedding_table table) : table_(std::move(table)) {
  const uint32_t d = table_.dim;
  for (size_t i = 0; i < table_.words.size(); ++i) {
    float* row = table_.data.data() + i * d;
    double norm = 0;
    for (uint32_t j = 0; j < d; ++j)
      norm += static_cast<double>(row[j]) * row[j];
    norm = std::sqrt(norm);
    if (norm > 0)
      for (uint32_t j = 0; j < d; ++j)
        row[j] = static_cast<float>(row[j] / norm);
  }
  rows_.reserve(table_.words.size());
  for (size_t i = 0; i < table_.words.size(); ++i)
    rows_.emplace(table_.words[i], static_cast<uint32_t>(i)); // the first of a repeated word
}

std::optional<uint32_t> word_queries::find(std::string_view word) const {
  auto it = rows_.find(word);
  if (it == rows_.end())
    return std::nullopt;
  return it->second;
}

expected<std::vector<word_score>> word_queries::most_similar(const std::vector<std::string>& positive,
                                                             const std::vector<std::string>& negative, size_t k,
                                                             size_t restrict) const {
  if (positive.empty() && negative.empty())
    return failure{"no words to query"};
  std::vector<double> mean(table_.dim, 0.0);
  std::vector<uint32_t> query;
  for (int sign : {1, -1})
    for (const auto& w : sign > 0 ? positive : negative) {
      auto row = find(w);
      if (!row)
        return failure{"'" + w + "' is not in the vocabulary"};
      query.push_back(*row);
      const float* u = unit_row(*row);
      for (uint32_t j = 0; j < table_.dim; ++j)
        mean[j] += sign * static_cast<double>(u[j]);
    }
  make_unit(mean); // the mean's length does not change a cosine
  const size_t rows = restrict > 0 ? std::min(restrict, size()) : size();
  std::vector<word_score> scored;
  scored.reserve(rows);
  for (size_t i = 0; i < rows; ++i)
    if (std::find(query.begin(), query.end(), i) == query.end())
      scored.push_back({static_cast<uint32_t>(i), dot_with(unit_row(static_cast<uint32_t>(i)), mean)});
  const size_t top = std::min(k, scored.size());
  // Ties go to the earlier (more frequent) word.
  auto better = [](const word_score& a, const word_score& b) {
    return a.score != b.score ? a.score > b.score : a.row < b.row;
  };
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(top), scored.end(), better);
  scored.resize(top);
  return scored;
}

expected<std::vector<word_score>> word_queries::rank_by_centrality(const std::vector<std::string>& words,
                                                                   std::vector<std::string>& missing) const {
  std::vector<uint32_t> used;
  missing.clear();
  for (const auto& w : words) {
    if (auto row = find(w))
      used.push_back(*row);
    else
      missing.push_back(w);
  }
  if (used.empty())
    return failure{"none of the words is in the vocabulary"};
  std::vector<double> mean(table_.dim, 0.0);
  for (uint32_t row : used)
    for (uint32_t j = 0; j < table_.dim; ++j)
      mean[j] += unit_row(row)[j];
  make_unit(mean);
  std::vector<word_score> ranked;
  for (uint32_t row : used)
    ranked.push_back({row, dot_with(unit_row(row), mean)});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const word_score& a, const word_score& b) { return a.score < b.score; });
  return ranked;
}

} // namespace gridvec
