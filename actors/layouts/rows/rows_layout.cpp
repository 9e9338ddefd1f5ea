// The rows layout (--partition words over several shards, the
// Distributed negative sampling paper): shard s holds the whole rows of the
// words w with w mod S = s; a learner sends each minibatch's shares to the
// shards of their input words, which train them through their exchange
// with each other (row_exchange.hpp).
#include "actors/layouts/rows/rows.hpp"

#include "actors/coordinator/phases.hpp"
#include "actors/coordinator/similarity_query.hpp"

namespace gridvec {

namespace {

// Tells every shard where the others are.
void tell_peers(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  auto pending = std::make_shared<size_t>(st.shards.size());
  for (size_t i = 0; i < st.shards.size(); ++i) {
    // Shard i's visits to shard j go to lane i of j (modulo its lanes), so
    // that the sources spread over the lanes of every peer.
    std::vector<caf::actor> peers;
    for (const auto& peer : st.shards)
      peers.push_back(caf::actor_cast<caf::actor>(peer.lanes[i % peer.lanes.size()]));
    self->request(lane_as<row_shard_actor>(st.shards[i].lanes.front()), placement_timeout, peers_atom::value, peers)
      .then(
        [pending, then](bool) {
          if (--*pending == 0)
            then();
        },
        fail_with(self));
  }
}

// The query q = sum weight_i u(word_i) is put together here from the
// query words' rows (each from its shard), then every shard scores the
// words it holds against q (similarity.hpp's layout).
void similar_by_rows(coordinator_ptr self, std::vector<uint32_t> ids, std::vector<float> weights, uint32_t k,
                     neighbours_promise rp, std::shared_ptr<bool> failed) {
  auto& st = self->state;
  const auto shards = static_cast<uint32_t>(st.shards.size());
  const uint32_t dim = st.shards.front().width;
  auto q = std::make_shared<std::vector<float>>(dim, 0.0f);
  auto pending = std::make_shared<size_t>(ids.size());
  auto on_error = first_error(rp, failed);
  for (size_t i = 0; i < ids.size(); ++i)
    self->request(st.shards[ids[i] % shards].lanes.front(), shard_query_timeout, rows_atom::value, ids[i], ids[i] + 1)
      .then(
        [self, rp, ids, k, q, pending, failed, on_error, dim, weight = weights[i]](const wire_bytes& bytes) mutable {
          if (*failed)
            return;
          auto row = floats_of(bytes);
          if (!row || row->size() != dim) {
            *failed = true;
            rp.deliver(make_job_error("a shard sent a malformed row"));
            return;
          }
          for (uint32_t j = 0; j < dim; ++j)
            (*q)[j] += weight * (*row)[j];
          if (--*pending > 0)
            return;
          float qq = 0;
          for (float x : *q)
            qq += x * x;
          sum_similarities(
            self,
            [self, query = float_bytes(*q)](const shard_actor& lane) {
              return self->request(lane_as<row_shard_actor>(lane), shard_query_timeout, similar_atom::value, query);
            },
            ids, k, rp, failed, qq);
        },
        on_error);
}

} // namespace

layout_entry rows_layout() {
  return {.layout = shard_layout::rows,
          .spawn = spawn_rows_shard,
          .make_path = learner::make_split_path,
          .connect_shards = tell_peers,
          .similar = similar_by_rows};
}

} // namespace gridvec
