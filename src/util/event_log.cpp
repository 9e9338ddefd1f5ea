#include "src/util/event_log.hpp"

namespace gridvec {

void event_log::add(double seconds, int64_t unix_ms, std::string level, std::string text) {
  if (lines_.size() == capacity_)
    lines_.pop_front();
  lines_.push_back({++total_, seconds, unix_ms, std::move(level), std::move(text)});
}

std::vector<job_event> event_log::since(uint64_t after) const {
  std::vector<job_event> out;
  for (const auto& e : lines_)
    if (e.sequence > after)
      out.push_back(e);
  return out;
}

} // namespace gridvec
