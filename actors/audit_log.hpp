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
#include <string>

namespace gridvec {

template <class Self>
void audit(Self* self, std::string what) {
  const auto& sender = self->current_sender();
  if (!sender) {
    spdlog::info("audit: {} by an anonymous sender", what);
    return;
  }
  const caf::node_id peer = sender->node();
  if (peer == self->node() || !self->system().has_middleman()) {
    spdlog::info("audit: {} by this process", what);
    return;
  }
  auto id = to_string(peer);
  self->request(self->system().middleman().actor_handle(), std::chrono::seconds(5), caf::get_atom::value, peer)
    .then([what, id](const caf::node_id&, const std::string& host,
                     uint16_t port) { spdlog::info("audit: {} by {}:{} (node {})", what, host, port, id); },
          [what, id](const caf::error&) { spdlog::info("audit: {} by node {} (address unknown)", what, id); });
}

} // namespace gridvec
