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
    e.outputs = mb.outputs;
    e.targets.clear();
    return e.targets;
  }

  /// The targets recorded for `mb`, or nullptr. An entry matches only if
  /// seed, number of targets and every output word agree.
  const std::vector<uint32_t>* find(const minibatch& mb) const {
    const size_t dots = mb.dot_count();
    for (const entry& e : ring_)
      if (e.valid && e.seed == mb.seed && e.targets.size() == dots && e.outputs == mb.outputs)
        return &e.targets;
    return nullptr;
  }

private:
  struct entry {
    uint64_t seed = 0;
    bool valid = false;
    std::vector<uint32_t> outputs; // of the minibatch: its positive words
    std::vector<uint32_t> targets;
  };
  std::array<entry, 64> ring_{};
  size_t next_ = 0;
};

} // namespace gridvec
