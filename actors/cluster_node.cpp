#include <gridvec/cluster_node.hpp>

#include <algorithm>
#include <thread>

#include "actors/net/guarded_transport.hpp"

namespace gridvec {

node_setup cluster_node_setup(const cluster_config& cluster, const node_spec& spec) {
  node_setup setup;
  setup.name = spec.name;
  setup.roles = spec.roles_text();
  setup.address = spec.host + ":" + std::to_string(spec.port);
  setup.controller = spec.has(node_role::coordinator);
  setup.cluster = cluster;
  if (spec.shards_on_network_thread(std::max(1u, std::thread::hardware_concurrency())))
    setup.shard_lanes = lane_thread::network;
  // The non-standby shard nodes host the parameter server's table shards,
  // numbered in config order (docs/tables.md).
  auto table_nodes = cluster.table_shard_nodes();
  for (uint32_t i = 0; i < table_nodes.size(); ++i)
    if (table_nodes[i]->name == spec.name)
      setup.table_shard = node_setup::table_shard_place{i, static_cast<uint32_t>(table_nodes.size()), cluster.table_dir,
                                                        spec.table_lanes};
  return setup;
}

expected<cluster_node> start_cluster_node(caf::actor_system& sys, const cluster_config& cluster,
                                          const std::string& name) {
  const node_spec* spec = cluster.find(name);
  if (!spec)
    return failure{"there is no node '" + name + "' in " + cluster.source};
  auto node = spawn_node(sys, cluster_node_setup(cluster, *spec));
  // Through the cluster's transport: peers prove the secret (and speak
  // TLS) before CAF reads a byte from them.
  auto port = net::publish(sys, caf::actor_cast<caf::strong_actor_ptr>(node), spec->host, spec->port);
  if (!port) {
    caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
    return failure{"node " + name + " cannot listen on " + spec->host + ":" + std::to_string(spec->port) + ": " +
                   port.error()};
  }
  return cluster_node{node, *port};
}

} // namespace gridvec
