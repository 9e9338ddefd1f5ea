#include <gridvec/tables/shard.hpp>

#include <algorithm>
#include <thread>

#include <spdlog/spdlog.h>

#include "src/table/table_service.hpp"

namespace gridvec {

namespace {

// What every lane of one table shard shares: the service (thread-safe,
// src/table/table_service.hpp) and where it saves, for the log.
struct table_shard_core {
  std::shared_ptr<table_service> service;
  std::string dir;
};

// Answers one request on the calling lane; logs a takeOver once, on the
// lane that did it.
wire_bytes serve(const table_shard_core& core, const wire_bytes& request) {
  auto reply = core.service->handle(request);
  uint32_t shard = 0, shards = 0;
  std::vector<std::string> lines;
  if (core.service->took_over(shard, shards, lines)) {
    spdlog::info("taking over table shard {} of {}, its tables loaded from {}", shard, shards,
                 core.dir.empty() ? "nowhere (no table-dir)" : core.dir);
    for (const auto& line : lines)
      spdlog::info("table shard {} of {}: {}", shard, shards, line);
  }
  return reply;
}

table_shard_actor::behavior_type table_lane(table_shard_actor::pointer, std::shared_ptr<table_shard_core> core) {
  return {
    [core](table_atom, const wire_bytes& request) -> wire_bytes { return serve(*core, request); },
  };
}

// One of several lanes: a blocking actor on a thread of its own, until the
// pool's exit. Blocking, not a detached event-based actor: CAF 0.17's
// shutdown waits until every detached event-based actor is destroyed, and
// a lane that answered a remote client can stay referenced by the network
// layer after it ended (its node then never exits); a blocking actor's
// thread ends when its loop does.
void table_lane_thread(caf::blocking_actor* self, std::shared_ptr<table_shard_core> core) {
  bool running = true;
  self->receive_while(running)(
    [&](table_atom, const wire_bytes& request) -> wire_bytes { return serve(*core, request); },
    [&](caf::exit_msg&) { running = false; });
}

} // namespace

uint32_t default_table_lanes() { return std::max(1u, std::thread::hardware_concurrency()); }

table_shard_actor spawn_table_shard(caf::actor_system& sys, uint32_t shard, uint32_t shards, const std::string& dir,
                                    uint32_t lanes) {
  auto core =
    std::make_shared<table_shard_core>(table_shard_core{std::make_shared<table_service>(shard, shards, dir), dir});
  for (const auto& line : core->service->restore())
    spdlog::info("table shard {} of {}: {}", shard, shards, line);
  if (lanes == 0)
    lanes = default_table_lanes();
  if (lanes == 1)
    return sys.spawn(table_lane, core);
  // Each lane on a thread of its own, not on the actor system's workers: a
  // node holding only a table shard has one worker (node_spec::worker_threads),
  // and a job's shards and learners keep theirs. The handle clients know is
  // a pool: it hands each request to the next lane in turn as the request is
  // enqueued, on the sender's thread (no mailbox or thread of its own in
  // between), the lane answers the client itself, and the lanes stop with it.
  auto pool = caf::actor_pool::make(
    sys.dummy_execution_unit(), lanes, [&] { return sys.spawn(table_lane_thread, core); },
    caf::actor_pool::round_robin());
  return caf::actor_cast<table_shard_actor>(pool);
}

std::vector<table_shard_actor> spawn_table_shards(caf::actor_system& sys, uint32_t count, const std::string& dir,
                                                  uint32_t lanes) {
  std::vector<table_shard_actor> out;
  for (uint32_t i = 0; i < count; ++i)
    out.push_back(spawn_table_shard(sys, i, count, dir, lanes));
  return out;
}

} // namespace gridvec
