#pragma once
// (Internal to actors/layouts/replica/.) The replica layout's pieces, put
// together into its entry by replica_layout.cpp.
#include <memory>

#include "actors/layouts/layouts.hpp"

namespace gridvec {

/// replica_shard.cpp: a replica-layout shard's store, service and lanes.
expected<shard_info> spawn_replica_shard(caf::actor_system& sys, const shard_spec& spec, const shard_inputs& in);

namespace learner {

/// replicated_path.cpp: this learner's own copy of the model, trained and
/// synchronised with the other hosts round by round.
std::unique_ptr<training_path> make_replicated_path(const learner_state& st);

} // namespace learner

} // namespace gridvec
