#pragma once
// What a client may send to a node. A client (shell, submit, an embedding
// application; see auth_handshake.hpp for how a node tells one from a
// node) reaches only the cluster's documented entry points: the node it
// connected to, for `controller`, `tables` and `lbfgs` and nothing else,
// and the actors published to clients (the controller, the table shards,
// the L-BFGS learners a learner node made for a client). Every
// other actor of a node (counters, shards, learners, exporters, the node's
// own hosting requests) answers only to nodes of the cluster.
//
// The gate reads CAF 0.17's protocol (BASP) as it comes in from a client,
// before CAF does; a frame that breaks the rules closes the connection:
//   - the operations a client needs: its handshake, direct messages,
//     monitoring, down notices and heartbeats; no server handshake, no
//     message routed on to another node; to a named actor (CAF's spawn and
//     config servers) only the one question CAF itself asks of a new peer
//     (the spawn server's "info");
//   - a direct message goes to an actor published to clients, with an
//     empty forwarding stack (its reply goes back to the client, not on to
//     an actor the client names), or to the entry actor with exactly one of
//     its allowed payloads;
//   - a response goes only to an actor of the node that sent this client a
//     request with that id, once (any request of the node to a client's
//     actor), and one plain message goes to an actor of the node that sent
//     a message to a named actor of the client (CAF's spawn server answers
//     the "info" question so): note_outgoing() sees what the node sends.
// A frame header is 32 bytes (frame_guard.hpp); the destination actor is
// its last 8, big-endian.
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace gridvec::net {

/// How far a client may address one actor.
struct client_access {
  enum class level { none, any_request, listed_payloads };
  level what = level::none;
  /// For listed_payloads: the exact payloads (forwarding stack and
  /// message, as CAF serializes them) a client may send.
  const std::vector<std::vector<uint8_t>>* payloads = nullptr;
};

class client_gate {
public:
  /// What a client may send to actor `id`; with `named`, `id` is the name
  /// (an atom) of a named actor.
  using lookup = std::function<client_access(uint64_t id, bool named)>;

  explicit client_gate(lookup access) : access_(std::move(access)) {}

  /// Looks at the next `size` bytes from the client. Returns false (and
  /// failure() says why) at the first frame it may not send.
  bool inspect(const uint8_t* data, size_t size);

  const std::string& failure() const { return failure_; }

  /// Looks at the next `size` bytes the node sends to the client, for the
  /// requests that the client may answer.
  void note_outgoing(const uint8_t* data, size_t size);

private:
  bool check_header();
  bool check_payload();
  bool refuse(std::string why);

  lookup access_;
  std::array<uint8_t, 32> header_{};
  size_t header_seen_ = 0;
  uint64_t payload_left_ = 0;
  // The start of a direct message's payload, while it is being checked.
  client_access target_;
  uint64_t payload_size_ = 0;
  std::vector<uint8_t> prefix_;
  size_t prefix_wanted_ = 0;
  bool failed_ = false;
  std::string failure_;
  // What the node sent: its frames' headers, and the requests (source
  // actor, request id) not yet answered, at most max_open_requests.
  static constexpr size_t max_open_requests = 4096;
  std::array<uint8_t, 32> out_header_{};
  size_t out_seen_ = 0;
  uint64_t out_payload_left_ = 0;
  std::set<std::pair<uint64_t, uint64_t>> open_requests_;
  std::deque<std::pair<uint64_t, uint64_t>> request_order_;
};

} // namespace gridvec::net
