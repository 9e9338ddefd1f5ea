// Reached by: any peer that can send to a shard lane, with an (adjust, bytes)
// message or inside a (step, adjusts, dotprods) message (actors/shard_actor.cpp,
// decode_adjust). The lane decodes the AdjustRequest, validates the minibatch
// and the weight count against its store and applies the update: so does
// this target, on a small shard reset to its initial vectors every time.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/formats/wire.hpp"
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static fuzz::small_shard shard;
  const wire_bytes bytes(data, data + size);
  minibatch mb;
  std::vector<float> weights;
  if (!decode_adjust_request(bytes, mb, weights) || !shard.store.validate(mb) || weights.size() != mb.dot_count())
    return 0;
  shard.store.reset(fuzz::small_shard::init_seed);
  shard.store.adjust(mb, weights.data(), shard.scratch);
  return 0;
}
