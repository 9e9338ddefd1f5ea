// Reached by: any peer that can send to a shard lane of --partition words a
// (splittrain, bytes) message (actors/layouts/rows/row_shard.cpp, train_share in
// actors/layouts/rows/row_exchange.hpp): a learner's examples whose input words the
// shard owns. The lane decodes the SplitTrainRequest, checks the share
// against its rows and plans the visits; the visit to itself is trained
// there, the others are encoded for the peers. So does this target (the
// peers' answers are another target's, fuzz_visit_batch).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/formats/split_wire.hpp"
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static fuzz::row_shard shard;
  minibatch mb;
  visit_grouping grouping = visit_grouping::example;
  if (!decode_split_train_request(wire_bytes(data, data + size), mb, grouping))
    return 0;
  if (!shard.part.check_share(mb))
    return 0;
  (void)shard.part.reset();
  auto& part = shard.part;
  rng r(plan_seed(mb.seed, part.index()));
  auto plan = plan_visits(mb, part.index(), part.layout, part.mode, part.own, r, grouping);
  if (!plan)
    return 0;
  std::vector<float> inputs, gradients;
  for (const auto& batch : *plan) {
    gather_inputs(part.rows, batch, inputs);
    if (batch.peer != part.index()) {
      (void)encode_visit_batch(batch, 1, mb.alpha, part.index(), inputs.data(), part.rows.dim());
      continue;
    }
    gradients.resize(inputs.size());
    (void)serve_visits(part.rows, part.own, batch, inputs.data(), gradients.data(), 1, mb.alpha);
    add_gradients(part.rows, batch, gradients.data());
  }
  return 0;
}
