#include "src/sgns/minibatch.hpp"

#include <algorithm>

namespace gridvec {

void minibatch::clear() {
  inputs.clear();
  input_counts.clear();
  outputs.clear();
  output_counts.clear();
}

bool example_builder::add(const uint32_t* sentence, size_t length, size_t pos, rng& r, minibatch& out) const {
  const size_t b = window_ - r.below(window_); // 1..window, as word2vec.c
  const size_t from = pos >= b ? pos - b : 0;
  const size_t to = std::min(length - 1, pos + b);
  const auto contexts = static_cast<uint32_t>(to - from);
  if (contexts == 0)
    return false;
  auto& ctx_list = cbow_ ? out.inputs : out.outputs;
  for (size_t j = from; j <= to; ++j)
    if (j != pos)
      ctx_list.push_back(sentence[j]);
  if (cbow_) {
    out.input_counts.push_back(contexts);
    out.outputs.push_back(sentence[pos]);
  } else {
    out.inputs.push_back(sentence[pos]);
    out.output_counts.push_back(contexts);
  }
  return true;
}

} // namespace gridvec
