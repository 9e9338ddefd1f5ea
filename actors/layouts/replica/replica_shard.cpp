// A replicated-layout shard: the model the learners copy, a column slice
// like the columns layout's, and its lanes, which also take each round's
// new values from the rows' masters (storerows), each a call of the
// shard's replica_service (src/shard/replica_service.hpp).
#include "actors/layouts/replica/replica.hpp"

#include <caf/io/middleman.hpp>
#include <caf/io/typed_broker.hpp>

#include "actors/shard/lane.hpp"
#include "src/shard/replica_service.hpp"

namespace gridvec {

namespace {

struct replica_state {
  std::shared_ptr<replica_service> shard;
  replica_shard_actor slow;
  static inline const char* name = "shard";
};

template <class Self>
replica_shard_actor::behavior_type replica_behavior(Self self, std::shared_ptr<replica_service> shard,
                                                    replica_shard_actor slow) {
  shard_lanes::set_slow_lane(self, std::move(slow));
  self->state.shard = std::move(shard);
  using shard_lanes::reply;
  return shard_lanes::lane_behavior<replica_shard_actor::behavior_type>(
    self, std::make_tuple(
            [self](store_rows_atom a, const wire_bytes& block) -> caf::result<bool> {
              if (self->state.slow)
                return self->delegate(self->state.slow, a, block);
              return reply(self->state.shard->store_rows(block));
            },
            shard_lanes::similar_by_ids(self)));
}

} // namespace

expected<shard_info> spawn_replica_shard(caf::actor_system& sys, const shard_spec& spec, const shard_inputs& in) {
  return spawn_column_slice<replica_service>(spec, in, [&](const std::shared_ptr<replica_service>& shard) {
    return shard_lanes::spawn_lanes<replica_shard_actor>(
      sys, shard->shared_store(), spec.lanes, in.network(),
      replica_behavior<replica_shard_actor::stateful_pointer<replica_state>>,
      replica_behavior<replica_shard_actor::stateful_broker_pointer<replica_state>>, shard);
  });
}

} // namespace gridvec
