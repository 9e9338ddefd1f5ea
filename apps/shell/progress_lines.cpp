#include "apps/shell/progress_lines.hpp"

#include <cstdio>
#include <ctime>
#include <string_view>

#include <gridvec/roles/coordinator.hpp> // progress_prefix

namespace gridvec {

progress_lines::progress_lines(std::function<void(const std::string&)> write, bool terminal,
                               std::function<std::string()> stamp, std::chrono::milliseconds log_every,
                               std::function<clock::time_point()> now)
  : write_(std::move(write)), terminal_(terminal), stamp_(std::move(stamp)), log_every_(log_every),
    now_(std::move(now)) {}

void progress_lines::operator()(const std::string& received) {
  const std::string_view prefix = progress_prefix;
  const bool progress = received.compare(0, prefix.size(), prefix) == 0;
  const std::string line = (stamp_ ? stamp_() : std::string{}) + received.substr(progress ? prefix.size() : 0);
  if (!progress) {
    // An event takes the place of a progress line open on the terminal
    // (the next progress line comes below it within a second).
    write_(open_ ? "\r" + line + "\x1b[K\n" : line + "\n");
    open_ = false;
    return;
  }
  const std::string& text = line;
  if (terminal_) {
    // "\x1b[K" clears what a longer previous line left on the right.
    write_("\r" + text + "\x1b[K");
    open_ = true;
    return;
  }
  const auto now = now_();
  if (logged_any_ && now - last_logged_ < log_every_)
    return;
  logged_any_ = true;
  last_logged_ = now;
  write_(text + "\n");
}

void progress_lines::close() {
  if (open_)
    write_("\n");
  open_ = false;
}

std::string log_time_stamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm local{};
  localtime_r(&t, &local);
  char buf[32];
  std::snprintf(buf, sizeof buf, "[%02d:%02d:%02d.%03d] ", local.tm_hour, local.tm_min, local.tm_sec,
                static_cast<int>(ms));
  return buf;
}

} // namespace gridvec
