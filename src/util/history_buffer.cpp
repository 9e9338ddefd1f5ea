#include "src/util/history_buffer.hpp"

#include <algorithm>
#include <stdexcept>

namespace gridvec {

history_buffer::history_buffer(size_t capacity, double interval) : capacity_(capacity), interval_(interval) {
  if (capacity_ < 4 || capacity_ % 2 != 0 || !(interval_ > 0))
    throw std::invalid_argument("history_buffer: capacity must be even and >= 4, interval > 0");
  points_.reserve(capacity_);
}

void history_buffer::add_loss(double loss_sum, uint64_t pairs) {
  loss_sum_ += loss_sum;
  pairs_ += pairs;
}

bool history_buffer::sample(double seconds, double progress, uint64_t processed, float alpha) {
  if (!started_) {
    started_ = true;
    last_seconds_ = seconds;
    last_processed_ = processed;
    loss_sum_ = 0;
    pairs_ = 0;
    return false;
  }
  const double span = seconds - last_seconds_;
  if (span < interval_)
    return false;
  history_point p;
  p.seconds = seconds;
  p.span = span;
  p.progress = progress;
  p.words_per_second = processed >= last_processed_ ? static_cast<double>(processed - last_processed_) / span : 0;
  p.pairs = pairs_;
  p.loss = pairs_ > 0 ? loss_sum_ / static_cast<double>(pairs_) : 0;
  p.alpha = alpha;
  if (points_.size() == capacity_)
    halve();
  points_.push_back(p);
  last_seconds_ = seconds;
  last_processed_ = processed;
  loss_sum_ = 0;
  pairs_ = 0;
  return true;
}

// Every two neighbours become one point covering both: rates weighted by
// time, losses by pairs, the rest as at the later one's end.
void history_buffer::halve() {
  std::vector<history_point> merged;
  merged.reserve(capacity_);
  for (size_t i = 0; i + 1 < points_.size(); i += 2) {
    const auto& a = points_[i];
    const auto& b = points_[i + 1];
    history_point m = b;
    m.span = a.span + b.span;
    m.words_per_second = m.span > 0 ? (a.words_per_second * a.span + b.words_per_second * b.span) / m.span : 0;
    m.pairs = a.pairs + b.pairs;
    m.loss = m.pairs > 0 ? (a.loss * static_cast<double>(a.pairs) + b.loss * static_cast<double>(b.pairs)) /
                             static_cast<double>(m.pairs)
                         : 0;
    merged.push_back(m);
  }
  if (points_.size() % 2 != 0)
    merged.push_back(points_.back());
  points_ = std::move(merged);
  interval_ *= 2;
}

void history_buffer::phase(double seconds, std::string_view phase) {
  if (!phases_.empty() && phases_.back().phase == phase) {
    phases_.back().to = std::max(phases_.back().to, seconds);
    return;
  }
  if (!phases_.empty())
    phases_.back().to = std::max(phases_.back().to, seconds); // it lasted until now
  if (phases_.size() == capacity_)
    phases_.erase(phases_.begin());
  phases_.push_back({std::string{phase}, seconds, seconds});
}

void history_buffer::mark(double seconds, std::string label) {
  if (marks_.size() == capacity_)
    marks_.erase(marks_.begin());
  marks_.push_back({seconds, std::move(label)});
}

} // namespace gridvec
