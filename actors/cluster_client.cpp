// gridvec/cluster.hpp: an actor system that talks to a gridvec cluster.
#include <gridvec/cluster.hpp>

#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "actors/message_types.hpp"
#include "actors/net/guarded_transport.hpp"
#include "actors/scheduler_config.hpp"

namespace gridvec {

namespace {

// Both ends must agree on it: CAF refuses a peer with another identifier.
const std::vector<std::string> app_identifiers{"gridvec-0.1"};

} // namespace

status configure_cluster_system(caf::actor_system_config& cfg, const cluster_config& cluster) {
  auto transport = net::load_transport_settings(cluster);
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

status configure_cluster_system(caf::actor_system_config& cfg, const cluster_config& cluster, const node_spec& node) {
  if (auto ok = configure_cluster_system(cfg, cluster); !ok)
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
  if (!sys.has_middleman())
    return failure{"cannot connect to " + host + ":" + std::to_string(port) +
                   ": the actor system has no network layer (configure it with configure_cluster_system)"};
  // A short-lived actor runs the non-blocking connect (the same steps and
  // error lines as everywhere else) and answers with its outcome.
  auto helper = sys.spawn([host, port, timeout](caf::event_based_actor* self) -> caf::behavior {
    return {
      [=](caf::connect_atom) -> caf::result<controller_actor> {
        auto rp = self->make_response_promise<controller_actor>();
        connect_to_controller(self, host, port, timeout, [self, rp](expected<controller_actor> c) mutable {
          if (c)
            rp.deliver(*c);
          else
            rp.deliver(make_job_error(c.error()));
          self->quit();
        });
        return rp;
      },
    };
  });
  std::optional<expected<controller_actor>> out;
  caf::scoped_actor self{sys};
  // Both steps have their own timeout; this one only guards against a bug.
  self->request(helper, 2 * timeout + std::chrono::seconds(5), caf::connect_atom::value)
    .receive([&](const controller_actor& controller) { out.emplace(controller); },
             [&](caf::error& err) { out.emplace(failure{error_text(err)}); });
  caf::anon_send_exit(helper, caf::exit_reason::user_shutdown);
  return std::move(*out);
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
