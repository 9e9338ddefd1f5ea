#pragma once
// Shard lanes as keys of the directory of local stores (src/model/local_shards.hpp):
// a lane registers its store when spawned and removes it when it exits; a
// learner looks its lanes up to decide whether it may train directly.
#include <caf/all.hpp>

#include <cstdint>
#include <memory>

#include <gridvec/protocol.hpp>
#include "src/model/local_shards.hpp"
#include "src/model/shard_store.hpp"

namespace gridvec {

/// A process-unique key for a lane handle: the address of its control
/// block. The handle of a lane in another process is a proxy, whose control
/// block is never registered.
inline uintptr_t local_lane_key(const shard_actor& lane) {
  return reinterpret_cast<uintptr_t>(caf::actor_cast<caf::strong_actor_ptr>(lane).get());
}

inline void register_local_lane(const shard_actor& lane, const std::shared_ptr<shard_store>& store) {
  const uintptr_t key = local_lane_key(lane);
  local_shards::add(key, store);
  caf::actor_cast<caf::abstract_actor*>(lane)->attach_functor([key] { local_shards::remove(key); });
}

/// The stores behind every lane, in order, if all of them are in this
/// process; otherwise empty.
inline std::vector<std::shared_ptr<shard_store>> find_local_stores(const std::vector<shard_actor>& lanes) {
  std::vector<std::shared_ptr<shard_store>> out;
  if (lanes.empty())
    return out;
  for (const auto& lane : lanes) {
    auto store = local_shards::find(local_lane_key(lane));
    if (!store)
      return {};
    out.push_back(std::move(store));
  }
  return out;
}

} // namespace gridvec
