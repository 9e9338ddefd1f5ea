// Reached by: any peer that can send to a shard lane, with a (dotprod, bytes)
// message or inside a (step, adjusts, dotprods) message (actors/layouts/columns/column_shard.cpp),
// which runs it with decode_sgns_dotprod and run_sgns_dotprod
// (src/shard/column_service.cpp).
// The lane decodes the DotprodRequest, validates the minibatch against its
// store and computes the partial dot products with those functions: so does
// this target, on a small shard.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static fuzz::small_shard shard;
  const wire_bytes bytes(data, data + size);
  auto& b = shard.buffers;
  if (!decode_sgns_dotprod(shard.store, bytes, b.batch))
    return 0;
  (void)run_sgns_dotprod(shard.store, b.batch, b);
  return 0;
}
