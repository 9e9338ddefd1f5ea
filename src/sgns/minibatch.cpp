#include "src/sgns/minibatch.hpp"

#include <algorithm>

namespace gridvec {

namespace {

// Contexts of window e (its outputs).
size_t contexts_of(const minibatch& mb, size_t e) { return mb.output_counts.empty() ? 1 : mb.output_counts[e]; }

} // namespace

size_t minibatch::dot_count() const {
  if (!shared_negatives)
    return targets_of_outputs(0, outputs.size());
  size_t n = 0;
  for (size_t e = 0; e < inputs.size(); ++e)
    n += targets_of(inputs[e]) * contexts_of(*this, e);
  return n;
}

size_t minibatch::target_count() const {
  if (!shared_negatives)
    return dot_count();
  size_t n = 0;
  for (uint32_t centre : inputs)
    n += targets_of(centre);
  return n;
}

void minibatch::labels(std::vector<uint8_t>& out) const {
  out.clear();
  out.reserve(dot_count());
  const size_t sampled = sampled_targets();
  // The labels of the targets of output word w, each `repeat` times.
  auto append = [&](uint32_t w, size_t repeat) {
    if (hierarchical) {
      const uint8_t* code = tree->codes(w);
      for (uint32_t d = 0; d < tree->length(w); ++d)
        out.insert(out.end(), repeat, code[d] ? target_label::node_code1 : target_label::node_code0);
    }
    for (size_t t = 0; t < sampled; ++t)
      out.insert(out.end(), repeat, t == 0 ? target_label::positive : target_label::noise);
  };
  if (!shared_negatives) {
    for (uint32_t w : outputs)
      append(w, 1);
    return;
  }
  for (size_t e = 0; e < inputs.size(); ++e)
    append(inputs[e], contexts_of(*this, e));
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
