// Reached by: any peer that can answer a learner's dotprod or step request
// (a shard lane, or whoever holds the learner's handle): the learner adds the
// DotprodReply's dot products to its minibatch's sums
// (actors/learner/learner_actor.cpp, accumulate_dotprod_reply). Both reply decoders
// run here, the accumulating one against the size a learner would expect.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/formats/wire.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  const wire_bytes bytes(data, data + size);
  uint32_t shard = 0;
  std::vector<float> dots;
  const bool decoded = static_cast<bool>(decode_dotprod_reply(bytes, shard, dots));
  // The sizes a learner expects: the one the reply has (the usual case) and
  // one it does not.
  std::vector<float> sum(decoded ? dots.size() : 6, 1.0f);
  (void)accumulate_dotprod_reply(bytes, sum);
  std::vector<float> other(sum.size() + 1, 1.0f);
  (void)accumulate_dotprod_reply(bytes, other);
  return 0;
}
