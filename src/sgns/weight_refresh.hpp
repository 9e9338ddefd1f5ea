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
#include <cstdint>

namespace gridvec {

/// The weight g = alpha (label - sigma(f)) of a dot product f that has
/// since moved by `drift`.
float refreshed_weight(float weight, float alpha, uint8_t label, float drift);

} // namespace gridvec
