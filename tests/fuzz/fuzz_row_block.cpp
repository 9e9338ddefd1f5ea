// Reached by: any learner of a replicated job (--partition replicated), and
// through a learner by any peer that holds its handle: a RowBlock (a host's
// changes of a round, or a master's new values) is decoded
// (src/formats/wire.hpp, decode_row_block), then combined as a master
// combines it and applied as a host applies it (src/replicated/replica.hpp),
// which must refuse rows out of range, of another master or of another
// width without writing past the model.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "src/formats/wire.hpp"
#include "src/replicated/replica.hpp"
#include "src/replicated/row_block.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static const auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts({9, 5, 3, 2, 1, 1, 1}));
  static replica model = [] {
    replica r(4, {11, 22, 33, 44, 55, 66, 77}, 1, noise, nullptr);
    r.set_hosts(2);
    return r;
  }();
  const wire_bytes bytes(data, data + size);
  row_block block;
  if (!decode_row_block(bytes, block))
    return 0;
  (void)model.combine({block}, combiner::model_combiner, 0);
  (void)model.apply(block);
  return 0;
}
