#include "src/net/transport_settings.hpp"

#include <fstream>

#include "src/cluster_config.hpp"
#include "src/net/cluster_secret.hpp"

namespace gridvec::net {

namespace {

status readable(const std::string& what, const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return failure{"cannot read the " + what + " " + path + " (named in the cluster config)"};
  return {};
}

} // namespace

expected<transport_settings> load_transport_settings(const cluster_config& cluster) {
  // Checked here, where a process is about to talk to the cluster, rather
  // than by the parser: a config without a secret is well-formed, but no
  // process may use it to open the cluster to anyone.
  if (!cluster.insecure && cluster.secret_file.empty() && cluster.tls_certificate.empty())
    return failure{cluster.source + ": no secret: add 'secret = FILE' to [cluster] (write one with: gridvec keygen "
                                    "FILE), or 'insecure = true' to let anyone who reaches a port drive the cluster"};
  transport_settings s;
  s.insecure = cluster.insecure;
  s.max_message_bytes = uint64_t{cluster.max_message_mb} << 20;
  s.max_connections = cluster.max_connections;
  s.max_connections_per_address = cluster.max_connections_per_address;
  s.handshake_timeout_ms = cluster.connect_timeout_ms;
  if (!cluster.secret_file.empty()) {
    auto secret = load_secret(cluster.secret_file);
    if (!secret)
      return failure{secret.error()};
    s.secret = *secret;
  }
  if (!cluster.tls_certificate.empty()) {
    // CAF's OpenSSL module throws on a file it cannot load, deep in its
    // first connection: checked here, with a line that names the file.
    for (auto [what, path] : {std::pair{"TLS certificate", &cluster.tls_certificate},
                              std::pair{"TLS key", &cluster.tls_key}, std::pair{"TLS CA certificate", &cluster.tls_ca}})
      if (auto ok = readable(what, *path); !ok)
        return failure{ok.error()};
    s.tls_certificate = cluster.tls_certificate;
    s.tls_key = cluster.tls_key;
    s.tls_ca = cluster.tls_ca;
  }
  return s;
}

expected<transport_settings> client_transport_settings(const std::string& secret_file) {
  transport_settings s;
  if (secret_file.empty()) {
    s.insecure = true;
    return s;
  }
  auto secret = load_secret(secret_file);
  if (!secret)
    return failure{secret.error()};
  s.secret = *secret;
  return s;
}

} // namespace gridvec::net
