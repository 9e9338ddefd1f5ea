#include <gridvec/cluster_node.hpp>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "actors/net/guarded_transport.hpp"
#include <gridvec/protocol.hpp>

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

namespace {

// Ends the process if the orderly shutdown takes longer than `grace` after
// `what` (the signal, the stop): an actor stuck in a long call, a peer that
// never answers. Nothing for a zero grace.
void start_stop_watchdog(const std::string& name, const char* what, std::chrono::seconds grace) {
  if (grace.count() <= 0)
    return;
  std::thread([name, what, grace] {
    std::this_thread::sleep_for(grace);
    spdlog::error("node {}: did not stop within {} s of {}; exiting anyway", name, grace.count(), what);
    std::_Exit(1);
  }).detach();
}

} // namespace

std::string serve_cluster_node(caf::actor_system& sys, const cluster_node& node, const std::string& name,
                               const std::atomic<bool>& stop_requested, std::chrono::seconds exit_grace) {
  bool stop_sent = false;
  std::string died;
  {
    caf::scoped_actor self{sys};
    self->monitor(node.node);
    for (bool running = true; running;)
      self->receive(
        [&](caf::down_msg& dm) {
          running = false;
          if (dm.reason && dm.reason != caf::exit_reason::user_shutdown && dm.reason != caf::exit_reason::normal)
            died = error_text(dm.reason);
        },
        caf::after(std::chrono::milliseconds(100)) >>
          [&] {
            if (stop_requested.load() && !stop_sent) {
              spdlog::info("node {}: signal received", name);
              self->send(node.node, stop_atom::value);
              stop_sent = true;
              start_stop_watchdog(name, "the signal", exit_grace);
            }
          });
  }
  if (!stop_sent) // the job stopped the node: the actor system's shutdown follows
    start_stop_watchdog(name, "its stop", exit_grace);
  if (auto transport = net::transport_actor(sys))
    caf::anon_send(transport, caf::close_atom::value, node.port);
  return died;
}

} // namespace gridvec
