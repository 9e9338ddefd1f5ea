#include "src/replicated/sync_round.hpp"

#include <algorithm>
#include <string>

namespace gridvec {

void sync_round::restart() {
  round_ = 0;
  clear_round();
}

void sync_round::forget() {
  clear_round();
  at_ = phase::loading;
}

void sync_round::clear_round() {
  changes_.clear();
  masters_heard_ = 0;
  finishing_ = false;
  all_stored_ = true;
  shards_current_ = true; // the model is loaded from the shards next
}

status sync_round::receive_changes(row_block changes) {
  const uint64_t round = changes.round;
  auto& received = changes_[round];
  const bool twice =
    std::any_of(received.begin(), received.end(), [&](const row_block& b) { return b.host == changes.host; });
  if (round < round_ || round > round_ + 1 || twice)
    return failure{"host " + std::to_string(changes.host) + " sent changes of round " + std::to_string(round) +
                   (twice ? " twice" : " during round " + std::to_string(round_))};
  received.push_back(std::move(changes));
  return {};
}

std::optional<std::vector<row_block>> sync_round::complete_changes(uint64_t round, uint32_t hosts) {
  auto it = changes_.find(round);
  if (it == changes_.end() || it->second.size() < hosts || round_ != round || at_ != phase::syncing)
    return std::nullopt;
  std::vector<row_block> out = std::move(it->second);
  changes_.erase(it);
  return out;
}

status sync_round::check_values(const row_block& values) const {
  if (values.round != round_ || at_ != phase::syncing)
    return failure{"round " + std::to_string(values.round) + "'s values came in round " + std::to_string(round_)};
  return {};
}

bool sync_round::hear_values(bool last, bool stored, uint32_t hosts) {
  finishing_ |= last;
  all_stored_ &= stored;
  if (++masters_heard_ < hosts)
    return false;
  masters_heard_ = 0;
  shards_current_ = all_stored_;
  all_stored_ = true;
  ++round_;
  at_ = finishing_ ? phase::finished : phase::training;
  return true;
}

} // namespace gridvec
