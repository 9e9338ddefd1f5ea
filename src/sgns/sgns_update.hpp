#pragma once
// The SGNS update itself, on one slice of columns: what every path applies
// to the vectors once it knows a pair's weight g (src/sgns/sgns.hpp). The fused
// path (src/sgns/local_trainer.hpp) applies it after every pair, as word2vec.c
// does; a shard's adjust (src/model/shard_store.hpp) applies the same steps at
// the end of a call, every read seeing the vectors as the call found them
// (the Network-efficient word2vec paper). Both call these functions, so the two paths cannot drift
// apart. For an example with input h (skip-gram: the centre word's row, or
// with -hs 1 one context word's, src/sgns/minibatch.hpp; CBOW: the mean of
// the context rows) and a target row v:
//   e += g v          (the input's error, with v before its update)
//   v += g h
// and once the example's pairs are done, every input row u gets u += e
// (CBOW gives each context word the whole error, as word2vec.c).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "src/sgns/vector_math.hpp"

namespace gridvec::sgns {

/// h of an example over one slice: its single input row (returned as is),
/// or the mean of its input rows written to `mean` (CBOW, or several
/// inputs). `row(id)` gives an input row of the slice.
template <class InputRow>
const float* example_input(InputRow&& row, const uint32_t* inputs, uint32_t count, bool mean_inputs, float* mean,
                           uint32_t width) {
  if (count == 1 && !mean_inputs)
    return row(inputs[0]);
  std::fill(mean, mean + width, 0.0f);
  for (uint32_t i = 0; i < count; ++i)
    axpy(1.0f, row(inputs[i]), mean, width);
  const float inv = 1.0f / static_cast<float>(count);
  for (uint32_t j = 0; j < width; ++j)
    mean[j] *= inv;
  return mean;
}

/// One pair at once (the fused path): e += g v; v += g h.
inline void pair_step(float g, const float* h, float* v, float* e, uint32_t width) { update_row(g, h, v, e, width); }

/// One pair in two halves (the end-of-call adjust): the error first, from
/// v as the call found it...
inline void pair_error(float g, const float* v, float* e, uint32_t width) { axpy(g, v, e, width); }
/// ...then the output row, from h as the call found it.
inline void pair_output(float g, const float* h, float* v, uint32_t width) { axpy(g, h, v, width); }

/// The example's error to every one of its input rows.
template <class InputRow>
void apply_error(InputRow&& row, const uint32_t* inputs, uint32_t count, const float* e, uint32_t width) {
  for (uint32_t i = 0; i < count; ++i)
    axpy(1.0f, e, row(inputs[i]), width);
}

} // namespace gridvec::sgns
