#include "src/sgns/minibatch.hpp"

#include <algorithm>

namespace gridvec {

void minibatch::labels(std::vector<uint8_t>& out) const {
  out.clear();
  out.reserve(dot_count());
  const size_t sampled = sampled_targets();
  for (uint32_t w : outputs) {
    if (hierarchical) {
      const uint8_t* code = tree->codes(w);
      for (uint32_t d = 0; d < tree->length(w); ++d)
        out.push_back(code[d] ? target_label::node_code1 : target_label::node_code0);
    }
    for (size_t t = 0; t < sampled; ++t)
      out.push_back(t == 0 ? target_label::positive : target_label::noise);
  }
}

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
  switch (form_) {
    case example_form::centre_predicts_contexts:
      out.inputs.push_back(sentence[pos]);
      out.outputs.insert(out.outputs.end(), sentence + from, sentence + pos);
      out.outputs.insert(out.outputs.end(), sentence + pos + 1, sentence + to + 1);
      out.output_counts.push_back(contexts);
      break;
    case example_form::contexts_predict_centre:
      for (size_t j = from; j <= to; ++j)
        if (j != pos) {
          out.inputs.push_back(sentence[j]);
          out.outputs.push_back(sentence[pos]);
        }
      break;
    case example_form::cbow:
      out.inputs.insert(out.inputs.end(), sentence + from, sentence + pos);
      out.inputs.insert(out.inputs.end(), sentence + pos + 1, sentence + to + 1);
      out.input_counts.push_back(contexts);
      out.outputs.push_back(sentence[pos]);
      break;
  }
  return true;
}

} // namespace gridvec
