#pragma once
// The first bytes on every connection of a secured cluster: both ends prove
// that they know the cluster secret (src/net/cluster_secret.hpp) before a
// single byte of CAF's protocol is decoded or a buffer sized by the peer is
// allocated. A mutual challenge-response over HMAC-SHA256:
//
//   both ends send  hello = "GVAUTH01" (8 bytes) + a fresh random nonce (32)
//   both ends send  proof = HMAC(secret, label + own role + nonce of the
//                                acceptor + nonce of the connector)   (32)
//
// and each checks the other's proof in constant time. The role (acceptor or
// connector) is part of the proof, so a peer cannot reflect a node's own
// proof back at it; fresh nonces on both sides keep a recorded exchange from
// being replayed. The secret never crosses the wire. Everything the peer
// sends is 72 bytes of fixed size: nothing here allocates by the peer's word.
//
// This class only computes; the transport (actors/net/guarded_transport.hpp)
// moves the bytes.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gridvec::net {

using secret_bytes = std::array<uint8_t, 32>;

class auth_handshake {
public:
  enum class role { acceptor, connector };
  enum class state { waiting, done, failed };

  static constexpr size_t hello_size = 40;
  static constexpr size_t proof_size = 32;

  auth_handshake(role me, const secret_bytes& secret);

  /// What this end sends first (its hello); the proof follows from feed().
  const std::vector<uint8_t>& hello() const { return hello_; }

  /// Takes bytes from the peer; appends what must be sent next to `out`.
  /// Consumes at most what the handshake needs and returns how many bytes
  /// were taken: anything after them belongs to the protocol that follows.
  size_t feed(const uint8_t* data, size_t size, std::vector<uint8_t>& out);

  state current() const { return state_; }
  /// Why the handshake failed: one line naming what the peer did wrong.
  const std::string& failure() const { return failure_; }

private:
  std::array<uint8_t, 32> proof_of(role who) const;

  role me_;
  secret_bytes secret_;
  std::array<uint8_t, 32> my_nonce_{};
  std::array<uint8_t, 32> peer_nonce_{};
  std::vector<uint8_t> hello_;
  std::vector<uint8_t> received_; // at most hello_size + proof_size
  state state_ = state::waiting;
  std::string failure_;
};

} // namespace gridvec::net
