// Reached by: a damaged or foreign checkpoint slice file
// (DIR/ckpt-N/shard-S.bin), which a shard reads back on (load, file, crc),
// on newshard with a checkpoint, and when a job resumes
// (src/formats/checkpoint.hpp, read_slice_file). The expected header comes from the
// job, not the file: here it is the header the input claims when that
// describes a small slice (so that the fuzzer gets past the size check and
// into the data and checksum), else a fixed one.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/formats/checkpoint.hpp"
#include "tests/fuzz/fuzz_util.hpp"

namespace {

uint64_t get(const uint8_t* p, int bytes) {
  uint64_t x = 0;
  for (int i = 0; i < bytes; ++i)
    x |= uint64_t{p[i]} << (8 * i);
  return x;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static const fuzz::input_file file("slice.bin");
  slice_header expect{0, 1, 4, 0, 4, 3, 0x1234};
  constexpr size_t header_bytes = 48;
  if (size >= header_bytes) {
    slice_header claimed{static_cast<uint32_t>(get(data + 8, 4)),
                         static_cast<uint32_t>(get(data + 12, 4)),
                         static_cast<uint32_t>(get(data + 16, 4)),
                         static_cast<uint32_t>(get(data + 20, 4)),
                         static_cast<uint32_t>(get(data + 24, 4)),
                         get(data + 32, 8),
                         get(data + 40, 8)};
    if (claimed.width <= 64 && claimed.vocab_size <= 1024 && claimed.width * claimed.vocab_size <= 4096)
      expect = claimed;
  }
  std::vector<float> u(expect.vocab_size * expect.width), v(u.size());
  (void)read_slice_file(file.write(data, size), expect, u.data(), v.data());
  return 0;
}
