#pragma once
// (Public header of actors/controller_actor.cpp.)
// The controller: where jobs come in. One runs on the coordinator node of a
// cluster (and one inside `gridvec train` or an embedding application). It
// connects to the cluster's nodes, starts one coordinator per job, keeps
// the last job queryable, and forwards the shell's commands to it.
//
//   idle --submit/start--> connecting --> running --(vectors written)--> done
//     ^                                      |                             |
//     `------- next submit/start ------------+--(failed / cancelled)-------'
#include <optional>
#include <string>

#include <gridvec/protocol.hpp>
#include <gridvec/core/cluster_config.hpp>

namespace gridvec {

/// Where a controller runs jobs.
struct controller_setup {
  /// The cluster, or none for a local gridvec: one node (`local_node`) in
  /// this process hosts every role, with `threads` learners.
  std::optional<cluster_config> cluster;
  std::string self_name = "local"; // this process's node in the cluster
  node_actor local_node;
};

controller_actor spawn_controller(caf::actor_system& sys, controller_setup setup);

} // namespace gridvec
