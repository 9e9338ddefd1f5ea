#pragma once

#include <cstdint>

namespace gridvec {

/// a / b rounded up: how many pieces of b hold a (a itself when b is 0).
constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return b > 0 ? (a + b - 1) / b : a; }

} // namespace gridvec
