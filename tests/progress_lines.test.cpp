#include "apps/shell/progress_lines.hpp"

#include <catch2/catch.hpp>

#include <gridvec/roles/coordinator.hpp> // progress_prefix

using namespace gridvec;

namespace {

std::string progress(const std::string& text) { return progress_prefix + text; }

} // namespace

TEST_CASE("progress_lines: a terminal redraws progress in place; events get lines of their own", "[progress_lines]") {
  std::string screen;
  progress_lines lines{[&](const std::string& text) { screen += text; }, true};
  lines("training: 2 learners");
  lines(progress(" 10.0%  1.00M words/s"));
  lines(progress(" 20.0%  1.10M words/s"));
  lines("checkpoint 1 written");
  lines(progress(" 30.0%  1.20M words/s"));
  lines.close();
  lines.close(); // nothing left open: no second newline
  CHECK(screen == "training: 2 learners\n"
                  "\r 10.0%  1.00M words/s\x1b[K"
                  "\r 20.0%  1.10M words/s\x1b[K"
                  "\rcheckpoint 1 written\x1b[K\n"
                  "\r 30.0%  1.20M words/s\x1b[K"
                  "\n");
}

TEST_CASE("progress_lines: a log keeps one progress line per interval and every event", "[progress_lines]") {
  std::string log;
  auto t = progress_lines::clock::time_point{} + std::chrono::hours(1);
  progress_lines lines{[&](const std::string& text) { log += text; }, false, [] { return std::string{"[t] "}; },
                       std::chrono::seconds(10), [&] { return t; }};
  lines(progress("10%"));
  t += std::chrono::seconds(1);
  lines(progress("11%")); // within 10 s of the last: dropped
  t += std::chrono::seconds(9);
  lines(progress("20%"));
  lines("exporting");
  CHECK(log == "[t] 10%\n[t] 20%\n[t] exporting\n");
}
