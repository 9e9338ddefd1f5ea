#include "src/config/hosts_config.hpp"

#include <map>

#include <gridvec/core/cluster_config.hpp>

namespace gridvec {

namespace {

bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == ':'; // ':' for IPv6 addresses
}

// A node name ([A-Za-z0-9_.-]+) from a host name: the host's first label
// (what `hostname -s` prints on that machine, so a node can find its own
// section), its address's characters otherwise.
std::string node_name(const std::string& host) {
  std::string name;
  const bool address = host.find_first_not_of("0123456789.") == std::string::npos || host.find(':') != host.npos;
  for (char c : host) {
    if (!address && c == '.')
      break;
    name += c == ':' ? '-' : c;
  }
  return name.empty() ? "node" : name;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v)
    out += (out.empty() ? "" : ", ") + s;
  return out;
}

} // namespace

expected<std::vector<std::string>> parse_host_list(std::string_view text) {
  std::vector<std::string> hosts;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    std::string word;
    auto flush = [&]() -> status {
      if (word.empty())
        return {};
      for (char c : word)
        if (!host_char(c))
          return failure{"line " + std::to_string(line_no) + ": '" + word + "' is not a host name or address"};
      hosts.push_back(word);
      word.clear();
      return {};
    };
    for (char c : line) {
      if (c == ' ' || c == '\t' || c == '\r' || c == ',') {
        if (auto s = flush(); !s)
          return failure{s.error()};
      } else {
        word += c;
      }
    }
    if (auto s = flush(); !s)
      return failure{s.error()};
  }
  if (hosts.empty())
    return failure{"the host list names no host"};
  return hosts;
}

expected<std::string> cluster_config_from_hosts(const std::vector<std::string>& hosts, const hosts_layout& layout) {
  if (hosts.empty())
    return failure{"no hosts"};
  if (layout.state_dir.empty() || layout.state_dir.front() != '/')
    return failure{"the state directory must be an absolute path, got '" + layout.state_dir + "'"};
  if (layout.state_dir.find_first_of(",#\n") != std::string::npos)
    return failure{"the state directory '" + layout.state_dir + "' holds a ',' or '#', which a config value cannot"};
  if (layout.standby >= hosts.size())
    return failure{"--standby " + std::to_string(layout.standby) + " leaves no host of " +
                   std::to_string(hosts.size()) + " to train"};
  if (static_cast<uint32_t>(layout.port_base) + hosts.size() - 1 > 65535 || layout.port_base == 0)
    return failure{"ports " + std::to_string(layout.port_base) + ".." +
                   std::to_string(layout.port_base + hosts.size() - 1) + " do not fit in 1..65535"};
  std::vector<std::string> read{layout.state_dir}, write{layout.state_dir};
  read.insert(read.end(), layout.allow_read.begin(), layout.allow_read.end());
  write.insert(write.end(), layout.allow_write.begin(), layout.allow_write.end());

  std::string out;
  out += "# Written by `gridvec config from-hosts` from " + std::to_string(hosts.size()) + " host" +
         (hosts.size() == 1 ? "" : "s") + " (docs/deploy.md).\n";
  out += "# Every process of the cluster reads this same file (docs/cluster-config.md).\n\n";
  out += "[cluster]\n";
  out += "heartbeat-ms = " + std::to_string(layout.heartbeat_ms) + "\n";
  out += "secret = " + layout.state_dir + "/cluster.key   # gridvec keygen writes it; every node needs it\n";
  out += "table-dir = " + layout.state_dir + "/tables\n";
  out += "allow-read = " + join(read) + "\n";
  out += "allow-write = " + join(write) + "\n";

  std::map<std::string, int> seen;
  const size_t trainers = hosts.size() - layout.standby;
  for (size_t i = 0; i < hosts.size(); ++i) {
    std::string name = node_name(hosts[i]);
    if (int n = ++seen[name]; n > 1)
      name += "-" + std::to_string(n);
    const bool standby = i >= trainers;
    std::string roles = i == 0 ? "coordinator, vocabulary, exporter, shard, learner" : "shard, learner";
    out += "\n[node " + name + "]\n";
    out += "host = " + hosts[i] + "\n";
    out += "port = " + std::to_string(layout.port_base + i) + "\n";
    out += "roles = " + std::string{standby ? "shard" : roles} + "\n";
    out += "shards = " + std::to_string(layout.shards) + "\n";
    if (standby)
      out += "standby = true\n";
    else
      out += "learners = " + std::to_string(layout.learners) + "\n";
  }
  if (auto parsed = parse_cluster_config(out, "the generated config"); !parsed)
    return failure{parsed.error()};
  return out;
}

} // namespace gridvec
