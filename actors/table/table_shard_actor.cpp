#include <gridvec/tables/shard.hpp>

#include <spdlog/spdlog.h>

#include "src/table/table_service.hpp"

namespace gridvec {

namespace {

struct table_shard_state {
  std::unique_ptr<table_service> service;
  std::string dir;
  static inline const char* name = "table-shard";
};

table_shard_actor::behavior_type table_shard_behavior(table_shard_actor::stateful_pointer<table_shard_state> self,
                                                      uint32_t shard, uint32_t shards, std::string dir) {
  self->state.service = std::make_unique<table_service>(shard, shards, dir);
  self->state.dir = std::move(dir);
  for (const auto& line : self->state.service->restore())
    spdlog::info("table shard {} of {}: {}", shard, shards, line);
  return {
    [self](table_atom, const wire_bytes& request) -> wire_bytes {
      auto& service = *self->state.service;
      const bool spare = service.spare();
      auto reply = service.handle(request);
      if (spare && !service.spare()) {
        spdlog::info("taking over table shard {} of {}, its tables loaded from {}", service.shard(), service.shards(),
                     self->state.dir.empty() ? "nowhere (no table-dir)" : self->state.dir);
        for (const auto& line : service.take_over_lines())
          spdlog::info("table shard {} of {}: {}", service.shard(), service.shards(), line);
      }
      return reply;
    },
  };
}

} // namespace

table_shard_actor spawn_table_shard(caf::actor_system& sys, uint32_t shard, uint32_t shards, const std::string& dir) {
  return sys.spawn(table_shard_behavior, shard, shards, dir);
}

std::vector<table_shard_actor> spawn_table_shards(caf::actor_system& sys, uint32_t count, const std::string& dir) {
  std::vector<table_shard_actor> out;
  for (uint32_t i = 0; i < count; ++i)
    out.push_back(spawn_table_shard(sys, i, count, dir));
  return out;
}

} // namespace gridvec
