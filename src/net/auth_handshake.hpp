#pragma once
// The first bytes on every connection of a secured cluster: both ends prove
// a key of the cluster (src/net/cluster_secret.hpp) over a transcript of
// this very connection before a single byte of CAF's protocol is decoded or
// a buffer sized by the peer is allocated.
//
//   acceptor -> connector  "GVAUTH02" + 24 zero bytes, at once         32 bytes
//   connector -> acceptor  "GVAUTH02" + kind (1: 'N' node, 'C' client)
//                          + connector nonce (32)                     41 bytes
//   acceptor -> connector  acceptor nonce (32) + acceptor proof (32)  64 bytes
//   connector -> acceptor  connector proof (32), only once the
//                          acceptor's proof is checked                32 bytes
//
// The transcript T is the label, the connector's kind, both nonces, and
// both endpoints (connector address:port, acceptor address:port) as each
// end sees them on its socket. The key K is the cluster secret for a node
// and the client key (derived from the secret, src/net/cluster_secret.hpp)
// for a client; the acceptor, a node, holds both. Then
//   acceptor proof  = HMAC-SHA256(K, "acceptor proof" + T)
//   connector proof = HMAC-SHA256(K, "connector proof" + T)
//   session keys    = HMAC-SHA256(K, "key connector to acceptor" + T) and
//                     HMAC-SHA256(K, "key acceptor to connector" + T)
// so a proof holds for one direction of one connection between two
// endpoints: relayed to another connection (whose endpoints differ) or
// reflected back at its sender (the other direction), it fails. The
// connector checks the acceptor's proof before it proves anything, so a
// party that only accepts connections learns nothing it could forward (the
// acceptor's banner goes first only so that a peer speaking plain CAF
// reads it as a malformed frame header and fails at once instead of
// waiting for the timeout). A
// client's proof is under the client key: it cannot pass as a node. Fresh
// nonces keep a recorded exchange from being replayed. The secret never
// crosses the wire, and the peer can make this class hold at most 96 bytes
// (73 on the node that accepts).
//
// This class only computes; the transport (actors/net/guarded_transport.hpp)
// moves the bytes, and seals what follows under the session keys
// (src/net/session_cipher.hpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gridvec::net {

using secret_bytes = std::array<uint8_t, 32>;

/// Who is at the connecting end: a node of the cluster, or a client
/// (shell, submit, an embedding application). Nodes reach every actor of a
/// node; clients only the documented requests (src/net/client_gate.hpp).
enum class peer_kind : uint8_t { node = 'N', client = 'C' };

/// The keys one process holds: a node holds the cluster secret (and the
/// client key derived from it); a client may hold only the client key.
struct cluster_keys {
  std::optional<secret_bytes> node;
  secret_bytes client{};
};

/// The client key of a cluster: HMAC-SHA256(secret, "gridvec client key v1").
secret_bytes derive_client_key(const secret_bytes& secret);

/// One endpoint of a TCP connection as "address:port" (an IPv4-mapped IPv6
/// address written as IPv4), from getsockname (local) or getpeername.
std::string socket_endpoint(int fd, bool local);

class auth_handshake {
public:
  enum class role { acceptor, connector };
  enum class state { waiting, done, failed };

  static constexpr size_t connector_hello_size = 41;
  static constexpr size_t banner_size = 32;
  static constexpr size_t acceptor_hello_size = 96; // banner, nonce, proof: all the connector reads
  static constexpr size_t proof_size = 32;

  /// `kind` is what the connector proves to be (ignored for an acceptor).
  /// The endpoints are this connection's, as this end sees them.
  auth_handshake(role me, const cluster_keys& keys, peer_kind kind, std::string connector_endpoint,
                 std::string acceptor_endpoint);

  /// What this end sends first: the connector's hello; the acceptor's
  /// banner (its nonce and proof follow only once it has been spoken to).
  const std::vector<uint8_t>& hello() const { return hello_; }

  /// Takes bytes from the peer; appends what must be sent next to `out`.
  /// Consumes at most what the handshake needs and returns how many bytes
  /// were taken: anything after them belongs to the protocol that follows.
  size_t feed(const uint8_t* data, size_t size, std::vector<uint8_t>& out);

  /// How many more bytes the handshake needs from the peer.
  size_t wanted() const;

  state current() const { return state_; }
  /// Why the handshake failed: one line naming what the peer did wrong.
  const std::string& failure() const { return failure_; }

  /// What the connector proved to be (for the acceptor, once done).
  peer_kind connector_kind() const { return kind_; }

  /// The keys that seal this end's bytes and open the peer's (once done).
  const secret_bytes& send_key() const { return send_key_; }
  const secret_bytes& receive_key() const { return receive_key_; }

private:
  std::array<uint8_t, 32> mac(const char* label) const;
  void fail(std::string why);
  bool take_connector_hello(std::vector<uint8_t>& out);
  bool take_acceptor_hello(std::vector<uint8_t>& out);
  bool take_connector_proof();
  void finish();

  role me_;
  cluster_keys keys_;
  peer_kind kind_;
  std::string connector_endpoint_, acceptor_endpoint_;
  std::array<uint8_t, 32> my_nonce_{};
  std::array<uint8_t, 32> peer_nonce_{};
  secret_bytes key_{}; // the key of the connector's kind
  std::vector<uint8_t> hello_;
  std::vector<uint8_t> received_; // at most the peer's part of the exchange
  secret_bytes send_key_{}, receive_key_{};
  state state_ = state::waiting;
  std::string failure_;
};

} // namespace gridvec::net
