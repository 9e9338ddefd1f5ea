// gridvec stop --config FILE: stops every node of a cluster. Nodes outlive
// the jobs they run (a parameter server's tables stay up between jobs), so
// stopping them is a command of its own: the coordinator's node tells every
// other node to stop, waits for each, then stops itself; this command then
// waits until no node of the config listens any more.
#include <caf/all.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gridvec/cluster.hpp> // configure_cluster_system, controller_client

#include "apps/cli/cli.hpp"
#include <gridvec/core/cluster_config.hpp>

namespace gridvec {

namespace {

// Whether something accepts TCP connections at host:port now.
bool listening(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0)
    return false;
  bool open = false;
  for (auto* a = found; a && !open; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0)
      continue;
    open = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  freeaddrinfo(found);
  return open;
}

} // namespace

int cli_stop(const std::vector<std::string>& args) {
  std::string config_path;
  double wait_seconds = 30;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::puts("usage: gridvec stop --config CLUSTER.conf [--wait SECONDS]\n"
                "Stops every node of the cluster: the coordinator's node tells each node to\n"
                "stop (a running job is cancelled; the tables are saved where table-dir says)\n"
                "and stops last. Waits until no node of the config listens any more, at most\n"
                "SECONDS (default 30); exits 1 naming the nodes still listening then.");
      return 0;
    }
    if ((args[i] == "--config" || args[i] == "-config") && i + 1 < args.size()) {
      config_path = args[++i];
    } else if (args[i] == "--wait" && i + 1 < args.size()) {
      char* end = nullptr;
      wait_seconds = std::strtod(args[i + 1].c_str(), &end);
      if (end == args[i + 1].c_str() || *end != '\0' || !(wait_seconds >= 0) || wait_seconds > 3600) {
        std::fprintf(stderr, "gridvec stop: --wait takes seconds from 0 to 3600, got '%s'\n", args[i + 1].c_str());
        return 2;
      }
      ++i;
    } else {
      std::fprintf(stderr, "gridvec stop: unknown argument '%s' (try gridvec stop --help)\n", args[i].c_str());
      return 2;
    }
  }
  if (config_path.empty()) {
    std::fprintf(stderr, "gridvec stop: missing --config FILE (the cluster config)\n");
    return 2;
  }
  auto cluster = load_cluster_config(config_path);
  if (!cluster) {
    std::fprintf(stderr, "gridvec stop: %s\n", cluster.error().c_str());
    return 2;
  }
  setup_logging();
  {
    caf::actor_system_config cfg;
    if (auto ok = configure_cluster_system(cfg, *cluster); !ok) {
      std::fprintf(stderr, "gridvec stop: %s\n", ok.error().c_str());
      return 2;
    }
    caf::actor_system sys{cfg};
    const auto& coordinator = cluster->coordinator();
    const auto timeout = std::chrono::milliseconds(cluster->connect_timeout_ms);
    controller_client client{sys, coordinator.host, coordinator.port, timeout, std::chrono::seconds(30)};
    if (auto ok = client.connect(); !ok) {
      std::fprintf(stderr, "gridvec stop: the coordinator's node %s is not reachable: %s\n", coordinator.name.c_str(),
                   ok.error().c_str());
      return 1;
    }
    if (auto ok = client.shutdown(); !ok) {
      std::fprintf(stderr, "gridvec stop: %s\n", ok.error().c_str());
      return 1;
    }
  }
  // The controller is gone once its node began to stop; the node's port
  // closes when its process ends.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_seconds);
  std::vector<const node_spec*> up;
  for (;;) {
    up.clear();
    for (const auto& n : cluster->nodes)
      if (listening(n.host, n.port))
        up.push_back(&n);
    if (up.empty() || std::chrono::steady_clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!up.empty()) {
    std::string names;
    for (const auto* n : up)
      names += (names.empty() ? "" : ", ") + n->name + " (" + n->host + ":" + std::to_string(n->port) + ")";
    std::fprintf(stderr, "gridvec stop: still listening after %.0f s: %s\n", wait_seconds, names.c_str());
    return 1;
  }
  std::printf("stopped %zu node%s of %s\n", cluster->nodes.size(), cluster->nodes.size() == 1 ? "" : "s",
              config_path.c_str());
  return 0;
}

} // namespace gridvec
