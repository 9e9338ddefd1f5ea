// Reached by: any peer that can send to a shard lane, with a (dotprod, bytes)
// message or inside a (step, adjusts, dotprods) message (actors/shard_actor.cpp,
// decode_dotprod). The lane decodes the DotprodRequest, validates the
// minibatch against its store and computes the partial dot products: so does
// this target, on a small shard.
#include <cstddef>
#include <cstdint>

#include "src/formats/wire.hpp"
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static fuzz::small_shard shard;
  const wire_bytes bytes(data, data + size);
  minibatch mb;
  if (!decode_dotprod_request(bytes, mb) || !shard.store.validate(mb))
    return 0;
  shard.dots.resize(mb.dot_count());
  shard.store.dotprod(mb, shard.dots.data(), shard.hidden);
  return 0;
}
