#include "src/model/word_classes.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "src/sgns/vector_math.hpp"
#include "src/util/atomic_file.hpp"

namespace gridvec {

std::vector<uint32_t> word_classes(const float* rows, size_t count, uint32_t dim, uint32_t classes, uint32_t rounds) {
  std::vector<uint32_t> cl(count);
  if (classes == 0)
    return cl;
  for (size_t w = 0; w < count; ++w)
    cl[w] = static_cast<uint32_t>(w % classes);
  std::vector<float> cent(size_t{classes} * dim);
  std::vector<uint64_t> members(classes);
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  for (uint32_t round = 0; round < rounds; ++round) {
    std::fill(cent.begin(), cent.end(), 0.0f);
    std::fill(members.begin(), members.end(), 1); // as the reference: never 0
    for (size_t w = 0; w < count; ++w) {
      axpy(1.0f, rows + w * dim, cent.data() + size_t{cl[w]} * dim, dim);
      ++members[cl[w]];
    }
    for (uint32_t c = 0; c < classes; ++c) {
      float* v = cent.data() + size_t{c} * dim;
      double sq = 0;
      for (uint32_t j = 0; j < dim; ++j) {
        v[j] /= static_cast<float>(members[c]);
        sq += double{v[j]} * v[j];
      }
      // An empty class keeps a zero centroid (the reference divides by 0).
      const float norm = static_cast<float>(std::sqrt(sq));
      if (norm > 0)
        for (uint32_t j = 0; j < dim; ++j)
          v[j] /= norm;
    }
    // Every word to its closest centroid; the words split over the cores.
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (size_t w = t; w < count; w += threads) {
          float best = -10; // the reference's starting value
          uint32_t best_class = 0;
          for (uint32_t c = 0; c < classes; ++c) {
            const float x = dot(cent.data() + size_t{c} * dim, rows + w * dim, dim);
            if (x > best) {
              best = x;
              best_class = c;
            }
          }
          cl[w] = best_class;
        }
      });
    for (auto& th : pool)
      th.join();
  }
  return cl;
}

status write_word_classes(const std::string& path, vocabulary_reader& words, const std::vector<uint32_t>& classes) {
  auto file = atomic_file::create(path);
  if (!file)
    return failure{file.error()};
  std::string word;
  uint64_t count = 0;
  for (size_t w = 0; w < classes.size() && words.position() < words.size(); ++w) {
    if (auto s = words.next(word, count); !s)
      return s;
    std::fprintf(file->stream(), "%s %u\n", word.c_str(), classes[w]);
  }
  return file->commit();
}

} // namespace gridvec
