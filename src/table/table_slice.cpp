#include <gridvec/core/table_slice.hpp>

#include <algorithm>
#include <cstring>
#include <thread>

#include "src/table/key_index.hpp"
#include "src/table/optimizer_step.hpp"
#include "src/table/row_init.hpp"
#include "src/util/huge_buffer.hpp"

namespace gridvec {

struct table_slice::dense_buffer {
  float_buffer floats;
};

struct table_slice::row_locks {
  // A cache line each, so that lanes locking neighbouring rows do not
  // contend for one line.
  struct alignas(64) one {
    std::atomic_flag held;
  };
  static constexpr uint32_t count = 64;
  one locks[count];
};

namespace {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

} // namespace

// Spins a little, then yields: the holder may have lost its core (more lanes
// than free cores), and spinning out its time slice would only delay it.
table_slice::row_guard::row_guard(std::atomic_flag& flag) : flag_(flag) {
  for (unsigned spins = 0; flag_.test_and_set(std::memory_order_acquire);)
    while (flag_.test(std::memory_order_relaxed))
      if (++spins % 64 == 0)
        std::this_thread::yield();
      else
        cpu_relax();
}

std::atomic_flag& table_slice::lock_of(uint32_t slot) const { return locks_->locks[slot % row_locks::count].held; }

table_slice::~table_slice() = default;

uint64_t table_slice::rows() const { return dense_ ? spec_.rows : index_->size(); }

table_slice::table_slice(table_spec spec, uint32_t shard, uint32_t shards)
  : spec_(std::move(spec)), shard_(shard), shards_(shards), index_(std::make_unique<key_index>()),
    locks_(std::make_unique<row_locks>()) {
  if (spec_.layout == table_layout::columns) {
    auto range = columns_of_shard(spec_.dim, shard_, shards_);
    first_ = range.first;
    width_ = range.width;
  } else {
    width_ = spec_.dim;
  }
  stride_ = width_ * (1 + slots_per_column(spec_.optimizer));
  while (page_shift_ < 16 && (uint64_t{2} << page_shift_) * stride_ * sizeof(float) <= (1u << 16))
    ++page_shift_;
  page_mask_ = (1u << page_shift_) - 1;
  if (spec_.dense) {
    // Callers bound rows (max_slice_rows, and the service the memory).
    dense_storage_ = std::make_unique<dense_buffer>(dense_buffer{allocate_floats(size_t(spec_.rows) * stride_)});
    dense_ = dense_storage_->floats.get(); // zeros
    if (keeps_step(spec_.optimizer))
      steps_.assign(spec_.rows, 0);
    if (spec_.init != table_init::zeros)
      for (uint64_t r = 0; r < spec_.rows; ++r)
        initial_row(spec_, r, first_, width_, at(static_cast<uint32_t>(r)));
  }
}

template <class Visit>
void table_slice::for_each_slot(Visit&& visit) const {
  if (dense_) {
    for (uint64_t r = 0; r < spec_.rows; ++r)
      visit(r, static_cast<uint32_t>(r));
    return;
  }
  index_->for_each(visit);
}

uint64_t table_slice::memory_bytes() const {
  if (dense_)
    return uint64_t{spec_.rows} * stride_ * sizeof(float) + steps_.capacity() * sizeof(uint32_t);
  // The arena, the slot lists and the key index.
  return pages_.size() * (uint64_t{1} << page_shift_) * stride_ * sizeof(float) + keys_.capacity() * sizeof(uint64_t) +
         steps_.capacity() * sizeof(uint32_t) + free_.capacity() * sizeof(uint32_t) + index_->memory_bytes();
}

status table_slice::check_keys(std::span<const uint64_t> keys) const {
  for (uint64_t k : keys) {
    if (spec_.kind == table_kind::matrix && k >= spec_.rows)
      return failure{"table " + spec_.name + ": row " + std::to_string(k) + " is outside its " +
                     std::to_string(spec_.rows) + " rows"};
    if (spec_.layout == table_layout::rows && shards_ > 1 && shard_of_key(k, shards_) != shard_)
      return failure{"table " + spec_.name + ": key " + std::to_string(k) + " belongs to shard " +
                     std::to_string(shard_of_key(k, shards_)) + ", not to shard " + std::to_string(shard_)};
  }
  return {};
}

void table_slice::initialise(uint32_t slot, uint64_t key) {
  float* r = at(slot);
  initial_row(spec_, key, first_, width_, r);
  std::fill(r + width_, r + stride_, 0.0f);
  if (keeps_step(spec_.optimizer))
    steps_[slot] = 0;
}

bool table_slice::has_rows(std::span<const uint64_t> keys) const {
  if (dense_)
    return true;
  for (uint64_t k : keys)
    if (index_->find(k) == key_index::npos)
      return false;
  return true;
}

uint32_t table_slice::slot_of(uint64_t key) {
  if (dense_)
    return static_cast<uint32_t>(key);
  // Only a look when the row exists: the per-key operations run on several
  // lanes at once then, and insert may grow the index.
  if (const uint32_t found = index_->find(key); found != key_index::npos)
    return found;
  const uint32_t next = free_.empty() ? static_cast<uint32_t>(keys_.size()) : free_.back();
  bool added = false;
  const uint32_t slot = index_->insert(key, next, added);
  if (!added)
    return slot;
  if (!free_.empty()) {
    free_.pop_back();
    keys_[slot] = key;
  } else {
    keys_.push_back(key);
    if ((slot & page_mask_) == 0) // the first slot of a new page
      pages_.push_back(std::make_unique_for_overwrite<float[]>(size_t{stride_} << page_shift_));
    if (keeps_step(spec_.optimizer))
      steps_.push_back(0);
  }
  initialise(slot, key);
  return slot;
}

float* table_slice::row(uint64_t key) { return at(slot_of(key)); }

const float* table_slice::find(uint64_t key) const {
  if (dense_)
    return key < spec_.rows ? at(static_cast<uint32_t>(key)) : nullptr;
  const uint32_t slot = index_->find(key);
  return slot == key_index::npos ? nullptr : at(slot);
}

void table_slice::get(std::span<const uint64_t> keys, float* out) {
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t slot = slot_of(keys[i]);
    row_guard lock{lock_of(slot)};
    std::memcpy(out + i * width_, at(slot), width_ * sizeof(float));
  }
}

void table_slice::put(std::span<const uint64_t> keys, const float* values) {
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t slot = slot_of(keys[i]);
    row_guard lock{lock_of(slot)};
    std::memcpy(at(slot), values + i * width_, width_ * sizeof(float));
  }
}

void table_slice::set_if_absent(std::span<const uint64_t> keys, const float* values, std::vector<uint8_t>& flags) {
  flags.assign(keys.size(), 0);
  if (dense_)
    return; // every row exists
  for (size_t i = 0; i < keys.size(); ++i) {
    if (index_->find(keys[i]) != key_index::npos)
      continue;
    std::memcpy(row(keys[i]), values + i * width_, width_ * sizeof(float));
    flags[i] = 1;
  }
}

void table_slice::remove(std::span<const uint64_t> keys, std::vector<uint8_t>& flags) {
  flags.assign(keys.size(), 0);
  if (dense_) {
    for (size_t i = 0; i < keys.size(); ++i) {
      initialise(static_cast<uint32_t>(keys[i]), keys[i]);
      flags[i] = 1;
    }
    return;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t slot = index_->erase(keys[i]);
    if (slot == key_index::npos)
      continue;
    free_.push_back(slot);
    flags[i] = 1;
  }
}

void table_slice::push(std::span<const uint64_t> keys, const float* gradients) {
  uint32_t no_step = 0; // sgd and adagrad count no steps
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t slot = slot_of(keys[i]);
    row_guard lock{lock_of(slot)};
    float* r = at(slot);
    uint32_t& step = keeps_step(spec_.optimizer) ? steps_[slot] : no_step;
    optimizer_step(spec_, width_, r, r + width_, step, gradients + i * width_);
  }
}

void table_slice::add(std::span<const uint64_t> keys, const float* deltas) {
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t slot = slot_of(keys[i]);
    row_guard lock{lock_of(slot)};
    float* r = at(slot);
    for (uint32_t c = 0; c < width_; ++c)
      r[c] += deltas[i * width_ + c];
  }
}

void table_slice::dot(std::span<const uint64_t> a, std::span<const uint64_t> b, double* out) {
  for (size_t i = 0; i < a.size(); ++i) {
    // Both rows exist after these two lines: the second may grow the arena,
    // so the first pointer is taken after it.
    uint32_t sa = slot_of(a[i]), sb = slot_of(b[i]);
    const float *x = at(sa), *y = at(sb);
    double sum = 0;
    for (uint32_t c = 0; c < width_; ++c)
      sum += double{x[c]} * y[c];
    out[i] = sum;
  }
}

void table_slice::axpy(float alpha, std::span<const uint64_t> x, std::span<const uint64_t> y) {
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t sx = slot_of(x[i]), sy = slot_of(y[i]);
    const float* xr = at(sx);
    float* yr = at(sy);
    for (uint32_t c = 0; c < width_; ++c)
      yr[c] += alpha * xr[c];
  }
}

void table_slice::scal(float alpha, std::span<const uint64_t> keys) {
  for (uint64_t k : keys) {
    float* r = row(k);
    for (uint32_t c = 0; c < width_; ++c)
      r[c] *= alpha;
  }
}

void table_slice::copy(std::span<const uint64_t> from, std::span<const uint64_t> to) {
  for (size_t i = 0; i < from.size(); ++i) {
    uint32_t sf = slot_of(from[i]), st = slot_of(to[i]);
    if (sf != st)
      std::memcpy(at(st), at(sf), width_ * sizeof(float));
  }
}

void table_slice::get_columns(std::span<const uint64_t> rows, std::span<const uint32_t> indices, float* out) {
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint32_t slot = slot_of(rows[i]);
    row_guard lock{lock_of(slot)};
    const float* r = at(slot);
    float* o = out + i * indices.size();
    for (size_t j = 0; j < indices.size(); ++j)
      o[j] = r[indices[j] - first_];
  }
}

void table_slice::add_columns(uint64_t key, std::span<const uint32_t> indices, const float* values) {
  const uint32_t slot = slot_of(key);
  row_guard lock{lock_of(slot)};
  float* r = at(slot);
  for (size_t j = 0; j < indices.size(); ++j)
    r[indices[j] - first_] += values[j];
}

bool table_slice::reduce(std::string_view what, std::vector<double>& out) const {
  if (what == "count") {
    out.assign(1, static_cast<double>(rows()));
    return true;
  }
  if (what == "sum") {
    out.assign(width_, 0.0);
    for_each_slot([&](uint64_t, uint32_t slot) {
      for (uint32_t c = 0; c < width_; ++c)
        out[c] += at(slot)[c];
    });
    return true;
  }
  if (what == "sumsq") {
    double s = 0;
    for_each_slot([&](uint64_t, uint32_t slot) {
      for (uint32_t c = 0; c < width_; ++c)
        s += double{at(slot)[c]} * at(slot)[c];
    });
    out.assign(1, s);
    return true;
  }
  return false;
}

uint64_t table_slice::scan(uint64_t cursor, uint32_t limit, std::vector<uint64_t>& keys,
                           std::vector<float>& values) const {
  keys.clear();
  values.clear();
  uint64_t slot = cursor;
  if (dense_) {
    for (; slot < spec_.rows && keys.size() < limit; ++slot) {
      keys.push_back(slot);
      const float* r = at(static_cast<uint32_t>(slot));
      values.insert(values.end(), r, r + width_);
    }
    return slot < spec_.rows ? slot : scan_end;
  }
  for (; slot < keys_.size() && keys.size() < limit; ++slot) {
    // A slot is in use when its key still maps to it (removed rows' slots
    // wait in free_ with their old key).
    if (index_->find(keys_[slot]) != slot)
      continue;
    keys.push_back(keys_[slot]);
    const float* r = at(static_cast<uint32_t>(slot));
    values.insert(values.end(), r, r + width_);
  }
  return slot < keys_.size() ? slot : scan_end;
}

void table_slice::fetch(std::span<const uint64_t> keys, float* out, uint32_t* steps) {
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t slot = slot_of(keys[i]);
    row_guard lock{lock_of(slot)};
    std::memcpy(out + i * stride_, at(slot), stride_ * sizeof(float));
    steps[i] = keeps_step(spec_.optimizer) ? steps_[slot] : 0;
  }
}

void table_slice::for_each(const std::function<void(uint64_t, const float*, uint32_t)>& visit) const {
  for_each_slot(
    [&](uint64_t key, uint32_t slot) { visit(key, at(slot), keeps_step(spec_.optimizer) ? steps_[slot] : 0); });
}

void table_slice::restore(uint64_t key, const float* saved, uint32_t step) {
  uint32_t slot = slot_of(key);
  std::memcpy(at(slot), saved, stride_ * sizeof(float));
  if (keeps_step(spec_.optimizer))
    steps_[slot] = step;
}

} // namespace gridvec
