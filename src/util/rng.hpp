#pragma once
// A small, fast, seedable random generator (SplitMix64).
//
// Shards regenerate the same noise words from the seed a learner sends, so
// every shard and every call must produce the same sequence for the same
// seed: the generator is deterministic and has no hidden global state.
#include <cstdint>

namespace gridvec {

class rng {
public:
  explicit rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// Uniform integer in [0, n) without division (Lemire's multiply-shift).
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(((next() >> 32) * n) >> 32); }

  /// Uniform float in [0, 1).
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }

private:
  uint64_t state_;
};

/// Stateless mix of several values into one 64-bit hash, e.g. to initialise
/// the vector component (word, column) identically whatever the sharding.
inline uint64_t mix64(uint64_t a, uint64_t b) {
  rng r(a * 0xD1B54A32D192ED03ull ^ b);
  return r.next();
}

} // namespace gridvec
