#pragma once
// The corpus parts as a work queue (Network-efficient word2vec, Figure 7): the corpus is cut
// into more parts than learners, and a learner takes the next part nobody
// holds, trains one epoch of it and hands it back; so a slow learner trains
// fewer parts instead of holding up the epoch. Each hand-out is a lease of
// one part for the rest of its current epoch. The next part is the one with
// the fewest epochs done (the lowest index among equals), so every part's
// epoch e is handed out before any part's epoch e + 1, and no part is held
// by two learners at once: each part is trained exactly once per epoch. A
// lost learner's lease goes back to the queue at the part's last safe
// cursor, so a recovery re-does only what that learner had not yet made
// safe. Knows nothing of actors; the coordinator keeps the cursors.
#include <cstdint>
#include <optional>
#include <vector>

#include <gridvec/core/part_cursor.hpp>

namespace gridvec {

class work_queue {
public:
  static constexpr uint32_t nobody = UINT32_MAX;

  /// `parts` parts, `iterations` epochs each; nobody holds any.
  work_queue(size_t parts, uint32_t iterations) : iterations_(iterations), holder_(parts, nobody) {}

  /// The next part for `learner` given the parts' cursors, now leased to
  /// it; nullopt when every part is held or done.
  std::optional<uint32_t> take(uint32_t learner, const std::vector<part_cursor>& cursors);
  /// A learner's report of part `p`'s cursor: the lease ends once the part's
  /// epoch moved past the one it was leased for (or the part is done).
  /// True if the lease ended now.
  bool progressed(uint32_t learner, const part_cursor& c);
  /// Every lease of `learner` goes back to the queue (it is lost); returns
  /// the parts it held.
  std::vector<uint32_t> release_all(uint32_t learner);
  /// Nobody holds anything any more (a rollback hands out anew).
  void clear();

  uint32_t holder(uint32_t part) const { return holder_[part]; }
  /// Parts `learner` holds now.
  std::vector<uint32_t> held_by(uint32_t learner) const;
  /// (Part, epoch) leases each learner completed.
  const std::vector<uint64_t>& completed() const { return completed_; }
  size_t parts() const { return holder_.size(); }

private:
  uint32_t iterations_;
  std::vector<uint32_t> holder_;      // per part: its learner, or nobody
  std::vector<uint32_t> lease_epoch_; // per part: the epoch it is leased for
  std::vector<uint64_t> completed_;   // per learner
};

} // namespace gridvec
