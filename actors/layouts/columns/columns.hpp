#pragma once
// (Internal to actors/layouts/columns/.) The columns layout's pieces, put
// together into its entry by columns_layout.cpp.
#include <memory>

#include "actors/layouts/layouts.hpp"

namespace gridvec {

/// column_shard.cpp: a columns-layout shard's store, service and lanes.
expected<shard_info> spawn_columns_shard(caf::actor_system& sys, const shard_spec& spec, const shard_inputs& in);

namespace learner {

/// protocol_path.cpp: minibatches in flight to the shards (dotprod, adjust
/// and step messages) and back.
std::unique_ptr<training_path> make_protocol_path(const learner_state& st);
/// fused_path.cpp: minibatches trained on the stores of this process
/// directly; `word_split`: through the word partitions' exchange
/// (--partition words on one shard).
std::unique_ptr<training_path> make_fused_path(bool word_split);

} // namespace learner

} // namespace gridvec
