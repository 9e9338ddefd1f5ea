// Reached by: any peer that can send to a shard lane of --partition words a
// (visit, bytes) message (actors/layouts/rows/row_shard.cpp): another shard's input
// vectors to train against this shard's output rows. The lane decodes the
// VisitBatch against its dimension, checks every visit against its rows
// and trains it (row_service::serve): so does this target, on a shard
// of half a 64-word vocabulary reset to its initial vectors every time.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static fuzz::row_shard shard;
  (void)shard.part.reset();
  (void)shard.part.serve(wire_bytes(data, data + size));
  return 0;
}
