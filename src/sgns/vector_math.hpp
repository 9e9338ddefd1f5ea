#pragma once
// The kernels SGNS spends its time in: dot products and axpy over one
// shard's slice of a vector (d/S floats, typically 25..300).
//
// With AVX-512 (or AVX2 + FMA) they are written with intrinsics: a row of
// 100 floats is 7 vector FMAs instead of 100 scalar ones, and the dot
// product keeps two independent vector accumulators so the FMA latency does
// not serialise it. Without them (another -march) the plain loops below are
// used; they are also the reference the unit tests compare against
// (tests/vector_math.test.cpp). Results differ from the scalar loops only by
// the order of the float additions.
#include <cstddef>
#include <cstdint>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
// GCC 12's AVX-512 headers start some casts and extracts from a
// deliberately undefined register and then warn that it is uninitialized
// wherever they are inlined (GCC bug 105593): with -Werror the AVX-512
// build failed. The warnings point into the header, so they are silenced
// for the header alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

namespace gridvec {

namespace scalar {

inline float dot(const float* a, const float* b, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

/// y += alpha * x
inline void axpy(float alpha, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i)
    y[i] += alpha * x[i];
}

/// The SGNS update of one output row v with weight g against input h:
/// e += g * v (with v before the update), v += g * h.
inline void update_row(float g, const float* h, float* v, float* e, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float vi = v[i];
    e[i] += g * vi;
    v[i] = vi + g * h[i];
  }
}

/// out[j] = a . rows[j] for j < count (a window's dot products with one
/// target row).
inline void dots(const float* a, const float* const* rows, size_t count, float* out, size_t n) {
  for (size_t j = 0; j < count; ++j)
    out[j] = dot(a, rows[j], n);
}

/// y += sum over j < count of coeffs[j * stride] * xs[j] (a window's rows
/// summed into one, each with its weight).
inline void axpy_many(const float* coeffs, size_t stride, const float* const* xs, size_t count, float* y, size_t n) {
  for (size_t j = 0; j < count; ++j)
    axpy(coeffs[j * stride], xs[j], y, n);
}

} // namespace scalar

#if defined(__AVX512F__)

inline float dot(const float* a, const float* b, size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
  }
  if (i + 16 <= n) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    i += 16;
  }
  if (i < n) { // the tail, with masked loads (zeros beyond n)
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

inline void axpy(float alpha, const float* x, float* y, size_t n) {
  const __m512 a = _mm512_set1_ps(alpha);
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(a, _mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m,
                          _mm512_fmadd_ps(a, _mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i)));
  }
}

inline void update_row(float g, const float* h, float* v, float* e, size_t n) {
  const __m512 gv = _mm512_set1_ps(g);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 vi = _mm512_loadu_ps(v + i);
    _mm512_storeu_ps(e + i, _mm512_fmadd_ps(gv, vi, _mm512_loadu_ps(e + i)));
    _mm512_storeu_ps(v + i, _mm512_fmadd_ps(gv, _mm512_loadu_ps(h + i), vi));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 vi = _mm512_maskz_loadu_ps(m, v + i);
    _mm512_mask_storeu_ps(e + i, m, _mm512_fmadd_ps(gv, vi, _mm512_maskz_loadu_ps(m, e + i)));
    _mm512_mask_storeu_ps(v + i, m, _mm512_fmadd_ps(gv, _mm512_maskz_loadu_ps(m, h + i), vi));
  }
}

inline void dots(const float* a, const float* const* rows, size_t count, float* out, size_t n) {
  // Four rows at a time: each 16 floats of `a` are loaded once for four
  // products, and four independent accumulators hide the FMA latency.
  size_t j = 0;
  const size_t body = n & ~size_t{15};
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - body)) - 1);
  for (; j + 4 <= count; j += 4) {
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps(), s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
    const float *r0 = rows[j], *r1 = rows[j + 1], *r2 = rows[j + 2], *r3 = rows[j + 3];
    for (size_t i = 0; i < body; i += 16) {
      const __m512 x = _mm512_loadu_ps(a + i);
      s0 = _mm512_fmadd_ps(x, _mm512_loadu_ps(r0 + i), s0);
      s1 = _mm512_fmadd_ps(x, _mm512_loadu_ps(r1 + i), s1);
      s2 = _mm512_fmadd_ps(x, _mm512_loadu_ps(r2 + i), s2);
      s3 = _mm512_fmadd_ps(x, _mm512_loadu_ps(r3 + i), s3);
    }
    if (tail) {
      const __m512 x = _mm512_maskz_loadu_ps(tail, a + body);
      s0 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(tail, r0 + body), s0);
      s1 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(tail, r1 + body), s1);
      s2 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(tail, r2 + body), s2);
      s3 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(tail, r3 + body), s3);
    }
    // The four horizontal sums at once: halves added, then pairwise adds
    // across the four (13 instructions where four reductions take 32).
    auto half = [](__m512 v) {
      return _mm256_add_ps(_mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    };
    const __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(half(s0), half(s1)), _mm256_hadd_ps(half(s2), half(s3)));
    _mm_storeu_ps(out + j, _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1)));
  }
  for (; j < count; ++j)
    out[j] = dot(a, rows[j], n);
}

inline void axpy_many(const float* coeffs, size_t stride, const float* const* xs, size_t count, float* y, size_t n) {
  // Each 16 floats of y are loaded and stored once for all the rows.
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 acc = _mm512_loadu_ps(y + i);
    for (size_t j = 0; j < count; ++j)
      acc = _mm512_fmadd_ps(_mm512_set1_ps(coeffs[j * stride]), _mm512_loadu_ps(xs[j] + i), acc);
    _mm512_storeu_ps(y + i, acc);
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    __m512 acc = _mm512_maskz_loadu_ps(m, y + i);
    for (size_t j = 0; j < count; ++j)
      acc = _mm512_fmadd_ps(_mm512_set1_ps(coeffs[j * stride]), _mm512_maskz_loadu_ps(m, xs[j] + i), acc);
    _mm512_mask_storeu_ps(y + i, m, acc);
  }
}

#elif defined(__AVX2__) && defined(__FMA__)

inline float dot(const float* a, const float* b, size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
  }
  if (i + 8 <= n) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    i += 8;
  }
  __m256 s = _mm256_add_ps(s0, s1);
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  q = _mm_add_ss(q, _mm_movehdup_ps(q));
  float r = _mm_cvtss_f32(q);
  for (; i < n; ++i)
    r += a[i] * b[i];
  return r;
}

inline void axpy(float alpha, const float* x, float* y, size_t n) {
  const __m256 a = _mm256_set1_ps(alpha);
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(a, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  for (; i < n; ++i)
    y[i] += alpha * x[i];
}

inline void update_row(float g, const float* h, float* v, float* e, size_t n) {
  const __m256 gv = _mm256_set1_ps(g);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 vi = _mm256_loadu_ps(v + i);
    _mm256_storeu_ps(e + i, _mm256_fmadd_ps(gv, vi, _mm256_loadu_ps(e + i)));
    _mm256_storeu_ps(v + i, _mm256_fmadd_ps(gv, _mm256_loadu_ps(h + i), vi));
  }
  scalar::update_row(g, h + i, v + i, e + i, n - i);
}

#else

inline float dot(const float* a, const float* b, size_t n) { return scalar::dot(a, b, n); }
inline void axpy(float alpha, const float* x, float* y, size_t n) { scalar::axpy(alpha, x, y, n); }
inline void update_row(float g, const float* h, float* v, float* e, size_t n) { scalar::update_row(g, h, v, e, n); }

#endif

#if !defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)

inline void dots(const float* a, const float* const* rows, size_t count, float* out, size_t n) {
  // Four rows at a time: each 8 floats of `a` are loaded once for four
  // products, and four independent accumulators hide the FMA latency.
  size_t j = 0;
  const size_t body = n & ~size_t{7};
  for (; j + 4 <= count; j += 4) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    const float *r0 = rows[j], *r1 = rows[j + 1], *r2 = rows[j + 2], *r3 = rows[j + 3];
    for (size_t i = 0; i < body; i += 8) {
      const __m256 x = _mm256_loadu_ps(a + i);
      s0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(r0 + i), s0);
      s1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(r1 + i), s1);
      s2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(r2 + i), s2);
      s3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(r3 + i), s3);
    }
    // The four horizontal sums at once: pairwise adds across the four,
    // then the two 128-bit halves.
    const __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(s0, s1), _mm256_hadd_ps(s2, s3));
    _mm_storeu_ps(out + j, _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1)));
    for (size_t i = body; i < n; ++i) {
      out[j] += a[i] * r0[i];
      out[j + 1] += a[i] * r1[i];
      out[j + 2] += a[i] * r2[i];
      out[j + 3] += a[i] * r3[i];
    }
  }
  for (; j < count; ++j)
    out[j] = dot(a, rows[j], n);
}

inline void axpy_many(const float* coeffs, size_t stride, const float* const* xs, size_t count, float* y, size_t n) {
  // Each 16 floats of y are loaded and stored once for all the rows, and
  // each row's weight broadcast once for them.
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 acc0 = _mm256_loadu_ps(y + i), acc1 = _mm256_loadu_ps(y + i + 8);
    for (size_t j = 0; j < count; ++j) {
      const __m256 c = _mm256_broadcast_ss(coeffs + j * stride);
      acc0 = _mm256_fmadd_ps(c, _mm256_loadu_ps(xs[j] + i), acc0);
      acc1 = _mm256_fmadd_ps(c, _mm256_loadu_ps(xs[j] + i + 8), acc1);
    }
    _mm256_storeu_ps(y + i, acc0);
    _mm256_storeu_ps(y + i + 8, acc1);
  }
  if (i + 8 <= n) {
    __m256 acc = _mm256_loadu_ps(y + i);
    for (size_t j = 0; j < count; ++j)
      acc = _mm256_fmadd_ps(_mm256_broadcast_ss(coeffs + j * stride), _mm256_loadu_ps(xs[j] + i), acc);
    _mm256_storeu_ps(y + i, acc);
    i += 8;
  }
  for (; i < n; ++i) {
    float acc = y[i];
    for (size_t j = 0; j < count; ++j)
      acc += coeffs[j * stride] * xs[j][i];
    y[i] = acc;
  }
}

#elif !defined(__AVX512F__)
inline void dots(const float* a, const float* const* rows, size_t count, float* out, size_t n) {
  for (size_t j = 0; j < count; ++j)
    out[j] = dot(a, rows[j], n);
}
inline void axpy_many(const float* coeffs, size_t stride, const float* const* xs, size_t count, float* y, size_t n) {
  for (size_t j = 0; j < count; ++j)
    axpy(coeffs[j * stride], xs[j], y, n);
}
#endif

/// Asks the cache for the `n` floats at p (one prefetch per 64-byte line):
/// the rows of noise words are random accesses into V rows, and on a large
/// vocabulary each is a cache (and TLB) miss unless fetched ahead.
inline void prefetch_row(const float* p, size_t n) {
  auto c = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{63}; // the first line
  const auto end = reinterpret_cast<uintptr_t>(p + n);
  for (; c < end; c += 64)
    __builtin_prefetch(reinterpret_cast<const void*>(c), 1, 3);
}

} // namespace gridvec
