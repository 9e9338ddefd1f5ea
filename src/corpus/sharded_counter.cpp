#include "src/corpus/sharded_counter.hpp"

#include <algorithm>
#include <thread>

#include "src/util/on_threads.hpp"

namespace gridvec {

namespace {

// How many words ahead of the one being added its slot and its record are
// fetched.
constexpr size_t slot_ahead = 16;
constexpr size_t record_ahead = 8;

} // namespace

expected<sharded_counter> sharded_counter::create(const std::string& work_dir, size_t budget_bytes, unsigned shards) {
  shards = std::clamp<unsigned>(shards, 1, max_shards);
  while (shards > 1 && budget_bytes / shards < bounded_counter::min_budget)
    --shards;
  std::vector<bounded_counter> made;
  for (unsigned i = 0; i < shards; ++i) {
    auto c = bounded_counter::create(work_dir, budget_bytes / shards);
    if (!c)
      return failure{c.error(), c.code()};
    made.push_back(std::move(*c));
  }
  return sharded_counter{std::move(made)};
}

unsigned sharded_counter::default_shards() {
  return std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, max_shards);
}

void sharded_counter::add(const count_table& table) {
  const auto shards = static_cast<uint32_t>(shards_.size());
  if (shards == 1) {
    table.for_each([&](std::string_view w, uint64_t count, uint64_t first) {
      if (count > 0)
        shards_[0].add(w, count, first);
    });
    return;
  }
  const size_t n = table.size();
  hashes_.resize(n);
  starts_.resize(n);
  members_.resize(shards);
  for (auto& m : members_)
    m.clear();
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    starts_[i] = at;
    const std::string_view w = std::string_view{table.words}.substr(at, table.lengths[i]);
    at += table.lengths[i];
    if (table.counts[i] == 0)
      continue;
    hashes_[i] = word_hash(w);
    members_[word_shard_of_hash(hashes_[i], shards)].push_back(static_cast<uint32_t>(i));
  }
  // Each word is a cache miss or two in a large map (its slot, then its
  // record): asked for ahead, 16 and 8 words before they are added, the
  // misses overlap.
  on_threads(shards, [&](size_t s) {
    const auto& members = members_[s];
    auto& counter = shards_[s];
    for (size_t k = 0; k < members.size(); ++k) {
      if (k + slot_ahead < members.size())
        counter.prefetch_slot(hashes_[members[k + slot_ahead]]);
      if (k + record_ahead < members.size())
        counter.prefetch_record(hashes_[members[k + record_ahead]]);
      const uint32_t i = members[k];
      counter.add_hashed(std::string_view{table.words}.substr(starts_[i], table.lengths[i]), hashes_[i],
                         table.counts[i], table.firsts[i]);
    }
  });
}

uint64_t sharded_counter::tokens() const {
  uint64_t n = 0;
  for (const auto& c : shards_)
    n += c.tokens();
  return n;
}

size_t sharded_counter::spills() const {
  size_t n = 0;
  for (const auto& c : shards_)
    n += c.spills();
  return n;
}

} // namespace gridvec
