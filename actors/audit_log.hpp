#pragma once
// The audit log: one line per command that starts, pauses, resumes,
// cancels, checkpoints or exports a job, saying who sent it (the peer's
// address as this node's network layer knows it, and its CAF node id, or
// "this process") and which paths it names:
//
//   audit: start job 3 (corpus /data/c.txt, output /data/v.txt) by 127.0.0.1:53530 (node 6F1A...#4242)
//
// Written at info level through spdlog (the node's log), whatever else is
// logged. The address comes from the middleman, asked once per line: the
// line follows the command by at most a round trip within the process.
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <functional>
#include <string>

namespace gridvec {

// Asks the middleman for the peer's address; a peer it no longer knows (one
// that has disconnected) is logged without it.
template <class Self>
void audit_with_address(Self* self, std::string what, caf::node_id peer, std::function<void()> then) {
  auto id = to_string(peer);
  self->request(self->system().middleman().actor_handle(), std::chrono::seconds(5), caf::get_atom::value, peer)
    .then(
      [what, id, then](const caf::node_id&, const std::string& host, uint16_t port) {
        if (host.empty() || port == 0)
          spdlog::info("audit: {} by node {} (address unknown)", what, id);
        else
          spdlog::info("audit: {} by {}:{} (node {})", what, host, port, id);
        if (then)
          then();
      },
      [what, id, then](const caf::error&) {
        spdlog::info("audit: {} by node {} (address unknown)", what, id);
        if (then)
          then();
      });
}

// Writes the line for a command from `sender`; `then` (if any) runs once it
// is written.
template <class Self>
void audit_from(Self* self, const caf::strong_actor_ptr& sender, std::string what, std::function<void()> then) {
  const bool remote = sender && sender->node() != self->node() && self->system().has_middleman();
  if (!remote) {
    spdlog::info("audit: {} by {}", what, sender ? "this process" : "an anonymous sender");
    if (then)
      then();
    return;
  }
  audit_with_address(self, std::move(what), sender->node(), std::move(then));
}

// Writes the line for the command being handled.
template <class Self>
void audit(Self* self, std::string what) {
  audit_from(self, self->current_sender(), std::move(what), {});
}

} // namespace gridvec
