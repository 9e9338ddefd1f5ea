#pragma once
// The two kernels SGNS spends its time in. Written with several independent
// accumulators so the compiler vectorises the reduction without -ffast-math.
#include <cstddef>

namespace gridvec {

inline float dot(const float* a, const float* b, size_t n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
    s4 += a[i + 4] * b[i + 4];
    s5 += a[i + 5] * b[i + 5];
    s6 += a[i + 6] * b[i + 6];
    s7 += a[i + 7] * b[i + 7];
  }
  for (; i < n; ++i)
    s0 += a[i] * b[i];
  return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7));
}

/// y += alpha * x
inline void axpy(float alpha, const float* __restrict x, float* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i)
    y[i] += alpha * x[i];
}

} // namespace gridvec
