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

/// A window trained whole (HogBatch, src/sgns/minibatch.hpp): the dot
/// products of its n target rows with its m context (input) rows over one
/// slice, F[i * m + j] = out_rows[i] . in_rows[j].
inline void window_dots(const float* const* out_rows, size_t n, const float* const* in_rows, uint32_t m, float* f,
                        uint32_t width) {
  for (size_t i = 0; i < n; ++i)
    dots(out_rows[i], in_rows, m, f + i * m, width);
}

/// ...and its update over one slice from the weights G (n x m, as F), every
/// read from the rows as the window found them: the contexts' deltas first
/// (delta_j = sum_i G_ij out_i), then out_i += sum_j G_ij in_j, then
/// in_j += delta_j. `delta`: m x width floats of scratch. A row that is
/// two of the targets (a noise word drawn twice) gets both updates.
inline void window_update(const float* g, float* const* out_rows, size_t n, float* const* in_rows, uint32_t m,
                          float* delta, uint32_t width) {
  std::fill(delta, delta + size_t{m} * width, 0.0f);
  for (uint32_t j = 0; j < m; ++j)
    axpy_many(g + j, m, out_rows, n, delta + size_t{j} * width, width);
  for (size_t i = 0; i < n; ++i)
    axpy_many(g + i * m, 1, in_rows, m, out_rows[i], width);
  for (uint32_t j = 0; j < m; ++j)
    axpy(1.0f, delta + size_t{j} * width, in_rows[j], width);
}

/// The example's error to every one of its input rows.
template <class InputRow>
void apply_error(InputRow&& row, const uint32_t* inputs, uint32_t count, const float* e, uint32_t width) {
  for (uint32_t i = 0; i < count; ++i)
    axpy(1.0f, e, row(inputs[i]), width);
}

} // namespace gridvec::sgns
