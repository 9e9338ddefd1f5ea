#pragma once
// (Public header of actors/cluster_node.cpp.)
// One node of a cluster as `gridvec node` runs it, for applications that
// run their own node processes (with their own table operations linked in,
// docs/tables.md): the node's roles from the cluster config, its table
// shard if it is a shard node, published through the cluster's transport.
//
//   caf::actor_system_config cfg;
//   configure_cluster_system(cfg, cluster, *cluster.find(name));  // gridvec/cluster.hpp
//   caf::actor_system sys{cfg};
//   auto node = gridvec::start_cluster_node(sys, cluster, name);  // expected<cluster_node>
//   std::string died = gridvec::serve_cluster_node(sys, *node, name, stop_flag);
#include <caf/actor_system.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include <gridvec/roles/node.hpp>
#include <gridvec/core/cluster_config.hpp>
#include <gridvec/core/expected.hpp>

namespace gridvec {

/// The setup of node `spec` of `cluster`: its name, roles and address, the
/// controller if it is the coordinator's node, and its table shard (the
/// i-th non-standby shard node hosts table shard i).
node_setup cluster_node_setup(const cluster_config& cluster, const node_spec& spec);

struct cluster_node {
  node_actor node;
  uint16_t port = 0; // where it listens
};

/// Spawns node `name` of `cluster` in `sys` (configured with
/// configure_cluster_system for that node) and publishes it on its host and
/// port through the cluster's transport. One error line if there is no such
/// node or it cannot listen (the node is stopped then).
expected<cluster_node> start_cluster_node(caf::actor_system& sys, const cluster_config& cluster,
                                          const std::string& name);

/// Serves `node` until it stops: its job or the cluster's shutdown stops
/// it, or `stop_requested` turns true (set it from a SIGTERM handler; it is
/// read every 100 ms). Then closes the node's port, which the actor
/// system's shutdown needs (a connection a peer left open keeps the node's
/// threads waiting otherwise). Returns "" after a stop, else why the node
/// ended.
/// `exit_grace`, for a process that ends with its node (`gridvec node`):
/// if not zero, a shutdown still unfinished that long after the stop ends
/// the process with status 1 and one log line, since an operator's SIGTERM
/// must end it and a cluster whose job is over must leave no process
/// behind. Zero (the default) leaves the process to its caller.
std::string serve_cluster_node(caf::actor_system& sys, const cluster_node& node, const std::string& name,
                               const std::atomic<bool>& stop_requested, std::chrono::seconds exit_grace = {});

} // namespace gridvec
