#pragma once
// What identifies a written file's content: its size and CRC-32 (checkpoint
// slice files, src/formats/checkpoint.hpp; shards report it when they save).
#include <cstdint>

namespace gridvec {

struct file_digest {
  uint64_t bytes = 0;
  uint32_t crc = 0;
};

} // namespace gridvec
