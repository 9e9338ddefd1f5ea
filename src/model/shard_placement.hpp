#pragma once
// Where a job's shards live, by one rule that placement and recovery share:
// a node takes at most the shard actors its config declares (`shards`).
// Placement puts shard s on the s-th non-standby shard node with room,
// round robin; a lost shard is restored on a surviving non-standby node
// with room, else on a standby node with room, never on the node it was
// lost on. A job of more shards than the non-standby nodes declare is
// refused before anything is placed, so that every shard a recovery must
// move has a place to go whenever the config's spare room allows it.
// Pure arithmetic: no I/O, no actors.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

/// A node as the placement rule sees it.
struct shard_host {
  std::string name;
  uint32_t capacity = 0; // the config's `shards`; 0: no shard role
  bool standby = false;
};

/// Shards the non-standby nodes declare in total.
uint32_t declared_shards(const std::vector<shard_host>& nodes);

/// The node index of each of `shards` shards, or the one line that refuses
/// the job ("--shards 4: the shard nodes declare room for 2 (shard-a 1,
/// shard-b 1; standby nodes only restore lost shards)").
expected<std::vector<uint32_t>> place_shards(const std::vector<shard_host>& nodes, uint32_t shards);

/// Where a shard lost on node `lost_from` is restored: `hosted[n]` counts
/// the shards node n holds now or is restoring (not the lost one), `alive[n]`
/// whether its process is still there. Returns the node index, or
/// UINT32_MAX when no node has room.
uint32_t restore_target(const std::vector<shard_host>& nodes, const std::vector<uint32_t>& hosted,
                        const std::vector<bool>& alive, uint32_t lost_from);

} // namespace gridvec
