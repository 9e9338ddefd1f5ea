#pragma once
// The tables of one shard and the answer to every request of
// schema/table.capnp: decode, check, run on the slice, encode. Plain code
// without CAF; the table shard actor (actors/table/) owns one and passes
// each request's bytes through handle().
//
// Bounds, because the requests come from the network (docs/tables.md):
// at most max_request_keys keys per request and keys x stride at most
// max_request_floats (what a request may create or send back), at most
// max_tables tables per shard and max_slice_rows rows per table and
// shard. A bad request gets an error reply; the tables are untouched by it.
#include <cstdint>
#include <map>
#include <memory>
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
  /// malformed or refused request).
  wire_bytes handle(const wire_bytes& request);

  /// A spare that has not taken over a shard yet.
  bool spare() const { return shards_ == 0; }
  /// What the takeOver that made this spare a shard restored (restore()'s
  /// lines), once: then empty.
  std::vector<std::string> take_over_lines() { return std::move(take_over_lines_); }

  /// What this shard holds, for the shell and the metrics.
  std::vector<table_info> tables() const;
  uint32_t shard() const { return shard_; }
  uint32_t shards() const { return shards_; }
  uint64_t requests() const { return requests_; }

private:
  table_info info_of(const table_slice& slice) const;

  uint32_t shard_, shards_;
  std::string dir_;
  uint64_t dense_limit_;
  std::map<std::string, std::shared_ptr<table_slice>> tables_;
  uint64_t requests_ = 0;
  bool was_spare_ = false;
  std::vector<std::string> take_over_lines_;
};

} // namespace gridvec
