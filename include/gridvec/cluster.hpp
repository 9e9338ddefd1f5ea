#pragma once
// Talking to a running gridvec cluster (`gridvec node` processes, see
// docs/cluster-config.md) from the host application's actor system: set
// the system up like the nodes', connect to the coordinator's node and get
// the cluster's controller, the same entry point `gridvec submit` uses.
//
//   auto cluster = gridvec::load_cluster_config("cluster.conf");  // expected<cluster_config>
//   caf::actor_system_config cfg;
//   if (auto ok = gridvec::configure_cluster_system(cfg, *cluster); !ok)  // before the system exists;
//     { std::fprintf(stderr, "%s\n", ok.error().c_str()); return 1; }     // reads the cluster secret
//   caf::actor_system sys{cfg};
//   auto controller = gridvec::connect_to_controller(sys, *cluster);  // expected<controller_actor>
//   if (!controller) { std::fprintf(stderr, "%s\n", controller.error().c_str()); return 1; }
//   caf::scoped_actor self{sys};
//   self->request(*controller, std::chrono::seconds(30), gridvec::start_atom::value, options)
//     .receive([](uint64_t job) { ... }, [](caf::error& e) { ... });
//
// Or, simpler, with the client the shell and `gridvec submit` use: one
// blocking method per controller request (include/gridvec/controller_client.hpp):
//   gridvec::controller_client client{sys, host, port, connect_timeout, query_timeout};
//   if (auto ok = client.connect(); !ok) ...
//   auto summary = client.submit(options, [](const std::string& line) { ... });  // expected<job_summary>
//
// Paths in a job's options (-train, -output, ...) are opened by the nodes,
// from their own working directories: give absolute paths on a file system
// they share. A job started here keeps the cluster up when it ends (unless
// options.stop_cluster); send the controller stop_atom to stop every node.
// The controller's messages are listed in docs/actors.md.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <gridvec/cluster_node.hpp> // start_cluster_node: run a node of the cluster yourself
#include <gridvec/controller_client.hpp>
#include <gridvec/protocol.hpp>
#include <gridvec/core/cluster_config.hpp> // cluster_config, load_cluster_config
#include <gridvec/core/expected.hpp>

namespace gridvec {

/// Sets `cfg` up as a cluster's nodes set theirs up, so that this process
/// can exchange gridvec's messages with them: registers every gridvec
/// message type under the nodes' names (register_message_types), loads
/// CAF's network layer (io::middleman), takes the cluster's heartbeat
/// interval (a node that stops answering is noticed), gridvec's
/// application identifier (the nodes refuse other CAF applications) and at
/// least two scheduler threads; and the cluster's transport: its secret
/// (every connection proves it, docs/security.md), TLS if the config names
/// certificates, and the bounds on what a peer may send. Fails, with one
/// line, if the secret or a certificate cannot be read. Call it before the
/// actor_system is constructed; settings made afterwards win. `gridvec
/// node` and `gridvec submit` use the same function.
status configure_cluster_system(caf::actor_system_config& cfg, const cluster_config& cluster);

/// The same for the process of `node` (`gridvec node`): its scheduler gets
/// node.worker_threads(cores) threads instead.
status configure_cluster_system(caf::actor_system_config& cfg, const cluster_config& cluster, const node_spec& node);

/// The same without a config file (connecting by host:port): the cluster
/// secret at `secret_file` (empty: none, for a cluster with insecure =
/// true) and a short heartbeat interval (100 ms), which any node accepts
/// whatever its config's heartbeat-ms.
status configure_cluster_system(caf::actor_system_config& cfg, const std::string& secret_file = "");

/// Connects to the coordinator's node at host:port and asks it for the
/// cluster's controller. Gives up after `timeout` for each step (connect,
/// ask), with one error line: nothing listening, not a gridvec node, not the
/// coordinator's node, no answer. Blocks (a scoped_actor): call it from
/// plain code, not from inside an actor. `sys` must have been configured
/// with configure_cluster_system.
expected<controller_actor> connect_to_controller(caf::actor_system& sys, const std::string& host, uint16_t port,
                                                 std::chrono::milliseconds timeout);

/// The same for the coordinator node of `cluster`, with the config's
/// connect-timeout-ms.
expected<controller_actor> connect_to_controller(caf::actor_system& sys, const cluster_config& cluster);

/// From inside an event-based actor: connects without blocking and calls
/// `then` (in the actor's context) with the controller or one error line.
void connect_to_controller(caf::event_based_actor* self, const std::string& host, uint16_t port,
                           std::chrono::milliseconds timeout, std::function<void(expected<controller_actor>)> then);

} // namespace gridvec
