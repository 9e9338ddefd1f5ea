// The replica layout (--partition replicated, the GraphWord2Vec paper):
// every learner trains its own copy of the model and synchronises the
// rows it changed with the other learners every round; the shards, column
// slices as in the columns layout, hold the synchronised model for export,
// checkpoints and queries.
#include "actors/layouts/replica/replica.hpp"

namespace gridvec {

layout_entry replica_layout() {
  layout_entry e;
  e.layout = shard_layout::replica;
  e.spawn = spawn_replica_shard;
  e.make_path = learner::make_replicated_path;
  e.connect_shards = nullptr;
  e.similar = similar_by_columns;
  e.learners_share_rounds = true;
  return e;
}

} // namespace gridvec
