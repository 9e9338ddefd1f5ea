#include "src/table/row_init.hpp"

#include <algorithm>
#include <cmath>

namespace gridvec {

namespace {

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A uniform number in (0, 1) from the hash of (seed, key, column, draw).
double unit(uint64_t seed, uint64_t key, uint32_t column, uint32_t draw) {
  uint64_t h = mix(seed + 0x9e3779b97f4a7c15ull);
  h = mix(h ^ key);
  h = mix(h ^ (uint64_t{column} << 1 | draw));
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
