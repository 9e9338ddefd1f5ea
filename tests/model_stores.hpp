#pragma once
// Test helpers for the SGNS kernels: a model's column-sliced shard stores
// whose output rows already hold values, and the whole model gathered from
// them in double, for the references written out in the tests.
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "src/model/shard_store.hpp"
#include "src/sgns/noise_sampler.hpp"

namespace gridvec::test {

using stores_t = std::vector<std::shared_ptr<shard_store>>;

/// `shards` column slices of a model of `dim` columns. v starts at zero in
/// a real store; here it gets values, so that every dot product matters.
inline stores_t make_stores(uint32_t shards, uint32_t dim, uint32_t vocab,
                            const std::shared_ptr<const noise_sampler>& noise) {
  stores_t out;
  for (uint32_t s = 0; s < shards; ++s) {
    out.push_back(std::make_shared<shard_store>(s, shards, dim, vocab, 3, noise));
    auto& st = *out.back();
    for (uint32_t w = 0; w < vocab; ++w)
      for (uint32_t j = 0; j < st.slice().width; ++j)
        st.output_row(w)[j] = 0.3f * std::sin(0.7f * static_cast<float>(w * dim + st.slice().first + j));
  }
  return out;
}

/// The whole model, every column, in double.
struct dense_model {
  uint32_t dim;
  std::vector<double> u, v;
  double* urow(uint32_t w) { return u.data() + size_t{w} * dim; }
  double* vrow(uint32_t w) { return v.data() + size_t{w} * dim; }
  /// v_target . u_context
  double dot(uint32_t target, uint32_t context) {
    double f = 0;
    for (uint32_t k = 0; k < dim; ++k)
      f += vrow(target)[k] * urow(context)[k];
    return f;
  }
};

inline dense_model gather(const stores_t& stores, uint32_t dim, uint32_t vocab) {
  dense_model m{dim, std::vector<double>(size_t{vocab} * dim), std::vector<double>(size_t{vocab} * dim)};
  for (const auto& st : stores)
    for (uint32_t w = 0; w < vocab; ++w)
      for (uint32_t j = 0; j < st->slice().width; ++j) {
        m.urow(w)[st->slice().first + j] = st->input_row(w)[j];
        m.vrow(w)[st->slice().first + j] = st->output_row(w)[j];
      }
  return m;
}

} // namespace gridvec::test
