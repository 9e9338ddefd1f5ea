#pragma once
// The noise words a shard drew for a minibatch's dotprod, kept until its
// adjust arrives so they are not drawn twice (drawing was 8% of a cluster
// shard's time). A handful of minibatches per learner are between the two
// calls, so a small ring suffices; a minibatch not found there (the ring
// wrapped, or a rollback) has its noise words drawn again, which gives the
// same words: they are a function of the seed.
#include <array>
#include <cstdint>
#include <vector>

#include "src/sgns/minibatch.hpp"

namespace gridvec {

class drawn_targets {
public:
  /// A buffer to record the targets of `mb` into (its dotprod); replaces
  /// the oldest entry.
  std::vector<uint32_t>& record(const minibatch& mb) {
    entry& e = ring_[next_];
    next_ = (next_ + 1) % ring_.size();
    e.seed = mb.seed;
    e.valid = true;
    e.targets.clear();
    return e.targets;
  }

  /// The targets recorded for `mb`, or nullptr. An entry matches only if
  /// seed, shape and every positive word agree.
  const std::vector<uint32_t>* find(const minibatch& mb) const {
    const size_t per_pair = size_t{mb.negatives} + 1;
    for (const entry& e : ring_) {
      if (!e.valid || e.seed != mb.seed || e.targets.size() != mb.pairs() * per_pair)
        continue;
      bool same = true;
      for (size_t k = 0; k < mb.pairs() && same; ++k)
        same = e.targets[k * per_pair] == mb.outputs[k];
      if (same)
        return &e.targets;
    }
    return nullptr;
  }

private:
  struct entry {
    uint64_t seed = 0;
    bool valid = false;
    std::vector<uint32_t> targets;
  };
  std::array<entry, 64> ring_{};
  size_t next_ = 0;
};

} // namespace gridvec
