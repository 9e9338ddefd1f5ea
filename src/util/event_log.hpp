#pragma once
// The last lines of a job's event log (job started, checkpoint written,
// shard lost, restored, ...), numbered, in a ring of fixed size: a dashboard
// shows them, and a run of any length keeps the memory it takes bounded.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <gridvec/core/job_history.hpp>

namespace gridvec {

class event_log {
public:
  explicit event_log(size_t capacity = 200) : capacity_(capacity ? capacity : 1) {}

  /// Appends a line; the oldest goes once `capacity` are kept.
  void add(double seconds, int64_t unix_ms, std::string level, std::string text);
  /// The lines kept whose sequence is above `after`, oldest first.
  std::vector<job_event> since(uint64_t after = 0) const;
  /// Lines added in all (also those no longer kept).
  uint64_t total() const { return total_; }
  size_t capacity() const { return capacity_; }

private:
  size_t capacity_;
  uint64_t total_ = 0;
  std::deque<job_event> lines_;
};

} // namespace gridvec
