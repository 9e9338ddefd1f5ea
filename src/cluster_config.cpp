#include "src/cluster_config.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

namespace gridvec {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool valid_name(std::string_view s) {
  if (s.empty())
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

template <class T>
bool parse_uint(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

struct parser {
  std::string source;
  cluster_config config;
  int line = 0;
  enum class section { none, cluster, node } where = section::none;
  std::set<std::string> keys_seen; // in the current section
  std::vector<bool> roles_given;   // per node

  failure error(const std::string& what) const {
    return failure{source + ":" + std::to_string(line) + ": " + what};
  }

  status header(std::string_view h) {
    keys_seen.clear();
    if (h == "cluster") {
      where = section::cluster;
      return {};
    }
    if (h.substr(0, 5) == "node " || h.substr(0, 5) == "node\t") {
      auto name = trim(h.substr(5));
      if (!valid_name(name))
        return error("invalid node name '" + std::string{name} + "' (letters, digits, '_', '.', '-')");
      for (const auto& n : config.nodes)
        if (n.name == name)
          return error("duplicate node '" + std::string{name} + "' (first at line " + std::to_string(n.line) + ")");
      node_spec spec;
      spec.name = std::string{name};
      spec.line = line;
      config.nodes.push_back(std::move(spec));
      where = section::node;
      return {};
    }
    return error("unknown section [" + std::string{h} + "] (expected [cluster] or [node NAME])");
  }

  status cluster_key(const std::string& key, std::string_view value) {
    uint32_t v = 0;
    if (key == "heartbeat-ms" || key == "connect-timeout-ms") {
      if (!parse_uint(value, v) || v == 0)
        return error(key + " must be a positive number of milliseconds, got '" + std::string{value} + "'");
      (key == "heartbeat-ms" ? config.heartbeat_ms : config.connect_timeout_ms) = v;
      return {};
    }
    return error("unknown key '" + key + "' in [cluster]");
  }

  status node_key(const std::string& key, std::string_view value) {
    node_spec& n = config.nodes.back();
    const std::string where_text = " in [node " + n.name + "]";
    if (key == "host") {
      if (value.find_first_of(" \t") != std::string_view::npos)
        return error("host '" + std::string{value} + "' contains white space" + where_text);
      n.host = std::string{value};
    } else if (key == "port") {
      uint32_t p = 0;
      if (!parse_uint(value, p) || p == 0 || p > 65535)
        return error("port must be a number from 1 to 65535, got '" + std::string{value} + "'" + where_text);
      n.port = static_cast<uint16_t>(p);
    } else if (key == "roles") {
      std::string list{value};
      std::replace(list.begin(), list.end(), ',', ' ');
      std::istringstream in(list);
      std::string role;
      while (in >> role) {
        node_role r;
        if (role == "coordinator") r = node_role::coordinator;
        else if (role == "vocabulary") r = node_role::vocabulary;
        else if (role == "shard") r = node_role::shard;
        else if (role == "learner") r = node_role::learner;
        else if (role == "exporter") r = node_role::exporter;
        else
          return error("unknown role '" + role + "'" + where_text +
                       " (roles: coordinator, vocabulary, shard, learner, exporter)");
        if (!n.has(r))
          n.roles.push_back(r);
      }
      if (n.roles.empty())
        return error("roles is empty" + where_text);
    } else if (key == "shards" || key == "learners") {
      uint32_t v = 0;
      if (!parse_uint(value, v) || v == 0)
        return error(key + " must be a positive number, got '" + std::string{value} + "'" + where_text);
      (key == "shards" ? n.shards : n.learners) = v;
    } else if (key == "standby") {
      if (value != "true" && value != "false")
        return error("standby must be true or false, got '" + std::string{value} + "'" + where_text);
      n.standby = value == "true";
    } else {
      return error("unknown key '" + key + "'" + where_text +
                   " (keys: host, port, roles, shards, learners, standby)");
    }
    return {};
  }

  status line_of(std::string_view raw) {
    auto hash = raw.find('#');
    auto text = trim(hash == std::string_view::npos ? raw : raw.substr(0, hash));
    if (text.empty())
      return {};
    if (text.front() == '[') {
      if (text.back() != ']')
        return error("section header lacks ']'");
      return header(trim(text.substr(1, text.size() - 2)));
    }
    auto eq = text.find('=');
    if (eq == std::string_view::npos)
      return error("expected 'key = value', got '" + std::string{text} + "'");
    std::string key{trim(text.substr(0, eq))};
    auto value = trim(text.substr(eq + 1));
    if (key.empty())
      return error("a line has no key before '='");
    if (where == section::none)
      return error("key '" + key + "' outside any section");
    if (value.empty())
      return error("key '" + key + "' has no value");
    if (!keys_seen.insert(key).second)
      return error("key '" + key + "' given twice in one section");
    return where == section::cluster ? cluster_key(key, value) : node_key(key, value);
  }

  status check() {
    if (config.nodes.empty())
      return failure{source + ": no nodes (add [node NAME] sections)"};
    std::set<std::pair<std::string, uint16_t>> endpoints;
    int coordinators = 0;
    bool vocab = false, exporter = false, shard = false, learner = false;
    for (const auto& n : config.nodes) {
      line = n.line;
      if (n.host.empty())
        return error("node " + n.name + " has no host");
      if (n.port == 0)
        return error("node " + n.name + " has no port");
      if (n.roles.empty())
        return error("node " + n.name + " has no roles");
      if (!endpoints.insert({n.host, n.port}).second)
        return error("node " + n.name + " uses " + n.host + ":" + std::to_string(n.port) +
                     ", as another node does");
      if (n.has(node_role::shard) != (n.shards > 0))
        return error(n.has(node_role::shard) ? "node " + n.name + " has role shard but no 'shards = N'"
                                             : "node " + n.name + " sets shards without role shard");
      if (n.has(node_role::learner) != (n.learners > 0))
        return error(n.has(node_role::learner) ? "node " + n.name + " has role learner but no 'learners = N'"
                                               : "node " + n.name + " sets learners without role learner");
      if (n.standby) {
        if (n.roles.size() != 1 || !n.has(node_role::shard))
          return error("standby node " + n.name + " may only have role shard");
        continue;
      }
      coordinators += n.has(node_role::coordinator);
      vocab |= n.has(node_role::vocabulary);
      exporter |= n.has(node_role::exporter);
      shard |= n.has(node_role::shard);
      learner |= n.has(node_role::learner);
    }
    line = 0;
    auto missing = [&](const char* role) {
      return failure{source + ": no node has role " + role};
    };
    if (coordinators == 0) return missing("coordinator");
    if (coordinators > 1) return failure{source + ": more than one node has role coordinator"};
    if (!vocab) return missing("vocabulary");
    if (!exporter) return missing("exporter");
    if (!shard) return missing("shard");
    if (!learner) return missing("learner");
    return {};
  }
};

} // namespace

std::string to_string(node_role r) {
  switch (r) {
    case node_role::coordinator: return "coordinator";
    case node_role::vocabulary: return "vocabulary";
    case node_role::shard: return "shard";
    case node_role::learner: return "learner";
    case node_role::exporter: return "exporter";
  }
  return "?";
}

bool node_spec::has(node_role r) const {
  return std::find(roles.begin(), roles.end(), r) != roles.end();
}

const node_spec* cluster_config::find(std::string_view name) const {
  for (const auto& n : nodes)
    if (n.name == name)
      return &n;
  return nullptr;
}

const node_spec& cluster_config::coordinator() const {
  for (const auto& n : nodes)
    if (n.has(node_role::coordinator))
      return n;
  return nodes.front(); // parse_cluster_config guarantees one
}

uint32_t cluster_config::total_shards() const {
  uint32_t t = 0;
  for (const auto& n : nodes)
    if (!n.standby)
      t += n.shards;
  return t;
}

uint32_t cluster_config::total_learners() const {
  uint32_t t = 0;
  for (const auto& n : nodes)
    t += n.learners;
  return t;
}

std::vector<const node_spec*> cluster_config::with_role(node_role r) const {
  std::vector<const node_spec*> out;
  for (const auto& n : nodes)
    if (n.has(r))
      out.push_back(&n);
  return out;
}

expected<cluster_config> parse_cluster_config(std::string_view text, const std::string& source_name) {
  parser p;
  p.source = source_name;
  p.config.source = source_name;
  size_t pos = 0;
  while (pos <= text.size()) {
    ++p.line;
    auto nl = text.find('\n', pos);
    auto raw = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (auto s = p.line_of(raw); !s)
      return failure{s.error()};
    if (nl == std::string_view::npos)
      break;
    pos = nl + 1;
  }
  if (auto s = p.check(); !s)
    return failure{s.error()};
  return std::move(p.config);
}

expected<cluster_config> load_cluster_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return failure{"cannot read cluster config " + path};
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_cluster_config(buf.str(), path);
}

} // namespace gridvec
