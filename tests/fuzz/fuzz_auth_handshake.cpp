// Reached by: anyone who can open a TCP connection to a node of a secured
// cluster, before any proof of the secret: the first bytes of every
// connection go to auth_handshake::feed (src/net/auth_handshake.hpp), moved
// there by actors/net/guarded_transport.cpp in pieces as they arrive. Here
// both roles are fed the input, cut into pieces of sizes drawn from the
// input's length, and checked: no more than the peer's part of the
// handshake is taken, and no input proves the secret (the nonces are fresh,
// so a fixed input cannot hold a valid proof).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "src/net/auth_handshake.hpp"

namespace {

void run(gridvec::net::auth_handshake::role role, const uint8_t* data, size_t size) {
  using gridvec::net::auth_handshake;
  gridvec::net::secret_bytes secret{};
  for (size_t i = 0; i < secret.size(); ++i)
    secret[i] = static_cast<uint8_t>(i * 7 + 1);
  gridvec::net::cluster_keys keys;
  keys.node = secret;
  keys.client = gridvec::net::derive_client_key(secret);
  auth_handshake h(role, keys, gridvec::net::peer_kind::node, "127.0.0.1:40000", "127.0.0.1:7700");
  std::vector<uint8_t> out;
  size_t taken = 0;
  uint32_t cut = static_cast<uint32_t>(size) * 2654435761u + 1;
  for (size_t at = 0; at < size;) {
    cut = cut * 1103515245u + 12345u;
    const size_t piece = std::min<size_t>(size - at, 1 + (cut >> 16) % 48);
    const size_t n = h.feed(data + at, piece, out);
    if (n > piece)
      std::abort(); // took more than it was given
    taken += n;
    at += piece;
    if (n < piece && h.current() == auth_handshake::state::waiting)
      std::abort(); // left bytes behind while still waiting for more
  }
  const size_t most = role == auth_handshake::role::acceptor
                        ? auth_handshake::connector_hello_size + auth_handshake::proof_size
                        : auth_handshake::acceptor_hello_size;
  if (taken > most)
    std::abort();
  if (h.current() == auth_handshake::state::done)
    std::abort(); // proved the secret without knowing it
  if (h.current() == auth_handshake::state::failed && h.failure().empty())
    std::abort();
  if (out.size() > auth_handshake::acceptor_hello_size)
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  run(gridvec::net::auth_handshake::role::acceptor, data, size);
  run(gridvec::net::auth_handshake::role::connector, data, size);
  return 0;
}
