#include "src/model/local_shards.hpp"

#include <mutex>
#include <unordered_map>

namespace gridvec::local_shards {

namespace {

struct directory {
  std::mutex mutex;
  std::unordered_map<uintptr_t, std::weak_ptr<shard_store>> stores;
};

directory& instance() {
  static directory d;
  return d;
}

} // namespace

void add(uintptr_t lane, const std::shared_ptr<shard_store>& store) {
  auto& d = instance();
  std::lock_guard<std::mutex> lock{d.mutex};
  d.stores[lane] = store;
}

void remove(uintptr_t lane) {
  auto& d = instance();
  std::lock_guard<std::mutex> lock{d.mutex};
  d.stores.erase(lane);
}

std::shared_ptr<shard_store> find(uintptr_t lane) {
  auto& d = instance();
  std::lock_guard<std::mutex> lock{d.mutex};
  auto i = d.stores.find(lane);
  return i == d.stores.end() ? nullptr : i->second.lock();
}

} // namespace gridvec::local_shards
