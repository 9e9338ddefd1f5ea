#pragma once
// Connecting to another node of a cluster without blocking: CAF 0.17's
// remote_actor() has no timeout and hangs on a stopped peer, so the
// middleman actor is asked instead, with one.
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include <chrono>
#include <functional>
#include <set>
#include <string>

#include "actors/protocol.hpp"

namespace gridvec {

/// Asks this process's middleman to connect to host:port; calls `then` with
/// the actor published there or an error line.
template <class Self>
void connect_to_node(Self* self, const std::string& host, uint16_t port, std::chrono::milliseconds timeout,
                     std::function<void(expected<caf::strong_actor_ptr>)> then) {
  auto mm = self->home_system().middleman().actor_handle();
  auto where = host + ":" + std::to_string(port);
  self->request(mm, timeout, caf::connect_atom::value, host, port)
    .then(
      [then, where](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
        if (!ptr)
          then(failure{"nothing is published at " + where});
        else
          then(std::move(ptr));
      },
      [then, where, timeout](caf::error& err) {
        std::string why;
        if (err == caf::sec::request_timeout)
          why = "no answer within " + std::to_string(timeout.count()) + " ms";
        else if (err == caf::sec::cannot_connect_to_node)
          why = "nothing listens there (is its `gridvec node` running?)";
        else
          why = error_text(err);
        then(failure{"cannot reach " + where + ": " + why});
      });
}

} // namespace gridvec
