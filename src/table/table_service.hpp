#pragma once
// The tables of one shard and the answer to every request of
// schema/table.capnp: decode, check, run on the slice, encode. Plain code
// without CAF; the table shard actor (actors/table/) owns one and passes
// each request's bytes through handle(), from several lanes (threads) at
// once.
//
// Why locks over one slice, not rows split over the lanes: a request's keys
// would have to be split by lane, answered by each and merged (a copy of
// every key and value, and a reply that waits for the slowest lane), while
// the slices, their files, user operations and dense matrices stay as they
// are with two levels of readers-writer locks:
//   - the shard's table map: shared by every request, exclusive for those
//     that change it (create, drop, load, takeOver);
//   - each table: shared by the per-key requests (get, fetch, put, push,
//     add, sparse get and increment, lookup, info), whose rows the slice
//     locks one at a time (table_slice.hpp); exclusive for everything else
//     (set_if_absent, remove, dot, axpy, scal, copy, reduce, scan, call,
//     save, fence), which thus sees no per-key request half done. A per-key request
//     whose rows do not all exist yet runs alone too (the key index and the
//     pages grow).
// So the per-key requests of many clients, the bulk of the traffic, run on
// all lanes at once, and on the same rows they add up as if in turn.
//
// Bounds, because the requests come from the network (docs/tables.md):
// at most max_request_keys keys per request and keys x stride at most
// max_request_floats (what a request may create or send back), at most
// max_tables tables per shard and max_slice_rows rows per table and
// shard. A bad request gets an error reply; the tables are untouched by it.
#include <cstdint>
#include <map>
#include <atomic>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include <gridvec/core/table_slice.hpp>
#include <gridvec/core/table_wire.hpp>

namespace gridvec {

constexpr size_t max_request_keys = size_t{1} << 20;
constexpr size_t max_request_floats = size_t{32} << 20;
constexpr size_t max_tables = 1024;
constexpr uint64_t max_slice_rows = 0xFFFFFFF0u; // row numbers are 32-bit (key_index)

/// Half of this machine's memory: the most one dense slice may take (it
/// allocates all its rows at once, and a peer chose the size).
uint64_t default_dense_limit();

/// Whether shard slices of the dense table `spec` fit: at most
/// max_slice_rows rows and `limit` bytes per slice. One line if not.
status dense_slice_fits(const table_spec& spec, uint32_t shards, uint64_t limit);

class table_service {
public:
  /// Shard `shard` of `shards`; `dir` is where save writes and restore
  /// reads its slices (docs/tables.md); empty: tables are not saved.
  /// `dense_limit`: the most bytes one dense slice may take. With `shards`
  /// 0, a standby node's spare: it refuses every request but a takeOver,
  /// which makes it shard i of S and restores that shard's slices.
  table_service(uint32_t shard, uint32_t shards, std::string dir, uint64_t dense_limit = default_dense_limit());

  /// Loads every slice of this shard found under the directory (a restarted
  /// shard node gets its tables back). Returns one line per table loaded
  /// and per file that could not be (which is left as it is).
  std::vector<std::string> restore();

  /// Answers one TableRequest with one TableReply (an error reply for a
  /// malformed or refused request). Safe to call from several threads.
  wire_bytes handle(const wire_bytes& request);

  /// After the takeOver that made this spare shard i of S: true, once, with
  /// i, S and what it restored (restore()'s lines); false otherwise.
  bool took_over(uint32_t& shard, uint32_t& shards, std::vector<std::string>& lines);

  /// What this shard holds, for the shell and the metrics.
  std::vector<table_info> tables() const;
  uint64_t requests() const { return requests_; }

private:
  // One table: its slice and the lock of the per-key (shared) and
  // whole-table (exclusive) requests.
  struct table_entry {
    std::shared_ptr<table_slice> slice;
    mutable std::shared_mutex mode;
    // Increments whose writer token is nonzero and below it are refused.
    // Raised with the table to itself, read by increments holding it
    // shared: an increment either ran wholly before the raise or sees it.
    uint64_t fence = 0;
  };
  bool spare() const { return shards_ == 0; }
  table_info info_of(const table_slice& slice) const;
  std::vector<std::string> restore_locked();     // the map locked exclusive
  std::vector<table_info> tables_locked() const; // the map locked

  // shard_ and shards_ change only in a takeOver, under map_mode_ exclusive.
  uint32_t shard_, shards_;
  std::string dir_;
  uint64_t dense_limit_;
  mutable std::shared_mutex map_mode_; // tables_, shard_, shards_
  std::map<std::string, std::shared_ptr<table_entry>> tables_;
  std::atomic<uint64_t> requests_ = 0;
  bool was_spare_ = false;
  bool take_over_unreported_ = false;
  std::vector<std::string> take_over_lines_;
};

} // namespace gridvec
