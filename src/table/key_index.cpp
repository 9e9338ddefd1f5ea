#include "src/table/key_index.hpp"

namespace gridvec {

size_t key_index::home(uint64_t key) const {
  // Mixed, so that dense ids and keys with common low bits spread out.
  uint64_t z = key * 0x9e3779b97f4a7c15ull;
  z ^= z >> 32;
  return static_cast<size_t>(z) & (entries_.size() - 1);
}

uint32_t key_index::find(uint64_t key) const {
  if (entries_.empty())
    return npos;
  const size_t mask = entries_.size() - 1;
  for (size_t i = home(key);; i = (i + 1) & mask) {
    const entry& e = entries_[i];
    if (e.row == empty)
      return npos;
    if (e.row != tombstone && e.key == key)
      return e.row;
  }
}

uint32_t key_index::insert(uint64_t key, uint32_t row, bool& added) {
  added = false;
  // At most 5/8 of the entries used (tombstones count), so probes stay short.
  if ((used_ + 1) * 8 > entries_.size() * 5)
    grow();
  const size_t mask = entries_.size() - 1;
  size_t free_at = entries_.size();
  for (size_t i = home(key);; i = (i + 1) & mask) {
    entry& e = entries_[i];
    if (e.row == empty) {
      if (free_at == entries_.size()) {
        free_at = i;
        ++used_;
      }
      break;
    }
    if (e.row == tombstone) {
      if (free_at == entries_.size())
        free_at = i;
    } else if (e.key == key) {
      return e.row;
    }
  }
  entries_[free_at] = {key, row};
  ++size_;
  added = true;
  return row;
}

uint32_t key_index::erase(uint64_t key) {
  if (entries_.empty())
    return npos;
  const size_t mask = entries_.size() - 1;
  for (size_t i = home(key);; i = (i + 1) & mask) {
    entry& e = entries_[i];
    if (e.row == empty)
      return npos;
    if (e.row != tombstone && e.key == key) {
      const uint32_t row = e.row;
      e.row = tombstone;
      --size_;
      return row;
    }
  }
}

void key_index::grow() {
  // Twice the live entries' room (tombstones are dropped on the way).
  size_t capacity = 16;
  while ((size_ + 1) * 8 > capacity * 5 / 2)
    capacity *= 2;
  std::vector<entry> old;
  old.swap(entries_);
  entries_.assign(capacity, entry{});
  size_ = 0;
  used_ = 0;
  const size_t mask = capacity - 1;
  for (const entry& e : old)
    if (e.row < tombstone) {
      size_t i = home(e.key);
      while (entries_[i].row != empty)
        i = (i + 1) & mask;
      entries_[i] = e;
      ++size_;
      ++used_;
    }
}

} // namespace gridvec
