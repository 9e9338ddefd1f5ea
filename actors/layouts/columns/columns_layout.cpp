// The columns layout: every shard holds a slice of the columns of every
// row, learners send word ids and seeds and get partial dot products back
// (the Network-efficient word2vec paper); learners whose shards all live in
// their process train on the stores directly.
#include "actors/layouts/columns/columns.hpp"

#include "actors/coordinator/similarity_query.hpp"
#include "actors/learner/learner_state.hpp"
#include "actors/local_lanes.hpp"

namespace gridvec {

namespace {

// --partition words on one shard trains it in place; otherwise the fused
// path where the job allows it (--fused) and every lane is in this process
// (never so in a cluster of one role per node), else the protocol.
std::unique_ptr<learner::training_path> columns_path(const learner::learner_state& st) {
  if (st.cfg.word_split())
    return learner::make_fused_path(true);
  if (st.cfg.fused && !find_local_stores(st.shards).empty())
    return learner::make_fused_path(false);
  return learner::make_protocol_path(st);
}

} // namespace

void similar_by_columns(coordinator_ptr self, std::vector<uint32_t> ids, std::vector<float> weights, uint32_t k,
                        neighbours_promise rp, std::shared_ptr<bool> failed) {
  sum_similarities(
    self,
    [self, ids, query = float_bytes(weights)](const shard_actor& lane) {
      return self->request(lane_as<column_slice_actor>(lane), shard_query_timeout, similar_atom::value, ids, query);
    },
    ids, k, std::move(rp), std::move(failed), std::nullopt);
}

layout_entry columns_layout() {
  return {.layout = shard_layout::columns,
          .spawn = spawn_columns_shard,
          .make_path = columns_path,
          .connect_shards = nullptr, // the shards never talk to each other
          .similar = similar_by_columns};
}

} // namespace gridvec
