#include "src/local_shards.hpp"

#include <atomic>
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

std::atomic<bool> fusion_on{true};
std::atomic<bool> shared_negatives{false};

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

void set_fusion(fusion_options options) {
  fusion_on.store(options.enabled);
  shared_negatives.store(options.shared_negatives);
}

fusion_options fusion() {
  return {fusion_on.load(), shared_negatives.load()};
}

} // namespace gridvec::local_shards
