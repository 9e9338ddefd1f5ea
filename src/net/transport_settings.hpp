#pragma once
// How the processes of one cluster talk to each other: who may connect
// (the cluster secret), whether the bytes are encrypted (TLS), and the
// bounds on what one peer may cost a node. Read from the [cluster] section
// of the cluster config (docs/security.md), the same on every process.
#include <cstdint>
#include <optional>
#include <string>

#include <gridvec/core/expected.hpp>
#include "src/net/auth_handshake.hpp"

namespace gridvec::net {

struct transport_settings {
  /// No secret and no TLS: anyone who reaches a port drives the cluster.
  /// Only with `insecure = true` in the config, and warned about.
  bool insecure = false;
  /// The cluster's keys (auth_handshake.hpp): a node holds the secret, a
  /// client may hold only the client key. None: TLS alone authenticates.
  std::optional<cluster_keys> keys;
  /// What this process proves to be when it connects.
  peer_kind kind = peer_kind::client;
  /// TLS with mutual verification: this process's certificate chain and
  /// key, and the CA that every peer's certificate must be signed by.
  std::string tls_certificate, tls_key, tls_ca;
  /// The largest frame a peer may send (CAF header + payload); more closes
  /// the connection before anything is allocated.
  uint64_t max_message_bytes = uint64_t{64} << 20;
  /// Open connections that finished their handshake, in total and from
  /// one address.
  uint32_t max_connections = 256;
  uint32_t max_connections_per_address = 64;
  /// Connections still in their handshake: a pool of their own, so that a
  /// flood of silent sockets cannot take the authenticated ones' places.
  uint32_t max_handshakes = 128;
  uint32_t max_handshakes_per_address = 32;
  /// A connection that has not finished its handshake (TLS included) by
  /// then is closed, by a timer.
  uint32_t handshake_timeout_ms = 5000;

  bool tls() const { return !tls_certificate.empty(); }
  bool guarded() const { return !insecure; }
};

} // namespace gridvec::net

namespace gridvec {
struct cluster_config;
}

namespace gridvec::net {

/// The settings a cluster config asks for, with its secret read (a secret
/// that cannot be read, or that others can read, is a failure). A node
/// needs the cluster secret itself; a client may hold the client key.
expected<transport_settings> load_transport_settings(const cluster_config& cluster, peer_kind kind = peer_kind::client);

/// A client's settings without a config (connecting by host:port): the
/// secret or client key at `secret_file`, or none (insecure) if it is empty.
expected<transport_settings> client_transport_settings(const std::string& secret_file);

} // namespace gridvec::net
