#pragma once
// (Public header of actors/table/table_shard_actor.cpp.)
// The actor that serves one shard's tables (src/table/table_service.hpp
// does the work; this only hands it the requests). One per shard node of a
// cluster, living as long as the node, outside every job. It serves on
// several lanes (threads) at once: the handle hands each request to the
// next lane, and per-key requests run in parallel, whole-table ones alone
// (docs/tables.md, "Lanes"). Requests that one client has in flight at
// once may therefore be served in any order.
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>

namespace gridvec {

/// Spawns table shard `shard` of `shards`, saving to and restoring from
/// `dir` (empty: no saving). Tables saved there for this shard are loaded
/// first: a restarted shard node comes back with its tables (each line of
/// what was restored, or not, is logged). With `shards` 0, a standby node's
/// spare: it holds no tables and refuses every request until a takeOver
/// request makes it shard i of S, whose slices it then loads from `dir`
/// (take_over_table_shard in gridvec/tables/client.hpp). `lanes`: threads
/// serving at once, each its own (0: default_table_lanes(); 1: one actor
/// on the actor system's workers, in order).
table_shard_actor spawn_table_shard(caf::actor_system& sys, uint32_t shard, uint32_t shards, const std::string& dir,
                                    uint32_t lanes = 0);

/// `count` table shards in this process (an application's own tables, or
/// tests), `lanes` each; stop them with caf::anon_send_exit when done.
std::vector<table_shard_actor> spawn_table_shards(caf::actor_system& sys, uint32_t count, const std::string& dir = "",
                                                  uint32_t lanes = 0);

/// One lane per core of this machine.
uint32_t default_table_lanes();

} // namespace gridvec
