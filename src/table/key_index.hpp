#pragma once
// The map from a table's keys to their rows in a slice: open addressing
// with linear probing in one flat array, because a multi-get of 1,000
// random keys is 1,000 lookups, and std::unordered_map's node per entry
// made them three or four cache misses each (most of a shard's time in
// scripts/bench-tables). Keys are any 64-bit value; the row number says
// whether an entry is used.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gridvec {

class key_index {
public:
  static constexpr uint32_t npos = 0xFFFFFFFFu;

  /// The row of `key`, or npos.
  uint32_t find(uint64_t key) const;
  /// The row of `key`; if absent, stores `row` for it and sets `added`.
  uint32_t insert(uint64_t key, uint32_t row, bool& added);
  /// Removes `key`; its row, or npos if it was absent.
  uint32_t erase(uint64_t key);
  uint64_t size() const { return size_; }
  uint64_t memory_bytes() const { return entries_.capacity() * sizeof(entry); }

  /// Calls visit(key, row) for every entry, in no particular order.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const auto& e : entries_)
      if (e.row < tombstone)
        visit(e.key, e.row);
  }

private:
  static constexpr uint32_t empty = npos;
  static constexpr uint32_t tombstone = npos - 1;
  struct entry {
    uint64_t key = 0;
    uint32_t row = empty;
  };
  size_t home(uint64_t key) const;
  void grow();

  std::vector<entry> entries_; // a power of two, or empty
  uint64_t size_ = 0;
  uint64_t used_ = 0; // entries that are not empty (tombstones too)
};

} // namespace gridvec
