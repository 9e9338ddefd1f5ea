#pragma once
// Connecting to another node of a cluster without blocking: CAF 0.17's
// remote_actor() has no timeout and hangs on a stopped peer, so the
// middleman actor is asked instead, with one.
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "actors/net/guarded_transport.hpp"
#include <gridvec/protocol.hpp>

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

/// From inside an event-based actor: connects to the node at host:port and
/// asks it `question` (controller_atom, tables_atom), whose reply is a
/// Handle; calls `then` with it or one error line ("the node at H:P gave no
/// WHAT: why" when the node answers with an error).
template <class Handle, class Self, class Atom>
void ask_node(Self* self, const std::string& host, uint16_t port, std::chrono::milliseconds timeout, Atom question,
              const std::string& what, std::function<void(expected<Handle>)> then) {
  auto where = host + ":" + std::to_string(port);
  connect_to_node(self, host, port, timeout,
                  [self, then, timeout, where, question, what](expected<caf::strong_actor_ptr> ptr) {
                    if (!ptr) {
                      then(failure{ptr.error()});
                      return;
                    }
                    auto node = caf::actor_cast<node_actor>(std::move(*ptr));
                    self->request(node, timeout, question)
                      .then([then](const Handle& handle) { then(handle); },
                            [then, timeout, where, what](caf::error& err) {
                              // e.g. "node shard-a is not the coordinator's node; connect to that one"
                              std::string why = err == caf::sec::request_timeout
                                                  ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                                  : error_text(err);
                              then(failure{"the node at " + where + " gave no " + what + ": " + why});
                            });
                  });
}

/// The same from plain code (main, a thread; not from inside an actor):
/// blocks until the answer or the error line. `sys` needs the network
/// layer (configure_cluster_system).
template <class Handle, class Atom>
expected<Handle> ask_node(caf::actor_system& sys, const std::string& host, uint16_t port,
                          std::chrono::milliseconds timeout, Atom question, const std::string& what) {
  if (!sys.has_middleman())
    return failure{"cannot connect to " + host + ":" + std::to_string(port) +
                   ": the actor system has no network layer (configure it with configure_cluster_system)"};
  // A short-lived actor runs the non-blocking steps (the same error lines
  // as everywhere else) and answers with their outcome.
  auto helper = sys.spawn([host, port, timeout, question, what](caf::event_based_actor* self) -> caf::behavior {
    return {
      [=](caf::connect_atom) -> caf::result<Handle> {
        auto rp = self->make_response_promise<Handle>();
        ask_node<Handle>(self, host, port, timeout, question, what, [self, rp](expected<Handle> h) mutable {
          if (h)
            rp.deliver(*h);
          else
            rp.deliver(make_job_error(h.error()));
          self->quit();
        });
        return rp;
      },
    };
  });
  std::optional<expected<Handle>> out;
  caf::scoped_actor self{sys};
  // Both steps have their own timeout; this one only guards against a bug.
  self->request(helper, 2 * timeout + std::chrono::seconds(5), caf::connect_atom::value)
    .receive([&](const Handle& h) { out.emplace(h); }, [&](caf::error& err) { out.emplace(failure{error_text(err)}); });
  caf::anon_send_exit(helper, caf::exit_reason::user_shutdown);
  return std::move(*out);
}

} // namespace gridvec
