#include "src/table/row_init.hpp"

#include <algorithm>
#include <cmath>

#include "src/util/rng.hpp"

namespace gridvec {

namespace {

// A uniform number in (0, 1) from the hash of (seed, key, column, draw),
// with the SplitMix64 mix the SGNS shards initialise their vectors with.
double unit(uint64_t seed, uint64_t key, uint32_t column, uint32_t draw) {
  const uint64_t h = mix64(mix64(seed, key), uint64_t{column} << 1 | draw);
  return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;
}

} // namespace

void initial_row(const table_spec& spec, uint64_t key, uint32_t first, uint32_t width, float* out) {
  switch (spec.init) {
    case table_init::zeros: std::fill(out, out + width, 0.0f); return;
    case table_init::uniform:
      for (uint32_t c = 0; c < width; ++c)
        out[c] = static_cast<float>(spec.init_scale * (2.0 * unit(spec.seed, key, first + c, 0) - 1.0));
      return;
    case table_init::normal:
      // Box-Muller, one normal per column from two uniforms of its own.
      for (uint32_t c = 0; c < width; ++c) {
        const double u1 = unit(spec.seed, key, first + c, 0), u2 = unit(spec.seed, key, first + c, 1);
        out[c] = static_cast<float>(spec.init_scale * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
      }
      return;
  }
}

} // namespace gridvec
