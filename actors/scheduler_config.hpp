#pragma once
// How gridvec runs CAF's scheduler, in `gridvec train`, on cluster nodes and
// in embedding applications that ask for it.
#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>

#include <cstddef>

namespace gridvec {

/// `threads` workers sharing one queue. CAF's default work-stealing policy
/// puts an actor woken from outside the workers (a timer, the network) at
/// the back of a worker's queue, behind actors that always have mail while
/// training (shard lanes, learners): the coordinator's ticks, pause and
/// checkpoint requests then waited seconds. One shared FIFO queue, and at
/// most 64 messages per turn, keep every actor's turn within milliseconds;
/// with few workers the shared queue's lock costs nothing measurable.
inline void configure_scheduler(caf::actor_system_config& cfg, size_t threads) {
  cfg.set("scheduler.max-threads", threads);
  cfg.set("scheduler.policy", caf::atom("sharing"));
  cfg.set("scheduler.max-throughput", size_t{64});
}

} // namespace gridvec
