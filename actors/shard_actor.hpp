#pragma once
// Shard actors: thin wrappers that decode a request, let shard_store do the
// arithmetic and encode the reply. A shard is one shard_store served by
// several lanes (actors) at once; checkpoints and queries go to any lane.
#include <memory>
#include <vector>

#include "actors/protocol.hpp"
#include "src/shard_store.hpp"

namespace gridvec {

/// What the lanes of one shard share.
struct shard_core {
  std::shared_ptr<shard_store> store;
  slice_header header;   // identity of its checkpoint files
  uint64_t init_seed = 0;
  std::atomic<uint64_t> requests{0};
};

/// Creates shard spec.index of spec.count, from its checkpoint file if
/// spec.checkpoint is set, with spec.lanes actors on it. Fails if the
/// checkpoint cannot be read back intact.
expected<shard_info> spawn_shard(caf::actor_system& sys, const shard_spec& spec, const vocabulary& vocab,
                                 std::shared_ptr<const alias_sampler> noise);

/// One lane over an existing shard (used by spawn_shard, and by tests).
shard_actor spawn_shard_lane(caf::actor_system& sys, uint32_t index, std::shared_ptr<shard_core> core);

} // namespace gridvec
