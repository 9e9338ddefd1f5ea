// The lanes of a rows-layout shard (--partition words over several
// shards): splittrain from learners, visit from the other shards, peers
// from the coordinator, and similar by query vector. The training is the
// shard's row_service (src/shard/row_service.hpp); the exchange with the
// peers is row_exchange.hpp.
#include "actors/layouts/rows/rows.hpp"

#include <caf/io/middleman.hpp>
#include <caf/io/typed_broker.hpp>

#include "actors/shard/lane.hpp"
#include "actors/layouts/rows/row_exchange.hpp"
#include "src/shard/row_service.hpp"

namespace gridvec {

namespace {

struct row_state {
  std::shared_ptr<row_service> shard;
  std::shared_ptr<row_peers> peers; // shared by the shard's lanes
  row_shard_actor slow;
  static inline const char* name = "shard";
};

template <class Self>
row_shard_actor::behavior_type row_behavior(Self self, std::shared_ptr<row_service> shard,
                                            std::shared_ptr<row_peers> peers, row_shard_actor slow) {
  shard_lanes::set_slow_lane(self, std::move(slow));
  self->state.shard = std::move(shard);
  self->state.peers = std::move(peers);
  using shard_lanes::reply;
  return shard_lanes::lane_behavior<row_shard_actor::behavior_type>(
    self, std::make_tuple(
            [self](split_train_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
              return train_share(self, self->state.shard, *self->state.peers, request);
            },
            [self](visit_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
              return reply(self->state.shard->serve(request));
            },
            [self](peers_atom, const std::vector<caf::actor>& all) -> caf::result<bool> {
              return reply(self->state.peers->set(all, self->state.shard->partitions()));
            },
            [self](similar_atom a, const wire_bytes& query) -> caf::result<wire_bytes> {
              if (self->state.slow)
                return self->delegate(self->state.slow, a, query);
              return reply(self->state.shard->similar(query));
            }));
}

} // namespace

expected<shard_info> spawn_rows_shard(caf::actor_system& sys, const shard_spec& spec, const shard_inputs& in) {
  // Whole rows of word w mod count; this partition's sampler only,
  // O(p + V/p) (the Distributed negative sampling paper).
  if (spec.hierarchical || !spec.init_model.empty())
    return failure{"--partition words trains neither -hs 1 nor from --init"};
  const vocabulary_counts& vocab = *in.counts;
  auto store = std::make_shared<shard_store>(word_rows{spec.index, spec.count}, spec.dim, vocab.size(), spec.seed);
  const slice_header header{spec.index, spec.count, spec.dim, 0, spec.dim, store->held_rows(), spec.vocab_crc, 0};
  auto shard = started(std::make_shared<row_service>(store, header, spec.seed, vocab.counts,
                                                     static_cast<negatives_mode>(spec.negatives_mode)),
                       spec);
  if (!shard)
    return failure{shard.why()};
  shard_info info;
  info.sampling_bytes = info.partition_sampling_bytes = (*shard)->own.bytes();
  info.first = 0;
  info.width = spec.dim;
  info.rows = store->rows_layout();
  info.lanes = shard_lanes::spawn_lanes<row_shard_actor>(
    sys, store, spec.lanes, in.network(), row_behavior<row_shard_actor::stateful_pointer<row_state>>,
    row_behavior<row_shard_actor::stateful_broker_pointer<row_state>>, *shard, std::make_shared<row_peers>());
  return info;
}

} // namespace gridvec
