#pragma once
// What a shard's dotprod of a minibatch keeps for its adjust: the noise
// words it drew, so they are not drawn twice (drawing was 8% of a cluster
// shard's time), and its partial dot products, from which the adjust
// refreshes stale weights (src/sgns/weight_refresh.hpp). Every minibatch in
// flight, of every learner, is between the two calls, so a ring that holds
// a few more than that suffices; the adjust tells how many there are (its
// staleness) and the ring grows to fit. A minibatch not found there (the
// ring wrapped, or a rollback) has its noise words drawn again, which gives
// the same words (they are a function of the seed), and keeps its weights.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/sgns/minibatch.hpp"

namespace gridvec {

class drawn_targets {
public:
  struct entry {
    uint64_t seed = 0;
    bool valid = false;
    std::vector<uint32_t> outputs; // of the minibatch: its positive words
    std::vector<uint32_t> targets;
    std::vector<float> partials; // this shard's dot products, in the reply's layout
  };

  /// Starts the entry of `mb` (its dotprod), in place of the oldest one.
  /// Its targets are then appended to targets(), its dot products given
  /// to keep_partials().
  std::vector<uint32_t>& record(const minibatch& mb) {
    entry& e = ring_[next_];
    last_ = next_;
    next_ = (next_ + 1) % ring_.size();
    e.seed = mb.seed;
    e.valid = true;
    e.outputs = mb.outputs;
    e.targets.clear();
    e.partials.clear();
    return e.targets;
  }

  /// The partial dot products of the minibatch recorded last.
  void keep_partials(const float* dots, size_t count) { ring_[last_].partials.assign(dots, dots + count); }

  /// The entry recorded last for `mb`, or nullptr (a learner that rolled
  /// back sends a minibatch's dotprod again: the newest dot products are
  /// the ones its weights come from). An entry matches only if seed,
  /// number of targets and every output word agree.
  const entry* find(const minibatch& mb) const {
    const size_t targets = mb.target_count();
    for (size_t i = 0; i < ring_.size(); ++i) {
      const entry& e = ring_[(last_ + ring_.size() - i) % ring_.size()];
      if (e.valid && e.seed == mb.seed && e.targets.size() == targets && e.outputs == mb.outputs)
        return &e;
    }
    return nullptr;
  }

  /// Room for `in_flight` minibatches between their two calls, and the
  /// group each learner sends ahead of its adjusts (bounded: a peer sets
  /// the number).
  void fit(uint32_t in_flight) {
    const size_t want = std::min<size_t>(max_entries, size_t{in_flight} + in_flight / 4 + 16);
    if (want > ring_.size())
      ring_.resize(want); // empty entries, taken once the oldest are overwritten
  }

  size_t capacity() const { return ring_.size(); }

  static constexpr size_t max_entries = 1024;

private:
  std::vector<entry> ring_ = std::vector<entry>(64);
  size_t next_ = 0, last_ = 0;
};

} // namespace gridvec
