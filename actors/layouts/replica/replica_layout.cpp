// The replica layout (--partition replicated, the GraphWord2Vec paper):
// every learner trains its own copy of the model and synchronises the
// rows it changed with the other learners every round; the shards, column
// slices as in the columns layout, hold the synchronised model for export,
// checkpoints and queries.
#include "actors/layouts/replica/replica.hpp"

namespace gridvec {

layout_entry replica_layout() {
  return {.layout = shard_layout::replica,
          .spawn = spawn_replica_shard,
          .make_path = learner::make_replicated_path,
          .connect_shards = nullptr,     // the learners talk, not the shards
          .similar = similar_by_columns, // its shards are column slices
          .learners_share_rounds = true};
}

} // namespace gridvec
