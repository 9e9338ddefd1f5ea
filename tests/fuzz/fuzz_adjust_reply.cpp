// Reached by: any peer that can answer a learner's adjust request (a shard
// lane, or whoever holds the learner's handle): the AdjustReply bytes are
// decoded into (shard, pairs) (src/formats/wire.hpp, decode_adjust_reply).
#include <cstddef>
#include <cstdint>

#include "src/formats/wire.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  const wire_bytes bytes(data, data + size);
  uint32_t shard = 0, pairs = 0;
  (void)decode_adjust_reply(bytes, shard, pairs);
  return 0;
}
