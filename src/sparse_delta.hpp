#pragma once
// Scratch rows for the updates of one adjust call. Seed 000 (section 5.1)
// applies a call's updates only at its end, so every read inside the call
// sees the vectors as they were at its start; the deltas collect here, one
// row per distinct word, and are added to the store in apply().
// Steady state allocates nothing: buffers only grow.
#include <cstdint>
#include <cstring>
#include <vector>

namespace gridvec {

class sparse_delta {
public:
  explicit sparse_delta(uint32_t columns) : columns_(columns) {}

  /// Prepares for a call touching at most `max_words` distinct words.
  void begin(size_t max_words) {
    size_t want = 16;
    while (want < 2 * max_words)
      want <<= 1;
    if (want > slots_.size())
      slots_.assign(want, empty_slot);
    if (rows_.size() < max_words * columns_)
      rows_.resize(max_words * columns_);
  }

  /// The delta row of `word`, zeroed on first use. Valid until clear().
  float* row(uint32_t word) {
    const size_t mask = slots_.size() - 1;
    size_t i = (word * 0x9E3779B1u) & mask;
    for (;;) {
      uint64_t s = slots_[i];
      if (s == empty_slot) {
        auto index = static_cast<uint32_t>(touched_.size());
        slots_[i] = (static_cast<uint64_t>(word) << 32) | index;
        touched_.push_back(word);
        touched_slots_.push_back(i);
        float* r = rows_.data() + static_cast<size_t>(index) * columns_;
        std::memset(r, 0, columns_ * sizeof(float));
        return r;
      }
      if (static_cast<uint32_t>(s >> 32) == word)
        return rows_.data() + static_cast<size_t>(static_cast<uint32_t>(s)) * columns_;
      i = (i + 1) & mask;
    }
  }

  /// base[word * columns + j] += delta; then forgets every row.
  void apply_and_clear(float* base) {
    for (size_t k = 0; k < touched_.size(); ++k) {
      float* dst = base + static_cast<size_t>(touched_[k]) * columns_;
      const float* src = rows_.data() + k * columns_;
      for (uint32_t j = 0; j < columns_; ++j)
        dst[j] += src[j];
    }
    clear();
  }

  void clear() {
    // Only used slots are reset: O(words in the call), not O(table).
    for (size_t i : touched_slots_)
      slots_[i] = empty_slot;
    touched_.clear();
    touched_slots_.clear();
  }

  size_t touched() const { return touched_.size(); }

private:
  static constexpr uint64_t empty_slot = ~0ull;
  uint32_t columns_;
  std::vector<uint64_t> slots_; // (word << 32) | row index
  std::vector<uint32_t> touched_;
  std::vector<size_t> touched_slots_;
  std::vector<float> rows_;
};

} // namespace gridvec
