#include "src/util/memory_limit.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace gridvec {

uint64_t parse_cgroup_limit(std::string_view text, uint64_t ram) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.remove_suffix(1);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value == 0)
    return 0; // "max", or nothing usable
  return ram > 0 && value >= ram ? 0 : value;
}

uint64_t memory_limit_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  const uint64_t ram = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in{path};
    if (!in)
      continue;
    std::stringstream text;
    text << in.rdbuf();
    if (uint64_t limit = parse_cgroup_limit(text.str(), ram))
      return limit;
  }
  return ram;
}

} // namespace gridvec
