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

#include "actors/net/guarded_transport.hpp"
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
  // The cluster's transport (actors/net/guarded_transport.hpp): the secret
  // is proven, and TLS spoken, before CAF's own handshake.
  auto mm = net::transport_actor(self->home_system());
  if (!mm) {
    then(failure{"cannot reach " + host + ":" + std::to_string(port) + ": this process is shutting down"});
    return;
  }
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
        auto refused = net::last_handshake_failure(host, port);
        if (err == caf::sec::connection_timeout && retries_left > 0 && refused.empty()) {
          connect_to_node(self, host, port, timeout, then, retries_left - 1);
          return;
        }
        std::string why;
        if (!refused.empty())
          why = refused;
        else if (err == caf::sec::malformed_basp_message && net::transport_of(self->home_system()).insecure)
          why = "the node wants the cluster secret, which this process was not given (a config naming it, "
                "or --secret FILE)";
        else if (err == caf::sec::request_timeout)
          why = "no answer within " + std::to_string(timeout.count()) + " ms";
        else if (err == caf::sec::cannot_connect_to_node)
          why = "nothing listens there (is its `gridvec node` running?)";
        else
          why = error_text(err);
        if (refused.empty() && net::transport_of(self->home_system()).insecure &&
            err != caf::sec::cannot_connect_to_node && err != caf::sec::request_timeout &&
            err != caf::sec::malformed_basp_message)
          why += " (if the cluster has a secret, this process needs it: a config naming it, or --secret FILE)";
        then(failure{"cannot reach " + where + ": " + why});
      });
}

} // namespace gridvec
