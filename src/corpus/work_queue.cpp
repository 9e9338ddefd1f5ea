#include "src/corpus/work_queue.hpp"

namespace gridvec {

std::optional<uint32_t> work_queue::take(uint32_t learner, const std::vector<part_cursor>& cursors) {
  std::optional<uint32_t> best;
  for (uint32_t p = 0; p < holder_.size() && p < cursors.size(); ++p) {
    if (holder_[p] != nobody || cursors[p].finished(iterations_))
      continue;
    if (!best || cursors[p].epoch < cursors[*best].epoch)
      best = p;
  }
  if (best) {
    if (lease_epoch_.size() < holder_.size())
      lease_epoch_.resize(holder_.size(), 0);
    holder_[*best] = learner;
    lease_epoch_[*best] = cursors[*best].epoch;
  }
  return best;
}

bool work_queue::progressed(uint32_t learner, const part_cursor& c) {
  if (c.part >= holder_.size() || holder_[c.part] != learner)
    return false;
  if (c.epoch <= lease_epoch_[c.part] && !c.finished(iterations_))
    return false;
  holder_[c.part] = nobody;
  if (completed_.size() <= learner)
    completed_.resize(learner + 1, 0);
  ++completed_[learner];
  return true;
}

std::vector<uint32_t> work_queue::release_all(uint32_t learner) {
  auto held = held_by(learner);
  for (uint32_t p : held)
    holder_[p] = nobody;
  return held;
}

void work_queue::clear() { holder_.assign(holder_.size(), nobody); }

std::vector<uint32_t> work_queue::held_by(uint32_t learner) const {
  std::vector<uint32_t> held;
  for (uint32_t p = 0; p < holder_.size(); ++p)
    if (holder_[p] == learner)
      held.push_back(p);
  return held;
}

} // namespace gridvec
