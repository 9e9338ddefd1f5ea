#pragma once
// A job's curves in bounded memory, over the whole run: a point every
// `interval` seconds (loss, words/s, progress, learning rate) until
// `capacity` points are kept; then every two neighbours merge into one and
// the interval doubles. So it always holds between capacity/2 and capacity
// points spread over the run from its start, whatever its length: with 512
// points 1 s apart, the first 8.5 minutes at 1 s, up to 17 minutes at 2 s,
// a day at about 4 minutes. Phase changes and marks (checkpoints) are kept
// beside the points, the last `capacity` of each.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/job_history.hpp>

namespace gridvec {

class history_buffer {
public:
  /// `capacity`: even, at least 4. `interval`: seconds between points at first.
  explicit history_buffer(size_t capacity = 512, double interval = 1.0);

  /// Pairs trained since the last point and their summed loss.
  void add_loss(double loss_sum, uint64_t pairs);
  /// Called often (every tick while the job trains): adds a point when
  /// `interval` seconds have passed since the previous one (the first call
  /// only starts the clock). `processed` counts corpus words, all epochs; a
  /// rollback that lowers it gives a rate of 0 for that point. True if a
  /// point was added.
  bool sample(double seconds, double progress, uint64_t processed, float alpha);
  /// The job is in `phase` at `seconds`: extends the current span or opens a new one.
  void phase(double seconds, std::string_view phase);
  void mark(double seconds, std::string label);

  const std::vector<history_point>& points() const { return points_; }
  const std::vector<phase_span>& phases() const { return phases_; }
  const std::vector<history_mark>& marks() const { return marks_; }
  double interval() const { return interval_; }
  size_t capacity() const { return capacity_; }

private:
  void halve();

  size_t capacity_;
  double interval_;
  std::vector<history_point> points_;
  std::vector<phase_span> phases_;
  std::vector<history_mark> marks_;
  bool started_ = false;
  double last_seconds_ = 0;
  uint64_t last_processed_ = 0;
  double loss_sum_ = 0;
  uint64_t pairs_ = 0;
};

} // namespace gridvec
