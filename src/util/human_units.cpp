#include "src/util/human_units.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

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

bool parse_byte_size(std::string_view text, uint64_t& out) {
  size_t digits = 0;
  bool point = false;
  while (digits < text.size() && ((text[digits] >= '0' && text[digits] <= '9') || (text[digits] == '.' && !point))) {
    point |= text[digits] == '.';
    ++digits;
  }
  if (digits == 0 || text[0] == '.')
    return false;
  const std::string number{text.substr(0, digits)};
  std::string_view unit = text.substr(digits);
  int shift = 0;
  if (!unit.empty()) {
    switch (unit.front()) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: return false;
    }
    unit.remove_prefix(1);
    if (!unit.empty() && unit != "iB" && unit != "B")
      return false;
  }
  const double value = std::strtod(number.c_str(), nullptr) * static_cast<double>(uint64_t{1} << shift);
  if (!(value >= 1) || value > static_cast<double>(uint64_t{1} << 60))
    return false;
  out = static_cast<uint64_t>(value);
  return true;
}

} // namespace gridvec
