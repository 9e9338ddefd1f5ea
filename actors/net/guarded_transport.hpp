#pragma once
// The network layer of a secured cluster: CAF's own (BASP over TCP, CAF
// 0.17), with every connection wrapped so that
//   - both ends prove a cluster key over a transcript of the connection
//     first (src/net/auth_handshake.hpp), and nothing of CAF's protocol is
//     sent or decoded before;
//   - after it, every byte travels in records sealed with AES-256-GCM under
//     the handshake's session keys (src/net/session_cipher.hpp), or inside
//     TLS with mutual certificate verification (CAF's OpenSSL module);
//   - a client reaches only the controller and the tables
//     (src/net/client_gate.hpp); nodes reach everything;
//   - no incoming frame may announce more than max-message-mb
//     (src/net/frame_guard.hpp), checked before CAF allocates for it;
//   - connections still in their handshake have a pool of their own
//     (max-handshakes, and per address), apart from the authenticated ones
//     (max-connections, and per address), and a timer closes a handshake
//     that is overdue.
// It is CAF's extension point for transports, the one its OpenSSL module
// uses: a middleman actor whose connect() and open() make our scribes and
// doormen. Every gridvec process asks transport_actor() for it instead of
// middleman().actor_handle(), and publishes through publish() below.
#include <caf/fwd.hpp>
#include <caf/io/middleman_actor.hpp>

#include <cstdint>
#include <string>

#include <gridvec/core/expected.hpp>
#include "src/net/transport_settings.hpp"

namespace gridvec::net {

/// Makes actor systems built from `cfg` use `settings` (call before the
/// system is constructed; loads CAF's OpenSSL module when TLS is on).
void use_transport(caf::actor_system_config& cfg, const transport_settings& settings);

/// The settings registered for `sys` (defaults, insecure, if none were).
transport_settings transport_of(const caf::actor_system& sys);
transport_settings transport_of_config(const caf::actor_system_config& cfg);

/// The middleman actor that makes this system's connections: the guarded
/// one, or CAF's plain one for an insecure cluster. An invalid handle once
/// the system's network layer has stopped.
caf::io::middleman_actor transport_actor(caf::actor_system& sys);

/// Publishes `whom` on host:port (0: any free port) through
/// transport_actor(); returns the port.
expected<uint16_t> publish(caf::actor_system& sys, caf::strong_actor_ptr whom, const std::string& host, uint16_t port);

/// Lets clients (src/net/client_gate.hpp) send requests to the actor
/// `actor_id` of `sys` (the controller, a table shard, an L-BFGS learner).
/// A node's published actor answers them `controller`, `tables` and `lbfgs`
/// only; every other actor answers only to nodes.
void expose_to_clients(caf::actor_system& sys, uint64_t actor_id);

/// Why the last handshake with host:port failed, as seen from this process
/// (empty if none did): the line a client shows instead of CAF's error.
std::string last_handshake_failure(const std::string& host, uint16_t port);

} // namespace gridvec::net
