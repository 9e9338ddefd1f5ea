// gridvec node: one process of a cluster. Reads the cluster config, hosts
// the node actor on its host:port and serves jobs until it is told to stop
// (the job ended) or gets SIGINT/SIGTERM.
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include <gridvec/cluster.hpp> // configure_cluster_system

#include "actors/net/guarded_transport.hpp"
#include <gridvec/roles/node.hpp>
#include "apps/cli/cli.hpp"
#include "apps/http/node_http.hpp"
#include <gridvec/core/cluster_config.hpp>

namespace gridvec {

namespace {

std::atomic<bool> stop_requested{false};
// A node that is still shutting down this long after a signal or after
// its job told it to stop (an actor stuck in a long call, a peer that
// never answers) exits anyway: an operator's SIGTERM must end the process,
// and a cluster whose job is over must not leave processes behind.
constexpr auto stop_grace = std::chrono::seconds(15);

void on_stop_signal(int) {
  if (stop_requested.exchange(true)) {
    // The second signal: no more waiting (write and _Exit are
    // async-signal-safe).
    const char line[] = "gridvec node: second signal, exiting now\n";
    [[maybe_unused]] auto n = ::write(2, line, sizeof line - 1);
    std::_Exit(130);
  }
}

// Ends the process if the orderly shutdown takes longer than stop_grace
// after `what` (the signal, the stop).
void start_stop_watchdog(const std::string& name, const char* what) {
  std::thread([name, what] {
    std::this_thread::sleep_for(stop_grace);
    spdlog::error("node {}: did not stop within {} s of {}; exiting anyway", name,
                  std::chrono::duration_cast<std::chrono::seconds>(stop_grace).count(), what);
    std::_Exit(1);
  }).detach();
}

} // namespace

int cli_node(const std::vector<std::string>& args) {
  std::string config_path, name;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::puts("usage: gridvec node --config CLUSTER.conf --name NODE\n"
                "Starts the node NAME of the cluster config (see docs/cluster-config.md) and\n"
                "serves jobs until the job ends or SIGINT/SIGTERM.");
      return 0;
    }
    if ((args[i] == "--config" || args[i] == "-config") && i + 1 < args.size())
      config_path = args[++i];
    else if ((args[i] == "--name" || args[i] == "-name") && i + 1 < args.size())
      name = args[++i];
    else {
      std::fprintf(stderr, "gridvec node: unexpected argument '%s' (usage: gridvec node --config FILE --name NODE)\n",
                   args[i].c_str());
      return 2;
    }
  }
  if (config_path.empty() || name.empty()) {
    std::fprintf(stderr, "gridvec node: usage: gridvec node --config FILE --name NODE\n");
    return 2;
  }
  auto cluster = load_cluster_config(config_path);
  if (!cluster) {
    std::fprintf(stderr, "gridvec node: %s\n", cluster.error().c_str());
    return 2;
  }
  const node_spec* spec = cluster->find(name);
  if (!spec) {
    std::string names;
    for (const auto& n : cluster->nodes)
      names += (names.empty() ? "" : ", ") + n.name;
    std::fprintf(stderr, "gridvec node: there is no node '%s' in %s (its nodes: %s)\n", name.c_str(),
                 config_path.c_str(), names.c_str());
    return 2;
  }
  setup_logging();
  caf::actor_system_config cfg;
  if (auto ok = configure_cluster_system(cfg, *cluster, *spec); !ok) {
    std::fprintf(stderr, "gridvec node: %s\n", ok.error().c_str());
    return 2;
  }
  caf::actor_system sys{cfg};
  auto started = start_cluster_node(sys, *cluster, name);
  if (!started) {
    std::fprintf(stderr, "gridvec node: %s\n", started.error().c_str());
    return 1;
  }
  auto node = started->node;
  auto port = started->port;
  spdlog::info("node {} listening on {}:{} ({})", name, spec->host, port, spec->roles_text());
  // /metrics, /healthz and the JSON API (docs/http.md); stopped below,
  // before the actor system its workers ask.
  std::unique_ptr<http::server> web;
  if (spec->http_port != 0) {
    auto started = http::start_node_http(sys, node, *cluster, *spec);
    if (!started) {
      std::fprintf(stderr, "gridvec node: node %s: %s\n", name.c_str(), started.error().c_str());
      caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
      return 1;
    }
    web = std::move(*started);
  }
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  bool stop_sent = false;
  std::string died;
  {
    caf::scoped_actor self{sys};
    self->monitor(node);
    bool running = true;
    while (running) {
      self->receive(
        [&](caf::down_msg& dm) {
          running = false;
          // The node actor ended other than by a stop: the process says
          // why in one line and exits non-zero.
          if (dm.reason && dm.reason != caf::exit_reason::user_shutdown && dm.reason != caf::exit_reason::normal)
            died = error_text(dm.reason);
        },
        caf::after(std::chrono::milliseconds(100)) >>
          [&] {
            if (stop_requested.load() && !stop_sent) {
              spdlog::info("node {}: signal received", name);
              self->send(node, stop_atom::value);
              stop_sent = true;
              start_stop_watchdog(name, "the signal");
            }
          });
    }
  }
  if (!stop_sent) // the job stopped the node: the actor system's shutdown follows
    start_stop_watchdog(name, "its stop");
  if (web)
    web->stop();
  if (auto transport = net::transport_actor(sys))
    caf::anon_send(transport, caf::close_atom::value, port);
  if (!died.empty()) {
    spdlog::error("node {} failed: {}", name, died);
    return 1;
  }
  spdlog::info("node {} stopped", name);
  return 0;
}

} // namespace gridvec
