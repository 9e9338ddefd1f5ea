#pragma once
// Numbers as every gridvec screen prints them (progress lines, the closing
// "done" line, the shell's tables): one way everywhere.
#include <cstdint>
#include <string>
#include <string_view>

namespace gridvec {

/// 950, 12.3k, 4.56M, 7.89G.
std::string human_count(double x);
/// 512 B, 1.5 KiB, 12.3 MiB, 2.00 GiB.
std::string human_bytes(uint64_t bytes);
/// A size as a person writes it: bytes, or a number (a decimal fraction
/// allowed) followed by K, M, G or T, each optionally followed by iB or B,
/// all binary multiples (16G = 16GiB = 16 x 2^30 bytes). False for anything
/// else, zero, or more than 2^60 bytes.
bool parse_byte_size(std::string_view text, uint64_t& out);
/// 0:07, 12:34, 1:02:03 (seconds rounded).
std::string human_duration(double seconds);

} // namespace gridvec
