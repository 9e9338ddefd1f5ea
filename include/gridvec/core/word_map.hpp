#pragma once
// (Header-only; its test is tests/word_map.test.cpp.)
// Words held compactly: every word's bytes live in an arena of 1 MiB
// chunks, each as one record [value T][length, varint][bytes], and an
// open-addressing index of 8-byte slots (24 bits of the word's hash, 40
// bits of the record's place in the arena) finds them. A word costs its
// bytes, one length byte (two past 127 bytes), sizeof(T), and 8 / load
// bytes of index: the load stays between 0.53 and 0.8 once the map is
// large (it grows by half), so 10 to 15 bytes, 10 when reserve() was told
// the size. A std::unordered_map<std::string, T> costs about 80 bytes a
// word plus the string past 15 bytes. Nothing is allocated per word,
// growing never copies the arena (only the index is rebuilt), and records
// stay in insertion order, so walking them is a sequential read.
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>

namespace gridvec {

namespace detail {

/// A word_map's index: `size` zeroed slots. One of 2 MiB or more is mapped
/// on its own with huge pages advised: probes land anywhere in it, and with
/// 4 KiB pages nearly every probe of a large index is a TLB miss as well as
/// a cache miss (a third of the time spent counting 3M words). Its pages
/// are zero until written, so a fresh index costs nothing to clear.
class slot_array {
public:
  slot_array() = default;
  explicit slot_array(size_t size) : size_(size) {
    const size_t bytes = size * sizeof(uint64_t);
    if (bytes < huge_page) {
      small_.reset(new uint64_t[size]());
      data_ = small_.get();
      return;
    }
    // Over-map by one huge page and trim, so that the slots start on a
    // huge page boundary.
    const size_t length = (bytes + huge_page - 1) / huge_page * huge_page;
    void* p = ::mmap(nullptr, length + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw std::bad_alloc{};
    auto* base = static_cast<char*>(p);
    const auto addr = reinterpret_cast<uintptr_t>(base);
    const size_t head = (huge_page - addr % huge_page) % huge_page;
    if (head > 0)
      ::munmap(base, head);
    ::munmap(base + head + length, huge_page - head);
    ::madvise(base + head, length, MADV_HUGEPAGE); // advice only: 4 KiB pages where it is refused
    data_ = reinterpret_cast<uint64_t*>(base + head);
    mapped_ = length;
  }
  slot_array(slot_array&& other) noexcept { swap(other); }
  slot_array& operator=(slot_array&& other) noexcept {
    slot_array gone{std::move(other)};
    swap(gone);
    return *this;
  }
  slot_array(const slot_array&) = delete;
  slot_array& operator=(const slot_array&) = delete;
  ~slot_array() {
    if (mapped_ > 0)
      ::munmap(data_, mapped_);
  }

  /// Bytes an index of `size` slots takes (a large one in whole huge pages).
  static size_t bytes_for(size_t size) {
    const size_t bytes = size * sizeof(uint64_t);
    return bytes < huge_page ? bytes : (bytes + huge_page - 1) / huge_page * huge_page;
  }

  size_t size() const { return size_; }
  size_t bytes() const { return bytes_for(size_); }
  /// Every slot back to 0, in the memory it has.
  void zero() {
    if (size_ > 0)
      std::memset(data_, 0, size_ * sizeof(uint64_t));
  }
  bool empty() const { return size_ == 0; }
  uint64_t& operator[](size_t i) { return data_[i]; }
  const uint64_t& operator[](size_t i) const { return data_[i]; }

private:
  static constexpr size_t huge_page = size_t{2} << 20;
  void swap(slot_array& other) noexcept {
    std::swap(small_, other.small_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(mapped_, other.mapped_);
  }

  std::unique_ptr<uint64_t[]> small_;
  uint64_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0; // bytes mapped for a large index, 0 for a small one
};

} // namespace detail

/// The hash the index places a word by: 64 bits, eight bytes at a time
/// (a multiply-xorshift mix of each block). Stable across processes and
/// machines of either byte order: words are read little-endian. Used to
/// partition words between nodes as well (word_partition_of).
inline uint64_t word_hash(std::string_view w) {
  constexpr uint64_t m = 0x9E3779B97F4A7C15ull;
  auto mix = [](uint64_t x) {
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    x ^= x >> 32;
    return x;
  };
  uint64_t h = 0x2545F4914F6CDD1Dull ^ (w.size() * m);
  const auto* p = reinterpret_cast<const unsigned char*>(w.data());
  size_t n = w.size();
  auto load = [](const unsigned char* q, size_t len) {
    uint64_t x = 0;
    for (size_t i = 0; i < len; ++i)
      x |= uint64_t{q[i]} << (8 * i);
    return x;
  };
  while (n >= 8) {
    uint64_t x;
    if constexpr (std::endian::native == std::endian::little)
      std::memcpy(&x, p, 8);
    else
      x = load(p, 8);
    h = (h ^ mix(x + m)) * m;
    p += 8;
    n -= 8;
  }
  if (n > 0)
    h = (h ^ mix(load(p, n) + 0x632BE59BD9B4E019ull)) * m;
  return mix(h);
}

template <class T>
class word_map {
  static_assert(std::is_trivially_copyable_v<T>);

public:
  /// A record's place in the arena; 0 is never one.
  using ref = uint64_t;

  word_map() = default;
  word_map(word_map&&) noexcept = default;
  word_map& operator=(word_map&&) noexcept = default;
  word_map(const word_map& other) {
    reserve(other.size());
    other.for_each([&](ref r) { insert(other.word(r), other.value(r)); });
  }
  word_map& operator=(const word_map& other) {
    if (this != &other)
      *this = word_map{other};
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// The record of `w`, 0 if absent.
  ref find(std::string_view w) const { return find(w, word_hash(w)); }
  ref find(std::string_view w, uint64_t h) const {
    if (slots_.empty())
      return 0;
    const uint64_t tag = h >> pos_bits;
    for (size_t i = home(h);; i = next(i)) {
      const uint64_t s = slots_[i];
      if (s == 0)
        return 0;
      if ((s >> pos_bits) == tag && word(s & pos_mask) == w)
        return s & pos_mask;
    }
  }

  /// Hints for a lookup of hash `h` some words ahead, so that a loop over
  /// many words waits for several cache misses at once instead of one
  /// after the other: first its home slot, then (a few words later, once
  /// the slot is in the cache) the record the slot names.
  void prefetch_slot(uint64_t h) const {
    if (!slots_.empty())
      __builtin_prefetch(&slots_[home(h)]);
  }
  void prefetch_record(uint64_t h) const {
    if (slots_.empty())
      return;
    const uint64_t s = slots_[home(h)];
    if (s != 0 && (s >> pos_bits) == (h >> pos_bits))
      __builtin_prefetch(at(s & pos_mask));
  }
  /// A hint for reading record `r` soon.
  void prefetch(ref r) const { __builtin_prefetch(at(r)); }

  /// Adds `w` with `value` unless present; returns its record and whether it was added.
  std::pair<ref, bool> insert(std::string_view w, const T& value) { return insert(w, word_hash(w), value); }
  std::pair<ref, bool> insert(std::string_view w, uint64_t h, const T& value) {
    if ((size_ + 1) * 5 > slots_.size() * 4)
      grow();
    const uint64_t tag = h >> pos_bits;
    size_t i = home(h);
    for (;; i = next(i)) {
      const uint64_t s = slots_[i];
      if (s == 0)
        break;
      if ((s >> pos_bits) == tag && word(s & pos_mask) == w)
        return {s & pos_mask, false};
    }
    const ref r = append(w, value);
    slots_[i] = (tag << pos_bits) | r;
    ++size_;
    return {r, true};
  }

  T value(ref r) const {
    T v;
    std::memcpy(&v, at(r), sizeof(T));
    return v;
  }
  void set(ref r, const T& v) { std::memcpy(at(r), &v, sizeof(T)); }

  std::string_view word(ref r) const {
    const char* p = at(r) + sizeof(T);
    size_t len = 0;
    const size_t skip = read_length(p, len);
    return {p + skip, len};
  }

  /// The record after `r` in insertion order (after(0): the first), 0
  /// after the last: a cursor that survives between calls.
  ref after(ref r) const {
    size_t c = 0, pos = first_pos;
    if (r != 0) {
      c = static_cast<size_t>(r >> chunk_bits);
      pos = static_cast<size_t>(r & (chunk_bytes - 1));
      size_t len = 0;
      pos += sizeof(T) + read_length(at(r) + sizeof(T), len) + len;
    }
    for (; c < chunks_.size(); ++c, pos = 0)
      if (pos < ends_[c])
        return (ref{c} << chunk_bits) + pos;
    return 0;
  }

  /// Calls f(ref) for every record, in insertion order.
  template <class F>
  void for_each(F&& f) const {
    for (size_t c = 0; c < chunks_.size(); ++c)
      walk(c, f);
  }

  /// Calls f(word, value) for every record, in insertion order, freeing the
  /// arena block by block behind it; the map is empty afterwards.
  template <class F>
  void release(F&& f) {
    slots_ = {};
    size_t c = 0;
    for (auto& b : blocks_) {
      for (const size_t end = c + b.bytes / chunk_bytes; c < end; ++c)
        walk(c, [&](ref r) { f(word(r), value(r)); });
      b.data.reset();
    }
    *this = word_map{};
  }

  /// Makes room for `words` words without rebuilding the index.
  void reserve(size_t words) {
    if (words * 5 > slots_.size() * 4)
      rebuild(words * 5 / 4 + 1);
  }

  /// Bytes held: the arena's chunks and the index.
  size_t memory_bytes() const { return arena_bytes_ + slots_.bytes(); }

  /// What memory_bytes() will be once a word of `word_bytes` bytes that is
  /// not in the map is inserted: the index grown if it must, a new chunk if
  /// the record does not fit in the last one. (A budget is kept by asking
  /// before inserting; rebuilding the index frees the old one first, so
  /// nothing more is held at any moment.)
  size_t memory_bytes_after_insert(size_t word_bytes) const {
    size_t slots = slots_.size();
    if ((size_ + 1) * 5 > slots_.size() * 4)
      slots = grown_size();
    const size_t need = sizeof(T) + length_bytes(word_bytes) + word_bytes;
    size_t arena = arena_bytes_ + (chunks_.empty() ? chunk_bytes : 0);
    if ((chunks_.empty() ? first_pos : ends_.back()) + need > chunk_bytes) {
      const size_t count = (need + chunk_bytes - 1) / chunk_bytes;
      arena += (count > 1 ? count + 1 : count) * chunk_bytes;
    }
    return arena + detail::slot_array::bytes_for(slots);
  }

  void clear() { *this = word_map{}; }
  /// Empties the map but keeps its index (zeroed) and its size: a map
  /// filled and emptied again and again to about the same size grows its
  /// index once, not every time, and takes no fresh pages for it. (The
  /// arena's chunks are freed, as by clear().)
  void clear_keeping_index() {
    detail::slot_array slots = std::move(slots_);
    *this = word_map{};
    slots.zero();
    slots_ = std::move(slots);
  }

private:
  static constexpr unsigned chunk_bits = 20;
  static constexpr size_t chunk_bytes = size_t{1} << chunk_bits;
  static constexpr unsigned pos_bits = 40; // the arena may hold 1 TiB
  static constexpr uint64_t pos_mask = (uint64_t{1} << pos_bits) - 1;
  static constexpr size_t first_pos = 8; // so that no record is at 0

  struct block {
    std::unique_ptr<char[]> data;
    size_t bytes = 0;
  };

  // The slot a hash starts probing at: its low 40 bits scaled to the
  // index's size (any size, not only powers of two); the top 24 bits are
  // the tag, so the two do not overlap.
  size_t home(uint64_t h) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(h & pos_mask) * slots_.size()) >> pos_bits);
  }
  size_t next(size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }

  char* at(ref r) { return chunks_[r >> chunk_bits] + (r & (chunk_bytes - 1)); }
  const char* at(ref r) const { return chunks_[r >> chunk_bits] + (r & (chunk_bytes - 1)); }

  static size_t length_bytes(size_t len) {
    size_t n = 1;
    while (len >= 0x80) {
      len >>= 7;
      ++n;
    }
    return n;
  }
  static size_t read_length(const char* p, size_t& len) {
    size_t n = 0;
    unsigned shift = 0;
    for (;;) {
      const auto b = static_cast<unsigned char>(p[n++]);
      len |= size_t{b & 0x7Fu} << shift;
      if (b < 0x80)
        return n;
      shift += 7;
    }
  }

  ref append(std::string_view w, const T& value) {
    const size_t need = sizeof(T) + length_bytes(w.size()) + w.size();
    if (chunks_.empty()) {
      add_chunks(1);
      ends_[0] = first_pos;
    }
    if (ends_.back() + need > chunk_bytes) {
      // A record longer than a chunk gets consecutive chunk numbers of its
      // own allocation, so that it stays contiguous; nothing else goes there.
      const size_t count = (need + chunk_bytes - 1) / chunk_bytes;
      add_chunks(count);
      if (count > 1) {
        const size_t c = chunks_.size() - count;
        write(chunks_[c], w, value);
        ends_[c] = need;
        add_chunks(1);
        return ref{c} << chunk_bits;
      }
    }
    const size_t c = chunks_.size() - 1;
    const ref r = (ref{c} << chunk_bits) + ends_[c];
    write(chunks_[c] + ends_[c], w, value);
    ends_[c] += need;
    return r;
  }

  void add_chunks(size_t count) {
    blocks_.push_back({std::unique_ptr<char[]>(new char[count * chunk_bytes]), count * chunk_bytes});
    arena_bytes_ += count * chunk_bytes;
    char* base = blocks_.back().data.get();
    prefault(base, count * chunk_bytes);
    for (size_t k = 0; k < count; ++k) {
      chunks_.push_back(base + k * chunk_bytes);
      ends_.push_back(0);
    }
  }

  // A new chunk is written from its start to its end as records are
  // appended: its pages are asked for in one call, not taken one fault at
  // a time (a fault is a trap of its own, and costs several times a page's
  // share of one call on a virtual machine). Advice only: a kernel without
  // MADV_POPULATE_WRITE (before Linux 5.14) faults them in as before.
  static void prefault(char* p, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
    constexpr uintptr_t page = 4096;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
    if (end > begin)
      ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
  }

  template <class F>
  void walk(size_t c, F&& f) const {
    const char* base = chunks_[c];
    for (size_t pos = c == 0 ? first_pos : 0; pos < ends_[c];) {
      size_t len = 0;
      const size_t skip = read_length(base + pos + sizeof(T), len);
      f((ref{c} << chunk_bits) + pos);
      pos += sizeof(T) + skip + len;
    }
  }

  static void write(char* p, std::string_view w, const T& value) {
    std::memcpy(p, &value, sizeof(T));
    p += sizeof(T);
    size_t len = w.size();
    while (len >= 0x80) {
      *p++ = static_cast<char>((len & 0x7F) | 0x80);
      len >>= 7;
    }
    *p++ = static_cast<char>(len);
    std::memcpy(p, w.data(), w.size());
  }

  size_t grown_size() const {
    const size_t n = slots_.size();
    return n < 16 ? 16 : n < (size_t{1} << 20) ? 2 * n : n + n / 2;
  }
  void grow() { rebuild(grown_size()); }

  // A new index of `capacity` slots, filled by walking the arena in order
  // (a sequential read, rehashing each word).
  void rebuild(size_t capacity) {
    slots_ = {};
    slots_ = detail::slot_array{capacity};
    for_each([&](ref r) {
      const uint64_t h = word_hash(word(r));
      size_t i = home(h);
      while (slots_[i] != 0)
        i = next(i);
      slots_[i] = ((h >> pos_bits) << pos_bits) | r;
    });
  }

  std::vector<block> blocks_;
  std::vector<char*> chunks_;
  std::vector<size_t> ends_; // bytes used in each chunk
  detail::slot_array slots_;
  size_t size_ = 0;
  size_t arena_bytes_ = 0; // the blocks' bytes
};

} // namespace gridvec
