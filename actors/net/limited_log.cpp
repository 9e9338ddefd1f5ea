#include "actors/net/limited_log.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>

namespace gridvec::net {

void warn_limited(const std::string& line) {
  static std::mutex mutex;
  static std::chrono::steady_clock::time_point window_start;
  static int in_window = 0;
  static uint64_t left_out = 0;
  std::lock_guard<std::mutex> guard{mutex};
  auto now = std::chrono::steady_clock::now();
  if (now - window_start >= std::chrono::seconds(1)) {
    if (left_out > 0)
      spdlog::warn("{} more warnings about peers were not logged", left_out);
    window_start = now;
    in_window = 0;
    left_out = 0;
  }
  if (++in_window > 10) {
    ++left_out;
    return;
  }
  spdlog::warn("{}", line);
}

} // namespace gridvec::net
