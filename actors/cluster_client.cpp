// gridvec/cluster.hpp: an actor system that talks to a gridvec cluster.
#include <gridvec/cluster.hpp>

#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "actors/connect.hpp"
#include <gridvec/message_types.hpp>
#include "actors/net/guarded_transport.hpp"
#include <gridvec/local.hpp>

namespace gridvec {

namespace {

// Both ends must agree on it: CAF refuses a peer with another identifier.
const std::vector<std::string> app_identifiers{"gridvec-0.1"};

// A node proves the cluster secret and reaches every actor of the other
// nodes; a client proves the client key and reaches only the controller
// and the tables (src/net/client_gate.hpp).
status configure_system(caf::actor_system_config& cfg, const cluster_config& cluster, net::peer_kind kind) {
  auto transport = net::load_transport_settings(cluster, kind);
  if (!transport)
    return failure{transport.error()};
  if (cluster.insecure)
    spdlog::warn("{} has insecure = true: anyone who can reach a node's port can run jobs and read and write "
                 "files as the node's user (docs/security.md)",
                 cluster.source);
  register_message_types(cfg);
  cfg.load<caf::io::middleman>();
  net::use_transport(cfg, *transport); // after the middleman: CAF's OpenSSL module needs it
  configure_scheduler(cfg, std::max(2u, std::thread::hardware_concurrency()));
  // Incoming messages are deserialized by the network thread itself rather
  // than handed to a pool worker first: one scheduling hop less per message.
  cfg.set("middleman.workers", size_t{0});
  // A hung peer is noticed through missed heartbeats, a dead one at once.
  // Ten missed heartbeats, not fewer: a node busy on a loaded machine must
  // not be taken for a hung one.
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::milliseconds(cluster.heartbeat_ms)});
  cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::milliseconds(cluster.heartbeat_ms * 10)});
  cfg.set("middleman.app-identifiers", app_identifiers);
  return {};
}

} // namespace

status configure_cluster_system(caf::actor_system_config& cfg, const cluster_config& cluster) {
  return configure_system(cfg, cluster, net::peer_kind::client);
}

status configure_cluster_system(caf::actor_system_config& cfg, const cluster_config& cluster, const node_spec& node) {
  if (auto ok = configure_system(cfg, cluster, net::peer_kind::node); !ok)
    return ok;
  configure_scheduler(cfg, node.worker_threads(std::max(1u, std::thread::hardware_concurrency())));
  return {};
}

status configure_cluster_system(caf::actor_system_config& cfg, const std::string& secret_file) {
  auto transport = net::client_transport_settings(secret_file);
  if (!transport)
    return failure{transport.error()};
  register_message_types(cfg);
  cfg.load<caf::io::middleman>();
  net::use_transport(cfg, *transport); // after the middleman: CAF's OpenSSL module needs it
  // The nodes drop a connection that stays silent for ten of their
  // heartbeats; 100 ms keeps this one alive whatever their heartbeat-ms.
  // Without their interval, this side keeps CAF's own connection timeout.
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::milliseconds(100)});
  cfg.set("middleman.app-identifiers", app_identifiers);
  return {};
}

expected<controller_actor> connect_to_controller(caf::actor_system& sys, const std::string& host, uint16_t port,
                                                 std::chrono::milliseconds timeout) {
  return ask_node<controller_actor>(sys, host, port, timeout, controller_atom::value, "controller");
}

void connect_to_controller(caf::event_based_actor* self, const std::string& host, uint16_t port,
                           std::chrono::milliseconds timeout, std::function<void(expected<controller_actor>)> then) {
  ask_node<controller_actor>(self, host, port, timeout, controller_atom::value, "controller", std::move(then));
}

expected<controller_actor> connect_to_controller(caf::actor_system& sys, const cluster_config& cluster) {
  const auto& coordinator = cluster.coordinator();
  auto controller = connect_to_controller(sys, coordinator.host, coordinator.port,
                                          std::chrono::milliseconds(cluster.connect_timeout_ms));
  if (!controller)
    return failure{"the coordinator's node " + coordinator.name + " (" + cluster.source + "): " + controller.error()};
  return controller;
}

} // namespace gridvec
