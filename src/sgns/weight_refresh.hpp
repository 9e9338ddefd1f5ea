#pragma once
// Delay compensation on a shard: the protocol path's weights recomputed for
// the rows as they are when the update lands (docs/quality.md: without it the
// default flags diverged on the protocol path).
//
// A learner turns a minibatch's dot products f into weights
//   g = alpha (label - sigma(f))                  (src/sgns/sgns.hpp)
// but by the time the adjust reaches a shard, the adjusts of the other
// minibatches in flight (every learner's) have moved the rows: f is stale.
// That is gradient descent with a delay, x' = x - a L x(t - K): it
// oscillates and grows once a L K passes about 1 (repetitive text, a wiki
// table, blew up at the default flags), and short of that it still learns
// less per step (at --in-flight 32 the dev corpus lost 0.04 WordSim-353
// against word2vec.c; docs/quality.md).
//
// The shard kept its own partial dot products from the minibatch's dotprod
// (src/sgns/drawn_targets.hpp). At the adjust it takes them again from its
// rows as they are now; the difference is how far its slice of f moved.
// Columns are exchangeable, so the whole f moved about dim / width times
// that, and the weight is recomputed for f plus that drift:
//   g' = alpha (label - sigma(f + drift)),  sigma(f) = label - g / alpha
// (sigma is read back from g: the wire carries weights, not dot products).
// With one shard the refresh is exact and every weight is that of the rows
// the update lands on, as in word2vec.c; with S shards each scales its own
// slice's drift, which moves its slice downhill all the same. A weight
// clipped at |f| > 6 (sigma 0 or 1) stays: word2vec.c skips or clips it.
// The refresh runs in the first pass of shard_store::adjust, which reads
// every pair's rows anyway (src/model/shard_store.cpp).
// The refresh takes one exponential per dot product, about a fifth of a
// shard's time when it was libm's expf behind a call and a branch: it is
// computed for a pair's targets at once, branch-free, with an exponential
// of a few multiplications that the compiler vectorizes (exp_approx, within
// 2 ulp of expf over the range it is used on).
#include <bit>
#include <cstddef>
#include <cstdint>

namespace gridvec {

/// e^x for x in [-87, 88] (callers clamp), Cody-Waite reduction and the
/// Cephes polynomial: within 2 ulp of expf, and no call or branch.
inline float exp_approx(float x) {
  constexpr float log2e = 1.44269504088896341f;
  constexpr float ln2_hi = 0.693359375f, ln2_lo = -2.12194440e-4f;
  constexpr float shifter = 12582912.0f; // 1.5 * 2^23: adding it rounds to an integer
  const float t = x * log2e + shifter;
  const float n = t - shifter;
  const float r = x - n * ln2_hi - n * ln2_lo; // |r| <= ln 2 / 2
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // n sits in the low bits of t's mantissa: 2^n is built from it directly.
  const int32_t k = std::bit_cast<int32_t>(t) - std::bit_cast<int32_t>(shifter);
  return p * std::bit_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(k + 127) << 23));
}

/// The weight g = alpha (label - sigma(f)) of a dot product f that has
/// since moved by `drift`.
inline float refreshed_weight(float weight, float alpha, uint8_t label, float drift) {
  const float value = static_cast<float>(label & 1);
  const float sigma = value - weight / alpha;
  // sigma(f + drift) = sigma e^drift / (1 - sigma + sigma e^drift): no
  // logarithm needed. Past |drift| = 30 sigma is saturated either way (and
  // e^drift would overflow to inf / inf).
  const float d = drift < -30.0f ? -30.0f : (drift > 30.0f ? 30.0f : drift);
  const float grown = sigma * exp_approx(d);
  const float fresh = alpha * (value - grown / (1.0f - sigma + grown));
  // A weight clipped at |f| > 6 (sigma 0 or 1), or NaN, stays.
  return sigma > 0.0f && sigma < 1.0f ? fresh : weight;
}

/// refreshed_weight for `count` dot products at once: out[k] is the weight
/// of weights[k] after its dot product moved by widen (now[k] -
/// partials[k]). `out` may be `now`.
void refresh_weights(const float* weights, const float* partials, const float* now, const uint8_t* labels, float alpha,
                     float widen, size_t count, float* out);

} // namespace gridvec
