// gridvec node: one process of a cluster. Reads the cluster config, hosts
// the node actor on its host:port and serves jobs until it is told to stop
// (the job ended) or gets SIGINT/SIGTERM.
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>

#include <gridvec/cluster.hpp> // configure_cluster_system

#include <gridvec/roles/node.hpp>
#include "apps/cli/cli.hpp"
#include "apps/http/node_http.hpp"
#include <gridvec/core/cluster_config.hpp>

namespace gridvec {

namespace {

std::atomic<bool> stop_requested{false};

void on_stop_signal(int) {
  if (stop_requested.exchange(true)) {
    // The second signal: no more waiting (write and _Exit are
    // async-signal-safe).
    const char line[] = "gridvec node: second signal, exiting now\n";
    [[maybe_unused]] auto n = ::write(2, line, sizeof line - 1);
    std::_Exit(130);
  }
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
  // The node ended other than by a stop: the process says why in one
  // line and exits non-zero.
  // A node still shutting down this long after a signal or after its job
  // told it to stop (an actor stuck in a long call, a peer that never
  // answers) exits anyway.
  std::string died = serve_cluster_node(sys, *started, name, stop_requested, std::chrono::seconds(15));
  if (web)
    web->stop();
  if (!died.empty()) {
    spdlog::error("node {} failed: {}", name, died);
    return 1;
  }
  spdlog::info("node {} stopped", name);
  return 0;
}

} // namespace gridvec
