#pragma once
// (Public header of actors/supervisor_actor.cpp.)
// The supervisor of one job: monitors its shards, learners and nodes, and
// tells the coordinator when one is lost. It does not restore anything
// itself: it decides *where* a lost shard goes (a surviving shard node with
// spare capacity, else a standby node) and leaves the rollback, which needs
// the job's state, to the coordinator (coordinator_recovery.cpp).
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>

namespace gridvec {

/// A node as the supervisor sees it.
struct supervised_node {
  std::string name;
  node_actor handle;           // monitored: its process going away is noticed
  uint32_t shard_capacity = 0; // the config's `shards`; 0: not a shard node
  bool standby = false;
};

/// `shard_home` of shard s is where it is placed at first (node index).
supervisor_actor spawn_supervisor(caf::actor_system& sys, coordinator_actor coordinator,
                                  std::vector<supervised_node> nodes);

} // namespace gridvec
