// Reached by: any peer that can send to a shard lane, with an (adjust, bytes)
// message or inside a (step, adjusts, dotprods) message (actors/layouts/columns/column_shard.cpp),
// which runs it with decode_sgns_adjust and run_sgns_adjust
// (src/shard/column_service.cpp).
// The lane decodes the AdjustRequest, validates the minibatch and the weight
// count against its store and applies the update with those functions: so does
// this target, on a small shard reset to its initial vectors every time. The
// minibatch's dotprod runs first, as a learner's would, so that the adjust
// refreshes the peer's weights (its alpha, staleness and weights all come
// from the bytes; src/sgns/weight_refresh.hpp).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static fuzz::small_shard shard;
  const wire_bytes bytes(data, data + size);
  auto& b = shard.buffers;
  if (!decode_sgns_adjust(shard.store, bytes, b.batch, b.floats))
    return 0;
  shard.store.reset(fuzz::small_shard::init_seed);
  const std::vector<float> weights = b.floats; // the dotprod reuses b.floats
  (void)run_sgns_dotprod(shard.store, b.batch, b);
  (void)run_sgns_adjust(shard.store, b.batch, weights.data(), b);
  return 0;
}
