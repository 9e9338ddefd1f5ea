// The lanes of a replicated-layout shard: the model the learners copy, and
// each round's new values from the rows' masters (storerows), each a call
// of the shard's replica_service (src/shard/replica_service.hpp).
#include "actors/shard/layouts.hpp"

#include <caf/io/middleman.hpp>
#include <caf/io/typed_broker.hpp>

#include "actors/shard/lane.hpp"

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

std::vector<shard_actor> spawn_replica_lanes(caf::actor_system& sys, std::shared_ptr<replica_service> shard,
                                             uint32_t lanes, bool network) {
  return shard_lanes::spawn_lanes<replica_shard_actor>(
    sys, shard->shared_store(), lanes, network, replica_behavior<replica_shard_actor::stateful_pointer<replica_state>>,
    replica_behavior<replica_shard_actor::stateful_broker_pointer<replica_state>>, shard);
}

} // namespace gridvec
