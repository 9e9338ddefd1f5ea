// gridvec/cluster.hpp: an actor system that talks to a gridvec cluster.
#include <gridvec/cluster.hpp>

#include <caf/io/all.hpp>

#include <algorithm>
#include <optional>
#include <set>
#include <thread>

#include "actors/message_types.hpp"

namespace gridvec {

namespace {

// Both ends must agree on it: CAF refuses a peer with another identifier.
const std::vector<std::string> app_identifiers{"gridvec-0.1"};

} // namespace

void configure_cluster_system(caf::actor_system_config& cfg, const cluster_config& cluster) {
  register_message_types(cfg);
  cfg.load<caf::io::middleman>();
  cfg.set("scheduler.max-threads", size_t{std::max(2u, std::thread::hardware_concurrency())});
  // A hung peer is noticed through missed heartbeats, a dead one at once.
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::milliseconds(cluster.heartbeat_ms)});
  cfg.set("middleman.connection-timeout",
          caf::timespan{std::chrono::milliseconds(cluster.heartbeat_ms * 5)});
  cfg.set("middleman.app-identifiers", app_identifiers);
}

void configure_cluster_system(caf::actor_system_config& cfg) {
  register_message_types(cfg);
  cfg.load<caf::io::middleman>();
  // The nodes drop a connection that stays silent for five of their
  // heartbeats; 100 ms keeps this one alive whatever their heartbeat-ms.
  // Without their interval, this side keeps CAF's own connection timeout.
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::milliseconds(100)});
  cfg.set("middleman.app-identifiers", app_identifiers);
}

expected<controller_actor> connect_to_controller(caf::actor_system& sys, const std::string& host, uint16_t port,
                                                 std::chrono::milliseconds timeout) {
  const std::string where = host + ":" + std::to_string(port);
  if (!sys.has_middleman())
    return failure{"cannot connect to " + where +
                   ": the actor system has no network layer (configure it with configure_cluster_system)"};
  caf::scoped_actor self{sys};
  // remote_actor() would block without a timeout on a peer that accepts
  // but never answers; the middleman actor takes one.
  std::optional<expected<controller_actor>> out;
  node_actor node;
  self->request(sys.middleman().actor_handle(), timeout, caf::connect_atom::value, host, port)
    .receive(
      [&](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
        if (!ptr)
          out.emplace(failure{"nothing is published at " + where});
        else
          node = caf::actor_cast<node_actor>(std::move(ptr));
      },
      [&](caf::error& err) {
        std::string why = err == caf::sec::request_timeout ? "no answer" : error_text(err);
        out.emplace(failure{"cannot reach " + where + ": " + why});
      });
  if (out)
    return std::move(*out);
  self->request(node, timeout, controller_atom::value)
    .receive([&](const controller_actor& controller) { out.emplace(controller); },
             [&](caf::error& err) {
               std::string why = err == caf::sec::request_timeout ? "no answer" : error_text(err);
               out.emplace(failure{"the node at " + where + " gave no controller: " + why});
             });
  return std::move(*out);
}

expected<controller_actor> connect_to_controller(caf::actor_system& sys, const cluster_config& cluster) {
  const auto& coordinator = cluster.coordinator();
  auto controller = connect_to_controller(sys, coordinator.host, coordinator.port,
                                          std::chrono::milliseconds(cluster.connect_timeout_ms));
  if (!controller)
    return failure{"the coordinator's node " + coordinator.name + " (" + cluster.source + "): " +
                   controller.error()};
  return controller;
}

} // namespace gridvec
