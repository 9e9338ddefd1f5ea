#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "src/util/rng.hpp"
#include "src/sgns/vector_math.hpp"

using namespace gridvec;

namespace {

std::vector<float> random_row(rng& r, size_t n, size_t pad) {
  std::vector<float> v(n + pad);
  for (auto& x : v)
    x = r.uniform() - 0.5f;
  return v;
}

} // namespace

// Lengths around every vector width (8, 16) and tail, at unaligned offsets;
// the floats just past n must never be read into the result or written.
TEST_CASE("vector_math: SIMD kernels match the scalar reference", "[vector_math]") {
  rng r(11);
  for (size_t n = 0; n <= 70; ++n) {
    for (size_t offset : {0u, 1u, 3u}) {
      auto a = random_row(r, n + offset, 8), b = random_row(r, n + offset, 8);
      const float* x = a.data() + offset;
      INFO("n " << n << " offset " << offset);

      double exact = 0, mag = 0;
      for (size_t i = 0; i < n; ++i) {
        exact += double{x[i]} * b[offset + i];
        mag += std::abs(double{x[i]} * b[offset + i]);
      }
      CHECK(std::abs(dot(x, b.data() + offset, n) - exact) <= 1e-6 * mag + 1e-7);
      CHECK(std::abs(scalar::dot(x, b.data() + offset, n) - exact) <= 1e-6 * mag + 1e-7);

      auto y1 = b, y2 = b;
      axpy(0.37f, x, y1.data() + offset, n);
      scalar::axpy(0.37f, x, y2.data() + offset, n);
      for (size_t i = 0; i < y1.size(); ++i)
        REQUIRE(y1[i] == Approx(y2[i]).margin(1e-6));
      for (size_t i = offset + n; i < y1.size(); ++i)
        REQUIRE(y1[i] == b[i]); // untouched past the end

      auto h = random_row(r, n + offset, 8);
      auto v1 = b, v2 = b, e1 = a, e2 = a;
      update_row(-0.21f, h.data() + offset, v1.data() + offset, e1.data() + offset, n);
      scalar::update_row(-0.21f, h.data() + offset, v2.data() + offset, e2.data() + offset, n);
      for (size_t i = 0; i < v1.size(); ++i) {
        REQUIRE(v1[i] == Approx(v2[i]).margin(1e-6));
        REQUIRE(e1[i] == Approx(e2[i]).margin(1e-6));
      }
      for (size_t i = offset + n; i < v1.size(); ++i) {
        REQUIRE(v1[i] == b[i]);
        REQUIRE(e1[i] == a[i]);
      }
    }
  }
}

TEST_CASE("vector_math: update_row uses v from before the update", "[vector_math]") {
  std::vector<float> h{1, 2, 3}, v{10, 20, 30}, e{0, 0, 0};
  scalar::update_row(0.5f, h.data(), v.data(), e.data(), 3);
  CHECK(e == std::vector<float>{5, 10, 15});
  CHECK(v == std::vector<float>{10.5f, 21, 31.5f});
  std::vector<float> v2{10, 20, 30}, e2{0, 0, 0};
  update_row(0.5f, h.data(), v2.data(), e2.data(), 3);
  CHECK(e2 == e);
  CHECK(v2 == v);
}

// The window kernels of HogBatch: several rows against one, at every
// length and row count around the vector width and the four-row blocks.
TEST_CASE("vector_math: dots and axpy_many match the scalar reference", "[vector_math]") {
  rng r(17);
  for (size_t n : {1u, 15u, 16u, 17u, 37u, 100u}) {
    for (size_t count : {1u, 3u, 4u, 5u, 9u}) {
      INFO("n " << n << " rows " << count);
      std::vector<std::vector<float>> rows;
      std::vector<const float*> ptrs;
      for (size_t j = 0; j < count; ++j)
        rows.push_back(random_row(r, n, 8));
      for (const auto& row : rows)
        ptrs.push_back(row.data());
      const auto a = random_row(r, n, 8);
      std::vector<float> got(count), want(count);
      dots(a.data(), ptrs.data(), count, got.data(), n);
      scalar::dots(a.data(), ptrs.data(), count, want.data(), n);
      for (size_t j = 0; j < count; ++j)
        CHECK(got[j] == Approx(want[j]).margin(1e-5));

      // Coefficients with a stride (a column of a row-major matrix).
      std::vector<float> coeffs(count * 3);
      for (auto& c : coeffs)
        c = r.uniform() - 0.5f;
      auto y1 = random_row(r, n, 8), y2 = y1;
      axpy_many(coeffs.data() + 1, 3, ptrs.data(), count, y1.data(), n);
      scalar::axpy_many(coeffs.data() + 1, 3, ptrs.data(), count, y2.data(), n);
      for (size_t i = 0; i < n; ++i)
        CHECK(y1[i] == Approx(y2[i]).margin(1e-5));
      for (size_t i = n; i < n + 8; ++i)
        CHECK(y1[i] == y2[i]); // nothing past n is written
    }
  }
}
