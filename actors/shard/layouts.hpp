#pragma once
// (Internal to actors/shard/.) One function per shard layout that spawns a
// shard's lanes over its service; spawn_shard.cpp builds the service and
// picks the function by shard_spec::layout. A new layout adds a service in
// src/shard/, a lane file here, its interface in include/gridvec/protocol.hpp
// and one case in spawn_shard.cpp.
#include <memory>
#include <vector>

#include <gridvec/protocol.hpp>
#include "src/shard/column_service.hpp"
#include "src/shard/replica_service.hpp"
#include "src/shard/row_service.hpp"

namespace gridvec {

/// `network`: the lanes run on the network thread, delegating the slow
/// requests to one more lane on the workers (lane_thread::network).
std::vector<shard_actor> spawn_column_lanes(caf::actor_system& sys, std::shared_ptr<column_service> shard,
                                            uint32_t lanes, bool network);
std::vector<shard_actor> spawn_replica_lanes(caf::actor_system& sys, std::shared_ptr<replica_service> shard,
                                             uint32_t lanes, bool network);
std::vector<shard_actor> spawn_row_lanes(caf::actor_system& sys, std::shared_ptr<row_service> shard, uint32_t lanes,
                                         bool network);

} // namespace gridvec
