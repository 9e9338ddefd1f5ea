// `gridvec table --config CLUSTER.conf COMMAND ...`: the parameter server's
// tables on a running cluster, one command per call (the shell's `table`
// runs the same commands; apps/shell/table_commands.hpp).
#include <caf/actor_system.hpp>

#include <cstdio>
#include <iostream>

#include <gridvec/cluster.hpp>
#include <gridvec/tables.hpp>

#include "apps/cli/cli.hpp"
#include "apps/shell/table_commands.hpp"

namespace gridvec {

namespace {

const char* const usage_head = "usage: gridvec table --config CLUSTER.conf [--timeout SECONDS] COMMAND [ARGS...]\n\n"
                               "The parameter server's tables on the cluster's shard nodes (docs/tables.md).\n"
                               "Commands:\n";

} // namespace

int cli_table(const std::vector<std::string>& args) {
  std::string config;
  double timeout_seconds = 60;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s%s", usage_head, table_commands_usage);
      return 0;
    }
    if ((a == "--config" || a == "-config") && i + 1 < args.size()) {
      config = args[++i];
    } else if (a == "--timeout" && i + 1 < args.size()) {
      try {
        timeout_seconds = std::stod(args[++i]);
      } catch (const std::exception&) {
        timeout_seconds = -1;
      }
      if (!(timeout_seconds > 0 && timeout_seconds <= 86400)) {
        std::fprintf(stderr, "error: --timeout must be a number of seconds from 0 to 86400, not '%s'\n",
                     args[i].c_str());
        return 2;
      }
    } else if (a.rfind("-", 0) == 0) {
      std::fprintf(stderr, "error: unknown option '%s' (gridvec table --help)\n", a.c_str());
      return 2;
    } else {
      break;
    }
  }
  if (config.empty() || i == args.size()) {
    std::fprintf(stderr, "%s%s", usage_head, table_commands_usage);
    return 2;
  }
  auto cluster = load_cluster_config(config);
  if (!cluster) {
    std::fprintf(stderr, "error: %s\n", cluster.error().c_str());
    return 2;
  }
  setup_logging();
  caf::actor_system_config cfg;
  if (auto ok = configure_cluster_system(cfg, *cluster); !ok) {
    std::fprintf(stderr, "error: %s\n", ok.error().c_str());
    return 2;
  }
  caf::actor_system sys{cfg};
  auto shards = connect_table_shards(sys, *cluster);
  if (!shards) {
    std::fprintf(stderr, "error: %s\n", shards.error().c_str());
    return 1;
  }
  table_client client{sys, *shards, std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000))};
  std::vector<std::string> words(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (auto done = run_table_command(client, words, std::cout); !done) {
    std::fprintf(stderr, "error: %s\n", done.error().c_str());
    return 1;
  }
  return 0;
}

} // namespace gridvec
