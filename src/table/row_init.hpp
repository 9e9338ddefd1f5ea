#pragma once
// The initial value of a row nobody has written yet. A pure function of
// (seed, key, column): every shard, every restart and both layouts give a
// row the same start, so "lazily created on first read" needs no
// coordination between shards (the Distributed embedding layer design's lazy initialisation).
#include <cstdint>

#include <gridvec/core/table_spec.hpp>

namespace gridvec {

/// Writes columns [first, first + width) of row `key`'s initial value.
void initial_row(const table_spec& spec, uint64_t key, uint32_t first, uint32_t width, float* out);

} // namespace gridvec
