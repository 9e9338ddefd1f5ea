#pragma once
// Shard actors: thin wrappers that decode a request, let shard_store do
// the arithmetic and encode the reply.
#include <memory>
#include <vector>

#include "actors/protocol.hpp"
#include "src/shard_store.hpp"

namespace gridvec {

/// Creates the store of shard `index` of `count` and `lanes` actors on it.
shard_info spawn_shard(caf::actor_system& sys, uint32_t index, uint32_t count, uint32_t dim,
                         const vocabulary& vocab, uint64_t seed,
                         std::shared_ptr<const alias_sampler> noise, uint32_t lanes);

/// One lane over an existing store (used by spawn_shard, and by tests).
shard_actor spawn_shard_lane(caf::actor_system& sys, uint32_t index,
                             std::shared_ptr<shard_store> store);

} // namespace gridvec
