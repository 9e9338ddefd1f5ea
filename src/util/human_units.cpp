#include "src/util/human_units.hpp"

#include <cstdarg>
#include <cstdio>

namespace gridvec {

namespace {

std::string print(const char* format, ...) {
  char buf[64];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

} // namespace

std::string human_count(double x) {
  if (x >= 1e9)
    return print("%.2fG", x / 1e9);
  if (x >= 1e6)
    return print("%.2fM", x / 1e6);
  if (x >= 1e3)
    return print("%.1fk", x / 1e3);
  return print("%.0f", x);
}

std::string human_bytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (uint64_t{1} << 30))
    return print("%.2f GiB", b / (1 << 30));
  if (bytes >= (uint64_t{1} << 20))
    return print("%.1f MiB", b / (1 << 20));
  if (bytes >= 1024)
    return print("%.1f KiB", b / 1024);
  return print("%llu B", static_cast<unsigned long long>(bytes));
}

std::string human_duration(double seconds) {
  const long t = seconds > 0 ? static_cast<long>(seconds + 0.5) : 0;
  if (t >= 3600)
    return print("%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  return print("%ld:%02ld", t / 60, t % 60);
}

} // namespace gridvec
