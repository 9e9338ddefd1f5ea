#pragma once
// Which of a call's dot products is the last one with its output row.
// shard_store::adjust updates a row in the same visit as its last read,
// and defers the update of a row that is read again later in the call.
//
// Not an array of V entries holding each row's last index: that is a
// random store and a random load per dot product into 4 bytes x V (400 MB
// a lane at V = 10^8), which at a large V misses the caches as often as
// the rows themselves (half of adjust's time at d = 8). A call has a few
// thousand dot products, so a set of the rows seen, sized for the call
// and walked from the call's end, stays in L1 or L2 whatever the
// vocabulary.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace gridvec {

class last_visits {
public:
  /// Marks, for every k, whether targets[k] appears again after k:
  /// is_last(k) is true for the last dot product of each row.
  void mark(std::span<const uint32_t> targets) {
    const size_t n = targets.size();
    // At most half full: short probes.
    const size_t slots = std::bit_ceil(std::max<size_t>(16, 2 * n));
    slots_.assign(slots, empty);
    mask_ = slots - 1;
    last_.resize(n);
    for (size_t k = n; k-- > 0;)
      last_[k] = insert(targets[k]);
  }
  bool is_last(size_t k) const { return last_[k] != 0; }

private:
  // Output rows are below 2^32 - 1 (ids are 32-bit and rows number fewer
  // than 2V), so the largest value marks an empty slot.
  static constexpr uint32_t empty = UINT32_MAX;

  // Whether `row` was not in the set (and is now).
  uint8_t insert(uint32_t row) {
    size_t at = (uint64_t{row} * 0x9E3779B97F4A7C15ull) >> 32 & mask_;
    while (slots_[at] != empty) {
      if (slots_[at] == row)
        return 0;
      at = (at + 1) & mask_;
    }
    slots_[at] = row;
    return 1;
  }

  std::vector<uint32_t> slots_;
  std::vector<uint8_t> last_;
  size_t mask_ = 0;
};

} // namespace gridvec
