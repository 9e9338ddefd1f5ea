#pragma once
// word2vec.c's start for an input vector, (uniform - 0.5) / dim, from a
// hash of (seed, word, global column) instead of a running generator: every
// layout of the model -- any column split, any word split -- starts from
// the same vectors.
#include <cstdint>

#include "src/util/rng.hpp"

namespace gridvec {

inline float initial_input_value(uint64_t seed, uint32_t word, uint32_t column, uint32_t dim) {
  const uint64_t h = mix64(seed, uint64_t{word} * dim + column);
  const float uniform = static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
  return (uniform - 0.5f) * (1.0f / static_cast<float>(dim));
}

} // namespace gridvec
