#include "src/replicated/model_combiner.hpp"

#include <algorithm>

#include "src/sgns/vector_math.hpp"

namespace gridvec {

expected<combiner> parse_combiner(const std::string& text) {
  if (text == "mc")
    return combiner::model_combiner;
  if (text == "avg")
    return combiner::average;
  return failure{"--combiner must be mc (the model combiner) or avg (averaging), not '" + text + "'"};
}

const char* combiner_name(combiner c) { return c == combiner::model_combiner ? "mc" : "avg"; }

void add_change(combiner kind, float* g, uint32_t& count, const float* change, size_t dim) {
  if (count++ == 0) {
    std::copy(change, change + dim, g);
    return;
  }
  if (kind == combiner::average) {
    axpy(1.0f, change, g, dim);
    return;
  }
  // g += change - (g . change / |g|^2) g, in double for the two sums: the
  // changes of one round are small and nearly cancel in g . change.
  double gg = 0, gc = 0;
  for (size_t i = 0; i < dim; ++i) {
    gg += double{g[i]} * g[i];
    gc += double{g[i]} * change[i];
  }
  const float scale = gg > 0 ? static_cast<float>(1.0 - gc / gg) : 1.0f;
  for (size_t i = 0; i < dim; ++i)
    g[i] = scale * g[i] + change[i];
}

void finish_changes(combiner kind, float* g, uint32_t count, size_t dim) {
  if (kind == combiner::average && count > 1) {
    const float inv = 1.0f / static_cast<float>(count);
    for (size_t i = 0; i < dim; ++i)
      g[i] *= inv;
  }
}

} // namespace gridvec
