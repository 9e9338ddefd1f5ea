#include <gridvec/core/cluster_config.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "src/util/human_units.hpp"

namespace gridvec {

namespace {

// Upper bounds that keep every product the nodes compute from these values
// (timeouts times node counts, totals over nodes) far from overflowing, and
// match the limits of `gridvec train` (--shards, -threads).
constexpr uint32_t max_milliseconds = 3'600'000; // an hour
constexpr uint32_t max_shards_per_node = 4096;
constexpr uint32_t max_learners_per_node = 1024;
constexpr uint32_t max_threads_per_node = 1024;

constexpr const char* role_list = "coordinator, vocabulary, shard, learner, exporter";
constexpr uint32_t max_message_mb_limit = 4095; // CAF's frames carry a 32-bit length
constexpr uint32_t max_connections_limit = 65535;

// '\r' counts as blank so that CRLF files parse like LF files.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back()))
    s.remove_suffix(1);
  return s;
}

// ASCII only, whatever the locale: names travel in messages and logs and are
// typed on command lines.
bool valid_node_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

/// A whole decimal number in 1..max; no sign, no spaces, no suffix.
bool parse_positive(std::string_view s, uint32_t max, uint32_t& out) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v == 0 || v > max)
    return false;
  out = v;
  return true;
}

std::optional<node_role> parse_role(std::string_view s) {
  for (auto r :
       {node_role::coordinator, node_role::vocabulary, node_role::shard, node_role::learner, node_role::exporter})
    if (s == to_string(r))
      return r;
  return std::nullopt;
}

std::string in_quotes(std::string_view s) { return "'" + std::string{s} + "'"; }

// One key of a section: its name and how its value is read, in one place
// (the unknown-key error lists the names from here). `set` returns why the
// value is refused, or nothing.
template <class Section>
struct key_spec {
  const char* name;
  std::function<std::string(Section&, std::string_view, const std::string& in)> set;
};

template <class Section>
std::string key_list(const std::vector<key_spec<Section>>& keys) {
  std::string out;
  for (const auto& k : keys)
    out += (out.empty() ? "" : ", ") + std::string{k.name};
  return out;
}

template <class Section>
key_spec<Section> text_key(const char* name, std::string Section::*field, bool no_spaces = false) {
  return {name, [=](Section& s, std::string_view value, const std::string& in) -> std::string {
            if (no_spaces && value.find_first_of(" \t") != std::string_view::npos)
              return std::string{name} + " " + in_quotes(value) + " contains spaces" + in;
            s.*field = std::string{value};
            return {};
          }};
}

template <class Section>
key_spec<Section> bool_key(const char* name, bool Section::*field) {
  return {name, [=](Section& s, std::string_view value, const std::string& in) -> std::string {
            if (value != "true" && value != "false")
              return std::string{name} + " must be true or false, got " + in_quotes(value) + in;
            s.*field = value == "true";
            return {};
          }};
}

template <class Section, class T>
key_spec<Section> count_key(const char* name, T Section::*field, uint32_t limit) {
  return {name, [=](Section& s, std::string_view value, const std::string& in) -> std::string {
            uint32_t v = 0;
            if (!parse_positive(value, limit, v))
              return std::string{name} + " must be a positive integer up to " + std::to_string(limit) + ", got " +
                     in_quotes(value) + in;
            s.*field = static_cast<T>(v);
            return {};
          }};
}

template <class Section>
key_spec<Section> port_key(const char* name, uint16_t Section::*field) {
  return {name, [=](Section& s, std::string_view value, const std::string& in) -> std::string {
            uint32_t port = 0;
            if (!parse_positive(value, 65535, port))
              return std::string{name} + " must be a number from 1 to 65535, got " + in_quotes(value) + in;
            s.*field = static_cast<uint16_t>(port);
            return {};
          }};
}

// Comma separated (directory names may hold spaces).
key_spec<cluster_config> dirs_key(const char* name, std::vector<std::string> cluster_config::*field) {
  return {name, [=](cluster_config& c, std::string_view value, const std::string& in) -> std::string {
            auto& dirs = c.*field;
            size_t pos = 0;
            while (pos <= value.size()) {
              auto end = value.find(',', pos);
              if (end == std::string_view::npos)
                end = value.size();
              auto dir = trim(value.substr(pos, end - pos));
              pos = end + 1;
              if (!dir.empty())
                dirs.emplace_back(dir);
            }
            if (dirs.empty())
              return std::string{name} + " lists no directory" + in;
            return {};
          }};
}

// Comma and/or space separated: "a, b", "a,b" and "a b" are all fine.
key_spec<node_spec> roles_key() {
  return {"roles", [](node_spec& n, std::string_view value, const std::string& in) -> std::string {
            size_t pos = 0;
            while (pos < value.size()) {
              auto end = value.find_first_of(", \t", pos);
              if (end == std::string_view::npos)
                end = value.size();
              auto word = value.substr(pos, end - pos);
              pos = end + 1;
              if (word.empty())
                continue;
              auto role = parse_role(word);
              if (!role)
                return "unknown role " + in_quotes(word) + in + " (roles: " + role_list + ")";
              if (!n.has(*role))
                n.roles.push_back(*role);
            }
            if (n.roles.empty())
              return "roles lists no role" + in + " (roles: " + role_list + ")";
            return {};
          }};
}

key_spec<node_spec> size_key(const char* name, uint64_t node_spec::*field) {
  return {name, [name, field](node_spec& n, std::string_view value, const std::string& in) -> std::string {
            if (!parse_byte_size(value, n.*field))
              return std::string{name} + " must be a size such as 512M, 16G or 1.5T, got " + in_quotes(value) + in;
            return {};
          }};
}

// The keys of [cluster], in the order the unknown-key error lists them.
const std::vector<key_spec<cluster_config>>& cluster_keys() {
  using c = cluster_config;
  static const std::vector<key_spec<cluster_config>> keys{
    count_key("heartbeat-ms", &c::heartbeat_ms, max_milliseconds),
    count_key("connect-timeout-ms", &c::connect_timeout_ms, max_milliseconds),
    text_key("secret", &c::secret_file),
    bool_key("insecure", &c::insecure),
    text_key("tls-certificate", &c::tls_certificate),
    text_key("tls-key", &c::tls_key),
    text_key("tls-ca", &c::tls_ca),
    dirs_key("allow-read", &c::allow_read),
    dirs_key("allow-write", &c::allow_write),
    count_key("max-message-mb", &c::max_message_mb, max_message_mb_limit),
    count_key("max-connections", &c::max_connections, max_connections_limit),
    count_key("max-connections-per-address", &c::max_connections_per_address, max_connections_limit),
    count_key("max-handshakes", &c::max_handshakes, max_connections_limit),
    count_key("max-handshakes-per-address", &c::max_handshakes_per_address, max_connections_limit),
    text_key("table-dir", &c::table_dir),
    bool_key("shutdown-after-job", &c::shutdown_after_job),
  };
  return keys;
}

// The keys of [node NAME].
const std::vector<key_spec<node_spec>>& node_keys() {
  using n = node_spec;
  static const std::vector<key_spec<node_spec>> keys{
    text_key("host", &n::host, true),
    port_key("port", &n::port),
    roles_key(),
    count_key("shards", &n::shards, max_shards_per_node),
    count_key("learners", &n::learners, max_learners_per_node),
    count_key("threads", &n::threads, max_threads_per_node),
    size_key("memory", &n::memory),
    size_key("count-memory", &n::count_memory),
    text_key("count-dir", &n::count_dir),
    bool_key("standby", &n::standby),
    port_key("http-port", &n::http_port),
    text_key("http-bind", &n::http_bind, true),
    count_key("table-lanes", &n::table_lanes, max_threads_per_node),
  };
  return keys;
}

std::string section_text(const node_spec& n) { return "[node " + n.name + "]"; }

class parser {
public:
  explicit parser(const std::string& source) { config_.source = source; }

  status line(std::string_view raw, int line_number) {
    line_ = line_number;
    auto hash = raw.find('#');
    auto text = trim(hash == std::string_view::npos ? raw : raw.substr(0, hash));
    if (text.empty())
      return {};
    if (text.front() == '[') {
      if (text.back() != ']')
        return error("section header " + in_quotes(text) + " must end with ']'");
      return header(trim(text.substr(1, text.size() - 2)));
    }
    auto eq = text.find('=');
    if (eq == std::string_view::npos)
      return error("missing '=' in " + in_quotes(text) + " (expected 'key = value')");
    std::string key{trim(text.substr(0, eq))};
    auto value = trim(text.substr(eq + 1));
    if (key.empty())
      return error("missing key before '=' in " + in_quotes(text));
    if (where_ == section::none)
      return error("key " + in_quotes(key) + " outside a section (put it under [cluster] or [node NAME])");
    const std::string in = " in " + current_section();
    if (value.empty())
      return error("empty value for key " + in_quotes(key) + in);
    if (auto [it, fresh] = keys_seen_.emplace(key, line_); !fresh)
      return error("duplicate key " + in_quotes(key) + in + " (first at line " + std::to_string(it->second) + ")");
    return where_ == section::cluster ? cluster_key(key, value) : node_key(key, value, in);
  }

  /// The checks that need the whole file: required keys and roles.
  expected<cluster_config> finish() {
    if (config_.nodes.empty())
      return failure{config_.source + ": no nodes (a cluster config needs [node NAME] sections)"};
    std::map<std::pair<std::string, uint16_t>, const node_spec*> endpoints;
    const node_spec* coordinator = nullptr;
    bool vocabulary = false, exporter = false, shard = false, learner = false;
    for (const auto& n : config_.nodes) {
      line_ = n.line;
      const std::string node = section_text(n);
      if (n.host.empty())
        return error(node + " is missing host (add 'host = ADDRESS')");
      if (n.port == 0)
        return error(node + " is missing port (add 'port = 1..65535')");
      if (n.roles.empty())
        return error(node + " is missing roles (" + role_list + ")");
      if (auto [it, fresh] = endpoints.emplace(std::pair{n.host, n.port}, &n); !fresh)
        return error(node + " uses " + n.host + ":" + std::to_string(n.port) + ", the same host:port as " +
                     section_text(*it->second) + " (line " + std::to_string(it->second->line) + ")");
      if (auto http = http_check(n, node, endpoints); !http)
        return failure{http.error()};
      if (n.has(node_role::shard) && n.shards == 0)
        return error(node + " has role shard but no 'shards = N'");
      if (!n.has(node_role::shard) && n.shards > 0)
        return error(node + " sets shards but lacks role shard");
      if (n.has(node_role::learner) && n.learners == 0)
        return error(node + " has role learner but no 'learners = N'");
      if (!n.has(node_role::learner) && n.learners > 0)
        return error(node + " sets learners but lacks role learner");
      if (n.standby) {
        for (auto r : n.roles)
          if (r != node_role::shard && r != node_role::learner)
            return error(node + " is standby, so its roles may only be shard and learner (it has role " + to_string(r) +
                         ")");
        continue; // a spare does not count towards the roles a cluster needs
      }
      if (n.has(node_role::coordinator)) {
        if (coordinator)
          return error("more than one coordinator: " + node + " and " + section_text(*coordinator) + " (line " +
                       std::to_string(coordinator->line) + "); a cluster has exactly one");
        coordinator = &n;
      }
      vocabulary |= n.has(node_role::vocabulary);
      exporter |= n.has(node_role::exporter);
      shard |= n.has(node_role::shard);
      learner |= n.has(node_role::learner);
    }
    auto missing = [&](const char* role, const char* note) {
      return failure{config_.source + ": no node has role " + role + note};
    };
    if (!coordinator)
      return missing("coordinator", "");
    if (!vocabulary)
      return missing("vocabulary", "");
    if (!exporter)
      return missing("exporter", "");
    if (!shard)
      return missing("shard", " (standby nodes do not count)");
    if (!learner)
      return missing("learner", "");
    const bool tls = !config_.tls_certificate.empty() || !config_.tls_key.empty() || !config_.tls_ca.empty();
    if (tls && (config_.tls_certificate.empty() || config_.tls_key.empty() || config_.tls_ca.empty()))
      return failure{config_.source + ": TLS needs all three of tls-certificate, tls-key and tls-ca in [cluster]"};
    if (config_.insecure && (tls || !config_.secret_file.empty()))
      return failure{config_.source + ": insecure = true together with a secret or TLS; remove one or the other"};
    return std::move(config_);
  }

private:
  enum class section { none, cluster, node };

  // The node's HTTP server: its port must be free among the config's
  // endpoints, and a bind beyond loopback needs the secret whose token
  // guards the API (without one, anyone on the network could read it).
  status http_check(const node_spec& n, const std::string& node,
                    std::map<std::pair<std::string, uint16_t>, const node_spec*>& endpoints) const {
    if (n.http_port == 0) {
      if (!n.http_bind.empty())
        return error(node + " sets http-bind but no http-port");
      return {};
    }
    if (auto [it, fresh] = endpoints.emplace(std::pair{n.host, n.http_port}, &n); !fresh)
      return error(node + " uses http-port " + std::to_string(n.http_port) + ", the same host:port as " +
                   section_text(*it->second) + " (line " + std::to_string(it->second->line) + ")");
    if (!is_loopback_address(n.http_address()) && config_.secret_file.empty())
      return error(node + " binds its HTTP server to " + n.http_address() +
                   ", beyond this machine, but the cluster has no secret to derive the API's token from "
                   "(add 'secret = FILE' to [cluster], or bind 127.0.0.1)");
    return {};
  }

  failure error(const std::string& what) const {
    return failure{config_.source + ":" + std::to_string(line_) + ": " + what};
  }

  std::string current_section() const {
    return where_ == section::cluster ? "[cluster]" : section_text(config_.nodes.back());
  }

  status header(std::string_view h) {
    keys_seen_.clear();
    if (h == "cluster") {
      if (cluster_line_ != 0)
        return error("duplicate section [cluster] (first at line " + std::to_string(cluster_line_) + ")");
      cluster_line_ = line_;
      where_ = section::cluster;
      return {};
    }
    if (h == "node")
      return error("missing node name in [node] (expected [node NAME])");
    if (h.substr(0, 5) != "node " && h.substr(0, 5) != "node\t")
      return error("unknown section [" + std::string{h} + "] (expected [cluster] or [node NAME])");
    auto name = trim(h.substr(5));
    if (!valid_node_name(name))
      return error("invalid node name " + in_quotes(name) + " (use letters, digits, '_', '.', '-')");
    for (const auto& n : config_.nodes)
      if (n.name == name)
        return error("duplicate node name " + in_quotes(name) + " (first at line " + std::to_string(n.line) + ")");
    node_spec spec;
    spec.name = std::string{name};
    spec.line = line_;
    config_.nodes.push_back(std::move(spec));
    where_ = section::node;
    return {};
  }

  status cluster_key(const std::string& key, std::string_view value) {
    for (const auto& k : cluster_keys())
      if (key == k.name) {
        if (auto why = k.set(config_, value, ""); !why.empty())
          return error(why);
        return {};
      }
    return error("unknown key " + in_quotes(key) + " in [cluster] (keys: " + key_list(cluster_keys()) + ")");
  }

  status node_key(const std::string& key, std::string_view value, const std::string& in) {
    for (const auto& k : node_keys())
      if (key == k.name) {
        if (auto why = k.set(config_.nodes.back(), value, in); !why.empty())
          return error(why);
        return {};
      }
    return error("unknown key " + in_quotes(key) + in + " (keys: " + key_list(node_keys()) + ")");
  }

  cluster_config config_;
  int line_ = 0;
  section where_ = section::none;
  int cluster_line_ = 0;                 // of [cluster], 0 before it
  std::map<std::string, int> keys_seen_; // in the current section, with their lines
};

} // namespace

bool is_loopback_address(std::string_view address) {
  return address == "localhost" || address == "::1" || address == "[::1]" || address.rfind("127.", 0) == 0;
}

std::string to_string(node_role r) {
  switch (r) {
    case node_role::coordinator: return "coordinator";
    case node_role::vocabulary: return "vocabulary";
    case node_role::shard: return "shard";
    case node_role::learner: return "learner";
    case node_role::exporter: return "exporter";
  }
  return "unknown";
}

bool node_spec::has(node_role r) const { return std::find(roles.begin(), roles.end(), r) != roles.end(); }

uint32_t node_spec::worker_threads(uint32_t cores) const {
  if (threads > 0)
    return threads;
  return std::clamp(shards + learners, 1u, std::max(1u, cores));
}

bool node_spec::shards_on_network_thread(uint32_t cores) const { return shards > 0 && worker_threads(cores) == 1; }

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
  return nodes.front(); // unreachable for a parsed config, which has exactly one
}

uint32_t cluster_config::total_shards() const {
  uint32_t total = 0;
  for (const auto& n : nodes)
    if (!n.standby)
      total += n.shards;
  return total;
}

uint32_t cluster_config::total_learners() const {
  uint32_t total = 0;
  for (const auto& n : nodes)
    if (!n.standby)
      total += n.learners;
  return total;
}

std::string node_spec::roles_text() const {
  std::string out;
  for (auto r : roles)
    out += (out.empty() ? "" : " ") + to_string(r);
  return out;
}

std::vector<const node_spec*> cluster_config::table_shard_nodes() const {
  std::vector<const node_spec*> out;
  for (auto& n : nodes)
    if (n.has(node_role::shard) && !n.standby)
      out.push_back(&n);
  return out;
}

std::vector<const node_spec*> cluster_config::with_role(node_role r) const {
  std::vector<const node_spec*> out;
  for (const auto& n : nodes)
    if (n.has(r))
      out.push_back(&n);
  return out;
}

expected<cluster_config> parse_cluster_config(std::string_view text, const std::string& source_name) {
  // Editors on some systems start UTF-8 files with a byte order mark.
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.substr(0, bom.size()) == bom)
    text.remove_prefix(bom.size());
  parser p{source_name};
  int line_number = 0;
  while (!text.empty()) {
    auto nl = text.find('\n');
    auto raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (auto s = p.line(raw, ++line_number); !s)
      return failure{s.error()};
  }
  return p.finish();
}

expected<cluster_config> load_cluster_config(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return failure{"cannot read cluster config " + path + ": it is a directory"};
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return failure{"cannot read cluster config " + path + ": " + std::strerror(errno)};
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad())
    return failure{"cannot read cluster config " + path + ": read error"};
  auto config = parse_cluster_config(text, path);
  if (!config)
    return config;
  // Files and directories named in it are relative to the config's own
  // directory, whatever the directory a process starts in.
  const auto base = std::filesystem::absolute(path, ec).parent_path();
  auto resolve = [&](std::string& p) {
    if (!p.empty() && std::filesystem::path{p}.is_relative())
      p = (base / p).lexically_normal().string();
  };
  for (auto* p :
       {&config->secret_file, &config->tls_certificate, &config->tls_key, &config->tls_ca, &config->table_dir})
    resolve(*p);
  for (auto& d : config->allow_read)
    resolve(d);
  for (auto& d : config->allow_write)
    resolve(d);
  return config;
}

} // namespace gridvec
