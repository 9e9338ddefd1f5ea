#pragma once
// Numbers as every gridvec screen prints them (progress lines, the closing
// "done" line, the shell's tables): one way everywhere.
#include <cstdint>
#include <string>

namespace gridvec {

/// 950, 12.3k, 4.56M, 7.89G.
std::string human_count(double x);
/// 512 B, 1.5 KiB, 12.3 MiB, 2.00 GiB.
std::string human_bytes(uint64_t bytes);
/// 0:07, 12:34, 1:02:03 (seconds rounded).
std::string human_duration(double seconds);

} // namespace gridvec
