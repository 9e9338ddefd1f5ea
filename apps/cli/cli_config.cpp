// gridvec config from-hosts: writes a cluster config from a list of hosts
// (src/config/hosts_config.hpp), for a batch system's node list or a
// machine inventory.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "apps/cli/cli.hpp"
#include "src/config/hosts_config.hpp"
#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

const char* help = "usage: gridvec config from-hosts HOSTS --state-dir DIR [options]\n"
                   "Writes a cluster config for the hosts in the file HOSTS ('-': standard input;\n"
                   "one host name or address per line, '#' comments; a host named twice gets two\n"
                   "nodes). Each host runs one node, named after the host's first label (what\n"
                   "`hostname -s` prints there), with roles shard and learner; the first one also\n"
                   "runs the coordinator, vocabulary and exporter. Node i listens on port\n"
                   "PORT_BASE + i.\n"
                   "  --state-dir DIR        where the cluster secret (DIR/cluster.key) and the\n"
                   "                         tables (DIR/tables) live; on a file system every\n"
                   "                         host shares; jobs may read and write under it\n"
                   "  --port-base N          the first node's port (default 7700)\n"
                   "  --shards K             shard actors per node (default 1)\n"
                   "  --learners K           learner actors per node (default 1)\n"
                   "  --standby N            the last N hosts are spare shard nodes (default 0)\n"
                   "  --allow-read DIRS      more directories jobs may read corpora from (comma separated)\n"
                   "  --allow-write DIRS     more directories jobs may write vectors and reports to\n"
                   "  --heartbeat-ms MS      (default 1000)\n"
                   "  -o FILE                write the config to FILE (else standard output)\n"
                   "The secret is not written: run `gridvec keygen DIR/cluster.key` once.";

bool parse_number(const std::string& text, uint64_t low, uint64_t high, uint64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9)
    return false;
  out = std::stoull(text);
  return out >= low && out <= high;
}

std::vector<std::string> split_dirs(const std::string& list) {
  std::vector<std::string> dirs;
  std::stringstream in{list};
  std::string dir;
  while (std::getline(in, dir, ','))
    if (!dir.empty())
      dirs.push_back(std::filesystem::absolute(dir).lexically_normal().string());
  return dirs;
}

int from_hosts(const std::vector<std::string>& args) {
  hosts_layout layout;
  std::string hosts_path, output;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::puts(help);
      return 0;
    }
    const bool has_value = i + 1 < args.size();
    uint64_t n = 0;
    auto number = [&](uint64_t low, uint64_t high) {
      if (!parse_number(args[i + 1], low, high, n)) {
        std::fprintf(stderr, "gridvec config: %s takes a whole number from %llu to %llu, got '%s'\n", a.c_str(),
                     static_cast<unsigned long long>(low), static_cast<unsigned long long>(high), args[i + 1].c_str());
        return false;
      }
      ++i;
      return true;
    };
    if (a == "--state-dir" && has_value) {
      layout.state_dir = std::filesystem::absolute(args[++i]).lexically_normal().string();
      while (layout.state_dir.size() > 1 && layout.state_dir.back() == '/')
        layout.state_dir.pop_back();
    } else if (a == "--port-base" && has_value) {
      if (!number(1, 65535))
        return 2;
      layout.port_base = static_cast<uint16_t>(n);
    } else if (a == "--shards" && has_value) {
      if (!number(1, 4096))
        return 2;
      layout.shards = static_cast<uint32_t>(n);
    } else if (a == "--learners" && has_value) {
      if (!number(1, 1024))
        return 2;
      layout.learners = static_cast<uint32_t>(n);
    } else if (a == "--standby" && has_value) {
      if (!number(0, 65535))
        return 2;
      layout.standby = static_cast<uint32_t>(n);
    } else if (a == "--heartbeat-ms" && has_value) {
      if (!number(1, 3'600'000))
        return 2;
      layout.heartbeat_ms = static_cast<uint32_t>(n);
    } else if (a == "--allow-read" && has_value) {
      layout.allow_read = split_dirs(args[++i]);
    } else if (a == "--allow-write" && has_value) {
      layout.allow_write = split_dirs(args[++i]);
    } else if (a == "-o" && has_value) {
      output = args[++i];
    } else if (hosts_path.empty() && (a == "-" || a.rfind("-", 0) != 0)) {
      hosts_path = a;
    } else {
      std::fprintf(stderr, "gridvec config from-hosts: unknown or incomplete argument '%s' (try --help)\n", a.c_str());
      return 2;
    }
  }
  if (hosts_path.empty() || layout.state_dir.empty()) {
    std::fprintf(stderr, "gridvec config from-hosts: needs a host list and --state-dir DIR (try --help)\n");
    return 2;
  }
  std::string text;
  if (hosts_path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
  } else {
    std::ifstream in{hosts_path, std::ios::binary};
    if (!in) {
      std::fprintf(stderr, "gridvec config from-hosts: cannot read the host list '%s'\n", hosts_path.c_str());
      return 1;
    }
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto hosts = parse_host_list(text);
  if (!hosts) {
    std::fprintf(stderr, "gridvec config from-hosts: %s: %s\n", hosts_path.c_str(), hosts.error().c_str());
    return 1;
  }
  auto config = cluster_config_from_hosts(*hosts, layout);
  if (!config) {
    std::fprintf(stderr, "gridvec config from-hosts: %s\n", config.error().c_str());
    return 1;
  }
  if (output.empty()) {
    std::fputs(config->c_str(), stdout);
    return 0;
  }
  auto file = atomic_file::create(output);
  if (!file) {
    std::fprintf(stderr, "gridvec config from-hosts: %s\n", file.error().c_str());
    return 1;
  }
  std::fputs(config->c_str(), file->stream());
  if (auto st = file->commit(); !st) {
    std::fprintf(stderr, "gridvec config from-hosts: %s\n", st.error().c_str());
    return 1;
  }
  return 0;
}

} // namespace

int cli_config(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "from-hosts")
    return from_hosts({args.begin() + 1, args.end()});
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::puts(help);
    return 0;
  }
  std::fprintf(stderr, "gridvec config: expected 'from-hosts' (gridvec config from-hosts --help)\n");
  return 2;
}

} // namespace gridvec
