// A columns-layout shard: its store, its column_service
// (src/shard/column_service.hpp), and its lanes, which answer the learners'
// dotprod, adjust and step and similar by word ids, each a call of the
// lane's column_lane or of the service.
#include "actors/layouts/columns/columns.hpp"

#include <caf/io/middleman.hpp>
#include <caf/io/typed_broker.hpp>

#include "actors/shard/lane.hpp"
#include "src/shard/column_service.hpp"

namespace gridvec {

namespace {

struct column_state {
  std::shared_ptr<column_service> shard;
  column_shard_actor slow;
  std::unique_ptr<column_lane> trainer; // this lane's buffers
  static inline const char* name = "shard";
};

template <class Self>
column_shard_actor::behavior_type column_behavior(Self self, std::shared_ptr<column_service> shard,
                                                  column_shard_actor slow) {
  shard_lanes::set_slow_lane(self, std::move(slow));
  self->state.trainer = std::make_unique<column_lane>(shard);
  self->state.shard = std::move(shard);
  using shard_lanes::reply;
  return shard_lanes::lane_behavior<column_shard_actor::behavior_type>(
    self, std::make_tuple(
            [self](dotprod_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
              return reply(self->state.trainer->dotprod(request));
            },
            [self](adjust_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
              return reply(self->state.trainer->adjust(request));
            },
            [self](step_atom, const std::vector<wire_bytes>& adjusts, const std::vector<wire_bytes>& dotprods)
              -> caf::result<std::vector<wire_bytes>> { return reply(self->state.trainer->step(adjusts, dotprods)); },
            shard_lanes::similar_by_ids(self)));
}

} // namespace

expected<shard_info> spawn_columns_shard(caf::actor_system& sys, const shard_spec& spec, const shard_inputs& in) {
  return spawn_column_slice<column_service>(spec, in, [&](const std::shared_ptr<column_service>& shard) {
    return shard_lanes::spawn_lanes<column_shard_actor>(
      sys, shard->shared_store(), spec.lanes, in.network(),
      column_behavior<column_shard_actor::stateful_pointer<column_state>>,
      column_behavior<column_shard_actor::stateful_broker_pointer<column_state>>, shard);
  });
}

} // namespace gridvec
