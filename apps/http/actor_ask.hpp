#pragma once
// A blocking request from a thread outside the actor system (the HTTP
// server's workers): a scoped_actor, a timeout, the reply or the error.
#include <caf/all.hpp>

#include <chrono>
#include <optional>
#include <utility>

namespace gridvec::http {

template <class T>
struct answer {
  std::optional<T> value;
  caf::error error;
  explicit operator bool() const { return value.has_value(); }
};

template <class T, class Handle, class... Ts>
answer<T> ask(caf::actor_system& sys, const Handle& to, std::chrono::milliseconds timeout, Ts&&... xs) {
  answer<T> out;
  caf::scoped_actor self{sys};
  self->request(to, timeout, std::forward<Ts>(xs)...)
    .receive([&](const T& v) { out.value = v; }, [&](caf::error& err) { out.error = std::move(err); });
  return out;
}

} // namespace gridvec::http
