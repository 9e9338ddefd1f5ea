#pragma once
// (Public header of src/table/table_slice.cpp.)
// One shard's part of one table: the rows it owns (rows layout) or its
// column slice of every row (columns layout), created on first touch, with
// the optimizer's slot variables beside each row. Plain single-threaded
// storage; the table shard actor (actors/table/) serialises the requests.
//
// Every operation works on a batch of keys. Rows absent so far are created
// with their initial value (row_init.hpp) by every operation that reads or
// updates them, except set_if_absent (which sets them), remove and reduce.
// A dense matrix (table_spec::dense) has all its rows from the start, in
// one contiguous array.
#include <cstdint>
#include <functional>
#include <atomic>
#include <memory>
#include <span>
#include <vector>

#include <gridvec/core/table_spec.hpp>

namespace gridvec {

class key_index; // src/table/key_index.hpp

class table_slice {
public:
  table_slice(table_spec spec, uint32_t shard, uint32_t shards);
  ~table_slice();
  table_slice(const table_slice&) = delete;
  table_slice& operator=(const table_slice&) = delete;

  const table_spec& spec() const { return spec_; }
  uint32_t shard() const { return shard_; }
  uint32_t shards() const { return shards_; }
  /// The columns held: all of them in the rows layout.
  uint32_t first_column() const { return first_; }
  uint32_t width() const { return width_; }
  /// Floats stored per row: the value, then the slots.
  uint32_t stride() const { return stride_; }
  uint64_t rows() const;
  uint64_t memory_bytes() const;

  /// Fails, with one line, if a key is not a row of a matrix table
  /// (>= rows) or, in the rows layout, belongs to another shard.
  status check_keys(std::span<const uint64_t> keys) const;

  /// Whether every key has its row already (always, in a dense matrix).
  /// Only looks: safe beside the per-key operations.
  bool has_rows(std::span<const uint64_t> keys) const;

  void get(std::span<const uint64_t> keys, float* out);          // width floats per key
  void put(std::span<const uint64_t> keys, const float* values); // keeps the slots
  /// Sets the rows that do not exist yet; flags[i] = 1 where key i was set
  /// (the first of repeated keys wins).
  void set_if_absent(std::span<const uint64_t> keys, const float* values, std::vector<uint8_t>& flags);
  /// Removes rows; flags[i] = 1 where key i existed. A removed row starts
  /// afresh (initial value, zero slots) when it is next touched.
  void remove(std::span<const uint64_t> keys, std::vector<uint8_t>& flags);
  /// One optimizer step per key with its gradient, in order (a key given
  /// twice gets two steps).
  void push(std::span<const uint64_t> keys, const float* gradients);
  /// Adds deltas to the rows (increment), slots untouched.
  void add(std::span<const uint64_t> keys, const float* deltas);

  // Row arithmetic of the Spark + parameter server talk's matrix API, on pairs of keys; in the
  // columns layout each shard does its slice and the client sums.
  void dot(std::span<const uint64_t> a, std::span<const uint64_t> b, double* out);
  void axpy(float alpha, std::span<const uint64_t> x, std::span<const uint64_t> y); // y += alpha x
  void scal(float alpha, std::span<const uint64_t> keys);                           // v *= alpha
  void copy(std::span<const uint64_t> from, std::span<const uint64_t> to);          // to = from

  // Sparse access by global column number; every index must lie in
  // [first_column(), first_column() + width()) (the service checks).
  /// out[i * indices.size() + j] = row rows[i], column indices[j].
  void get_columns(std::span<const uint64_t> rows, std::span<const uint32_t> indices, float* out);
  /// row[indices[j]] += values[j]; a repeated index adds each value.
  void add_columns(uint64_t row, std::span<const uint32_t> indices, const float* values);

  /// Over the rows that exist: "sum" (width doubles: column sums), "sumsq"
  /// (one: the sum of squares), "count" (one: the rows). False if `what`
  /// is none of them.
  bool reduce(std::string_view what, std::vector<double>& out) const;

  /// A page of the rows held, in slot order: from `cursor` (0, then the
  /// returned next) at most `limit` keys and their values (width floats
  /// each). Returns the next cursor, or scan_end when there is no more.
  static constexpr uint64_t scan_end = ~uint64_t{0};
  uint64_t scan(uint64_t cursor, uint32_t limit, std::vector<uint64_t>& keys, std::vector<float>& values) const;

  /// Value and slots (stride floats per key) and adam's step count.
  void fetch(std::span<const uint64_t> keys, float* out, uint32_t* steps);

  /// The row's value (width floats, then its slots), created if absent: for
  /// user operations (table_operations.hpp). A matrix's key must be below
  /// its rows (check_keys).
  float* row(uint64_t key);
  /// The row's value or nullptr, creating nothing.
  const float* find(uint64_t key) const;
  /// Every row, in no particular order.
  void for_each(const std::function<void(uint64_t key, const float* row, uint32_t step)>& visit) const;
  /// Puts a row back as a checkpoint saved it (value and slots, stride floats).
  void restore(uint64_t key, const float* row, uint32_t step);

  /// A dense matrix's rows, row r at r x stride (nullptr if not dense): for
  /// operations that run over the whole slice, as gridvec's SGNS does.
  float* dense_rows() { return dense_; }
  const float* dense_rows() const { return dense_; }

private:
  uint32_t slot_of(uint64_t key); // creates the row if absent; only looks if present
  float* at(uint32_t slot) {
    return dense_ ? dense_ + size_t{slot} * stride_
                  : pages_[slot >> page_shift_].get() + size_t{slot & page_mask_} * stride_;
  }
  const float* at(uint32_t slot) const { return const_cast<table_slice*>(this)->at(slot); }
  void initialise(uint32_t slot, uint64_t key); // the initial value, zero slots and step
  // Every row that exists, as (key, slot).
  template <class Visit>
  void for_each_slot(Visit&& visit) const;

  table_spec spec_;
  uint32_t shard_, shards_;
  uint32_t first_ = 0, width_ = 0, stride_ = 0;
  // Storage details (key index, huge-page buffer) stay out of this header,
  // which applications include for their user operations.
  std::unique_ptr<key_index> index_; // key -> slot
  // The rows, stride floats per slot, in pages of 2^page_shift_ slots (about
  // 64 KiB): a growing table never copies its rows, as one vector would.
  std::vector<std::unique_ptr<float[]>> pages_;
  uint32_t page_shift_ = 0, page_mask_ = 0;
  std::vector<uint64_t> keys_;  // slot -> key
  std::vector<uint32_t> steps_; // slot -> adam step (empty unless adam)
  std::vector<uint32_t> free_;  // slots of removed rows
  // The rows' locks: 64 spin locks, striped by slot, a cache line each. A
  // row is held for one copy or one optimizer step, shorter than putting a
  // thread to sleep; a std::mutex per row cost a third of a multi-get.
  struct row_locks;
  std::unique_ptr<row_locks> locks_;
  class row_guard {
  public:
    explicit row_guard(std::atomic_flag& flag);
    ~row_guard() { flag_.clear(std::memory_order_release); }
    row_guard(const row_guard&) = delete;
    row_guard& operator=(const row_guard&) = delete;

  private:
    std::atomic_flag& flag_;
  };
  std::atomic_flag& lock_of(uint32_t slot) const;
  struct dense_buffer;
  std::unique_ptr<dense_buffer> dense_storage_; // a dense matrix's rows: slot = key, no index
  float* dense_ = nullptr;                      // ... their start
};

} // namespace gridvec
