// Reached by: a damaged or hand-edited checkpoint MANIFEST
// (DIR/ckpt-N/MANIFEST), read when a job resumes or rolls back to a
// checkpoint (src/formats/checkpoint.hpp, read_manifest via checkpoint_store::latest).
// The fuzzer cannot forge the CRC line on its own; the seeds carry valid ones,
// and inputs that end in "end *\n" get the correct checksum patched in here so
// that the record parser behind it is reached.
#include <cstddef>
#include <cstdint>
#include <string>

#include "src/formats/checkpoint.hpp"
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static const fuzz::input_file file("MANIFEST");
  std::string text(reinterpret_cast<const char*>(data), size);
  const std::string wildcard = "\nend *\n";
  if (text.size() >= wildcard.size() && text.compare(text.size() - wildcard.size(), wildcard.size(), wildcard) == 0) {
    text.resize(text.size() - wildcard.size() + 1);
    text += "end " + std::to_string(crc32(text.data(), text.size())) + "\n";
  }
  (void)read_manifest(file.write(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  return 0;
}
