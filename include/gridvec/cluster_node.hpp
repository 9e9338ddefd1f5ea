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
//   ... wait until node->node terminates (stop_atom, or the cluster's shutdown) ...
#include <caf/actor_system.hpp>

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

} // namespace gridvec
