#include "src/model/similarity.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "src/sgns/vector_math.hpp"

namespace gridvec {

std::vector<float> partial_norms(const shard_store& store, const std::vector<uint32_t>& words) {
  const uint32_t width = store.slice().width;
  std::vector<float> out;
  out.reserve(words.size());
  for (uint32_t w : words) {
    const float* row = store.input_row(w);
    out.push_back(dot(row, row, width));
  }
  return out;
}

std::vector<float> partial_similarity(const shard_store& store, const std::vector<uint32_t>& words,
                                      const std::vector<float>& weights) {
  const uint32_t width = store.slice().width;
  const uint32_t vocab = store.vocab_size();
  std::vector<float> q(width, 0.0f);
  for (size_t i = 0; i < words.size(); ++i)
    axpy(weights[i], store.input_row(words[i]), q.data(), width);
  std::vector<float> out(1 + 2 * size_t{vocab});
  out[0] = dot(q.data(), q.data(), width);
  float* dots = out.data() + 1;
  float* norms = dots + vocab;
  for (uint32_t x = 0; x < vocab; ++x) {
    const float* row = store.input_row(x);
    dots[x] = dot(q.data(), row, width);
    norms[x] = dot(row, row, width);
  }
  return out;
}

void add_partials(std::vector<float>& total, const std::vector<float>& part) {
  if (total.empty()) {
    total = part;
    return;
  }
  for (size_t i = 0; i < total.size() && i < part.size(); ++i)
    total[i] += part[i];
}

std::vector<scored_word> top_cosine(const std::vector<float>& summed, uint32_t k,
                                    const std::vector<uint32_t>& exclude) {
  std::vector<scored_word> best;
  if (summed.empty())
    return best;
  const size_t vocab = (summed.size() - 1) / 2;
  const float qnorm = std::sqrt(summed[0]);
  const float* dots = summed.data() + 1;
  const float* norms = dots + vocab;
  auto worse = [](const scored_word& a, const scored_word& b) { return a.score > b.score; };
  for (uint32_t x = 0; x < vocab; ++x) {
    if (std::find(exclude.begin(), exclude.end(), x) != exclude.end())
      continue;
    const float denom = qnorm * std::sqrt(norms[x]);
    const float score = denom > 0 ? dots[x] / denom : 0.0f;
    if (best.size() < k) {
      best.push_back({x, score});
      std::push_heap(best.begin(), best.end(), worse);
    } else if (k > 0 && score > best.front().score) {
      std::pop_heap(best.begin(), best.end(), worse);
      best.back() = {x, score};
      std::push_heap(best.begin(), best.end(), worse);
    }
  }
  std::sort_heap(best.begin(), best.end(), worse);
  return best;
}

std::vector<char> float_bytes(const std::vector<float>& v) {
  std::vector<char> out(v.size() * sizeof(float));
  if (!v.empty())
    std::memcpy(out.data(), v.data(), out.size());
  return out;
}

expected<std::vector<float>> floats_of(const std::vector<char>& bytes) {
  if (bytes.size() % sizeof(float) != 0)
    return failure{"a float array of " + std::to_string(bytes.size()) + " bytes is not a whole number of floats"};
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty())
    std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

} // namespace gridvec
