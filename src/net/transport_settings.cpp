#include "src/net/transport_settings.hpp"

#include <openssl/ssl.h>

#include <fstream>

#include <gridvec/core/cluster_config.hpp>
#include "src/access/private_file.hpp"
#include "src/net/cluster_secret.hpp"

namespace gridvec::net {

namespace {

status readable(const std::string& what, const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return failure{"cannot read the " + what + " " + path + " (named in the cluster config)"};
  return {};
}

// Loads the certificate, key and CA as TLS will: a damaged file is an
// error at start, not a refused connection later.
status loadable_tls(const cluster_config& c) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_method());
  if (!ctx)
    return failure{"cannot set up TLS (OpenSSL SSL_CTX_new failed)"};
  std::string why;
  if (SSL_CTX_use_certificate_chain_file(ctx, c.tls_certificate.c_str()) != 1)
    why = "the TLS certificate " + c.tls_certificate + " is not a PEM certificate";
  else if (SSL_CTX_use_PrivateKey_file(ctx, c.tls_key.c_str(), SSL_FILETYPE_PEM) != 1)
    why = "the TLS key " + c.tls_key + " is not the private key of " + c.tls_certificate +
          " (or not a PEM key without a passphrase)";
  else if (SSL_CTX_check_private_key(ctx) != 1)
    why = "the TLS key " + c.tls_key + " does not belong to the certificate " + c.tls_certificate;
  else if (SSL_CTX_load_verify_locations(ctx, c.tls_ca.c_str(), nullptr) != 1)
    why = "the TLS CA certificate " + c.tls_ca + " is not a PEM certificate";
  SSL_CTX_free(ctx);
  if (!why.empty())
    return failure{why + " (named in " + c.source + ")"};
  return {};
}

} // namespace

namespace {

expected<cluster_keys> keys_from(const std::string& file, peer_kind kind) {
  auto key = load_key(file);
  if (!key)
    return failure{key.error()};
  cluster_keys keys;
  if (key->client_only) {
    if (kind == peer_kind::node)
      return failure{file + " is a client key: a node needs the cluster secret itself (gridvec keygen writes it)"};
    keys.client = key->bytes;
  } else {
    keys.node = key->bytes;
    keys.client = derive_client_key(key->bytes);
  }
  return keys;
}

} // namespace

expected<transport_settings> load_transport_settings(const cluster_config& cluster, peer_kind kind) {
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
  s.max_handshakes = cluster.max_handshakes;
  s.max_handshakes_per_address = cluster.max_handshakes_per_address;
  s.handshake_timeout_ms = cluster.connect_timeout_ms;
  s.kind = kind;
  if (!cluster.secret_file.empty()) {
    auto keys = keys_from(cluster.secret_file, kind);
    if (!keys)
      return failure{keys.error()};
    s.keys = *keys;
  }
  if (!cluster.tls_certificate.empty()) {
    // CAF's OpenSSL module throws on a file it cannot load, deep in its
    // first connection: checked here, with a line that names the file.
    for (auto [what, path] : {std::pair{"TLS certificate", &cluster.tls_certificate},
                              std::pair{"TLS key", &cluster.tls_key}, std::pair{"TLS CA certificate", &cluster.tls_ca}})
      if (auto ok = readable(what, *path); !ok)
        return failure{ok.error()};
    // The key is private, as the secret is.
    if (auto ok = access::check_private_file(cluster.tls_key, "the TLS key"); !ok)
      return failure{ok.error()};
    if (auto ok = loadable_tls(cluster); !ok)
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
  auto keys = keys_from(secret_file, peer_kind::client);
  if (!keys)
    return failure{keys.error()};
  s.keys = *keys;
  return s;
}

} // namespace gridvec::net
