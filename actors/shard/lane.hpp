#pragma once
// (Internal to actors/shard/.) What the lanes of every layout share: the
// handlers of shard_actor's messages, which call the shard's service
// (src/shard/shard_service.hpp) and reply, and the assembly of a layout's
// behaviour from them and its own handlers.
//
// A lane runs on the workers (a stateful actor) or on the network thread (a
// stateful broker, include/gridvec/roles/shard.hpp lane_thread); there its
// `slow` member is the worker lane it delegates the slow requests to
// (save, load, reset, rows, norms, similar, storerows), so that the network
// thread never stalls for long. `Self`'s state has `shard` (the layout's
// service) and `slow` (a handle of the layout's type, null on the workers).
#include <caf/all.hpp>

#include <memory>
#include <tuple>

#include <gridvec/protocol.hpp>
#include "actors/local_lanes.hpp"

namespace gridvec::shard_lanes {

template <class T>
caf::result<T> reply(expected<T>&& x) {
  if (!x)
    return make_job_error(x.why());
  return std::move(*x);
}

inline caf::result<bool> reply(const status& s) {
  if (!s)
    return make_job_error(s.why());
  return true;
}

/// Links a network lane to its worker lane: the lanes of a shard live and
/// die together.
template <class Self, class Handle>
void set_slow_lane(Self self, Handle slow) {
  self->set_default_handler(caf::drop); // unexpected messages: an error reply, never printed (node_actor.cpp)
  if (slow) {
    self->link_to(slow);
    self->state.slow = std::move(slow);
  }
}

/// The handlers of shard_actor's messages.
template <class Self>
auto admin_handlers(Self self) {
  return std::make_tuple(
    [self](rows_atom a, uint32_t begin, uint32_t end) -> caf::result<wire_bytes> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, begin, end);
      return reply(self->state.shard->read_rows(begin, end, false));
    },
    [self](rows_atom a, uint32_t begin, uint32_t end, bool output) -> caf::result<wire_bytes> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, begin, end, output);
      return reply(self->state.shard->read_rows(begin, end, output));
    },
    [](sync_atom) { return true; },
    [self](save_atom a, const std::string& path, uint64_t vocab_crc) -> caf::result<file_digest> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, path, vocab_crc);
      return reply(self->state.shard->save(path, vocab_crc));
    },
    [self](load_atom a, const std::string& path, uint64_t vocab_crc) -> caf::result<bool> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, path, vocab_crc);
      return reply(self->state.shard->load(path, vocab_crc));
    },
    [self](reset_atom a) -> caf::result<bool> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a);
      return reply(self->state.shard->reset());
    },
    [self](stats_atom) {
      const auto& shard = *self->state.shard;
      return shard_counters{shard.requests(), shard.store().bytes()};
    },
    [self](norms_atom a, const std::vector<uint32_t>& words) -> caf::result<wire_bytes> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, words);
      return reply(self->state.shard->norms(words));
    });
}

/// column_slice_actor's own handler (the columns and replicated layouts,
/// whose services are column_services).
template <class Self>
auto similar_by_ids(Self self) {
  return
    [self](similar_atom a, const std::vector<uint32_t>& words, const wire_bytes& weights) -> caf::result<wire_bytes> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, words, weights);
      return reply(self->state.shard->similar(words, weights));
    };
}

/// A layout's behaviour: shard_actor's handlers and the layout's own.
template <class Behavior, class Self, class... Own>
Behavior lane_behavior(Self self, std::tuple<Own...> own) {
  return std::apply([](auto&&... handlers) { return Behavior{std::move(handlers)...}; },
                    std::tuple_cat(admin_handlers(self), std::move(own)));
}

/// Spawns the lanes of the shard on `store`: `lanes` on the workers, or
/// with `network` one worker lane and `lanes` brokers on the network thread
/// that delegate their slow requests to it. `on_worker` and `on_network`
/// are the layout's lane function for an actor and for a broker; each
/// takes `args` and then the worker lane (null for the worker lanes).
template <class Handle, class WorkerFun, class BrokerFun, class... Args>
std::vector<shard_actor> spawn_lanes(caf::actor_system& sys, const std::shared_ptr<shard_store>& store, uint32_t lanes,
                                     bool network, WorkerFun on_worker, BrokerFun on_network, const Args&... args) {
  auto registered = [&](Handle lane) {
    register_local_lane(lane, store); // learners of this process may train on it directly
    return lane;
  };
  std::vector<shard_actor> out;
  if (network && sys.has_middleman()) {
    Handle slow = registered(sys.spawn(on_worker, args..., Handle{}));
    for (uint32_t i = 0; i < lanes; ++i)
      out.push_back(registered(sys.middleman().spawn_broker(on_network, args..., slow)));
    return out;
  }
  for (uint32_t i = 0; i < lanes; ++i)
    out.push_back(registered(sys.spawn(on_worker, args..., Handle{})));
  return out;
}

} // namespace gridvec::shard_lanes
