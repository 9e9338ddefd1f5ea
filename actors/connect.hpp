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
/// the actor published there or an error line. CAF 0.17's network thread can
/// drop a connection whose handshake is still under way when its heartbeat
/// check runs (the new connection has never been "seen"), which surfaces as
/// `connection_timeout` right away; such an attempt is repeated, a few times.
template <class Self>
void connect_to_node(Self* self, const std::string& host, uint16_t port, std::chrono::milliseconds timeout,
                     std::function<void(expected<caf::strong_actor_ptr>)> then, int retries_left = 3) {
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
      [self, host, port, then, where, timeout, retries_left](caf::error& err) {
        if (err == caf::sec::connection_timeout && retries_left > 0) {
          connect_to_node(self, host, port, timeout, then, retries_left - 1);
          return;
        }
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
