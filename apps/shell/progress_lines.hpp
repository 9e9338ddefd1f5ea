#pragma once
// How a client shows a job's lines as they come from the controller (the
// coordinator's progress sink, include/gridvec/roles/coordinator.hpp):
// events ("training: ...") each on a line of their own; progress lines,
// which arrive once a second prefixed with progress_prefix, redrawn in
// place on a terminal, and one every `log_every` seconds otherwise, so that
// a log file does not get one a second. `gridvec submit` and the shell's
// `submit` use it.
#include <chrono>
#include <functional>
#include <string>

namespace gridvec {

class progress_lines {
public:
  using clock = std::chrono::steady_clock;
  /// `write(text)` puts text on the screen or log as it is (no newline
  /// added); `stamp()`, if given, starts every line (a time, as the log's);
  /// `now` is the clock, a parameter for tests.
  progress_lines(std::function<void(const std::string&)> write, bool terminal, std::function<std::string()> stamp = {},
                 std::chrono::milliseconds log_every = std::chrono::seconds(10),
                 std::function<clock::time_point()> now = clock::now);

  /// One line from the controller.
  void operator()(const std::string& line);
  /// Ends a progress line left open on the terminal (before other output).
  void close();

private:
  std::function<void(const std::string&)> write_;
  bool terminal_;
  std::function<std::string()> stamp_;
  std::chrono::milliseconds log_every_;
  std::function<clock::time_point()> now_;
  clock::time_point last_logged_{};
  bool logged_any_ = false;
  bool open_ = false; // a progress line is on the terminal, without newline
};

} // namespace gridvec

namespace gridvec {
/// "[12:34:56.789] ", the time as spdlog's lines show it.
std::string log_time_stamp();
} // namespace gridvec
