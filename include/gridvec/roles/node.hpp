#pragma once
// (Public header of actors/node_actor.cpp.)
// A node hosts gridvec's roles inside one actor system. The coordinator of a
// job asks nodes for count workers, shards, learners, a vocabulary actor
// and an exporter, so a job is placed the same way whether its nodes share
// one process (`gridvec train`) or are processes on several machines.
//
// A node watches the coordinators that placed actors on it: when one goes
// away (its node died), the actors it placed here are stopped, so nothing
// keeps training for a job that no longer exists (`gridvec submit --resume`
// starts it again from its checkpoint).
#include <optional>
#include <string>

#include <gridvec/protocol.hpp>
#include <gridvec/roles/shard.hpp>
#include <gridvec/core/cluster_config.hpp>

namespace gridvec {

struct node_setup {
  std::string name = "local";
  std::string roles;   // for status reports
  std::string address; // host:port, or "in-process"
  /// Whether this node hosts the controller (the coordinator's node of a
  /// cluster, or a local gridvec); `cluster` is the config it then runs
  /// jobs on (none: every role in this process).
  bool controller = false;
  std::optional<cluster_config> cluster;
  /// Where the lanes of the shards it hosts run (include/gridvec/roles/shard.hpp).
  lane_thread shard_lanes = lane_thread::workers;
  /// The parameter server's table shard this node hosts for as long as it
  /// runs (docs/tables.md): shard `index` of `count`, saving to `dir`,
  /// serving on `lanes` threads (0: one per core).
  struct table_shard_place {
    uint32_t index = 0;
    uint32_t count = 0;
    std::string dir;
    uint32_t lanes = 0;
  };
  std::optional<table_shard_place> table_shard;
};

node_actor spawn_node(caf::actor_system& sys, node_setup setup);

} // namespace gridvec
