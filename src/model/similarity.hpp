#pragma once
// Nearest neighbours and analogies answered by the shards themselves, with
// no vector leaving a shard (the shell's `nearest` and `analogy`):
//
//   1. each shard s returns the partial squared norms |u_s(w)|^2 of the
//      query words; summed, they give the norms |u(w)|;
//   2. the query q = sum_i weight_i u(w_i) is never formed: each shard takes
//      its own columns q_s and returns q_s . u_s(x) and |u_s(x)|^2 for every
//      word x, and |q_s|^2;
//   3. summed over shards, cos(q, u(x)) = q.u(x) / (|q| |u(x)|).
// For `nearest w` the query is u(w) / |u(w)|; for `analogy a b c` it is
// u(b)/|u(b)| - u(a)/|u(a)| + u(c)/|u(c)|, as word2vec's word-analogy.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>
#include "src/model/shard_store.hpp"

namespace gridvec {

/// Shard side of step 1: partial squared norms of the words' input vectors.
std::vector<float> partial_norms(const shard_store& store, const std::vector<uint32_t>& words);

/// Shard side of step 2, laid out as [|q_s|^2, dots (V), squared norms (V)].
std::vector<float> partial_similarity(const shard_store& store, const std::vector<uint32_t>& words,
                                      const std::vector<float>& weights);

/// Sums partial results (step 3 input) in place: `total` += `part`.
void add_partials(std::vector<float>& total, const std::vector<float>& part);

struct scored_word {
  uint32_t id = 0;
  float score = 0;
};

/// Step 3: the k words of highest cosine, best first, skipping `exclude`.
std::vector<scored_word> top_cosine(const std::vector<float>& summed, uint32_t k, const std::vector<uint32_t>& exclude);

/// Float vectors as the little-endian float32 bytes that carry them between
/// actors (std::vector<float> would be serialised element by element).
std::vector<char> float_bytes(const std::vector<float>& v);
expected<std::vector<float>> floats_of(const std::vector<char>& bytes);

} // namespace gridvec
