#pragma once
// (Internal to actors/layouts/rows/.) The rows layout's pieces, put
// together into its entry by rows_layout.cpp.
#include <memory>

#include "actors/layouts/layouts.hpp"

namespace gridvec {

/// row_shard.cpp: a rows-layout shard's store, service and lanes.
expected<shard_info> spawn_rows_shard(caf::actor_system& sys, const shard_spec& spec, const shard_inputs& in);

namespace learner {

/// split_path.cpp: each minibatch's shares to the shards of their input
/// words.
std::unique_ptr<training_path> make_split_path(const learner_state& st);

} // namespace learner

} // namespace gridvec
