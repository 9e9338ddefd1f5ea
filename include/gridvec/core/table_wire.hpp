#pragma once
// (Public header of src/table/table_wire.cpp.)
// Encoding and decoding of the parameter server's messages
// (schema/table.capnp): the client builds requests with these, the shard
// (table_service) decodes them and answers with a reply built here.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <gridvec/core/wire_bytes.hpp>
#include <gridvec/core/table_spec.hpp>

namespace gridvec {

/// What a shard says about its part of a table.
struct table_info {
  table_spec spec;
  uint32_t shard = 0, shards = 0;
  uint32_t first_column = 0, width = 0, stride = 0;
  uint64_t rows = 0;
  uint64_t memory_bytes = 0;
};

/// The operations of a TableRequest, by the name of their union member.
enum class table_op {
  create,
  get,
  put,
  set_if_absent,
  remove,
  push,
  add,
  dot,
  axpy,
  scal,
  copy,
  reduce,
  call,
  fetch,
  info,
  list,
  drop,
  save,
  sparse_get,
  sparse_add,
  lookup,
  load
};

/// How an embedding lookup combines each example's rows.
enum class table_combiner { sum, mean, sqrtn };

wire_bytes encode_table_create(const table_spec& spec);
/// get, remove, fetch
wire_bytes encode_table_keys(table_op op, const std::string& table, std::span<const uint64_t> keys);
/// put, set_if_absent, push, add: `values` holds keys.size() rows
wire_bytes encode_table_values(table_op op, const std::string& table, std::span<const uint64_t> keys,
                               std::span<const float> values);
/// dot, copy (and axpy with alpha)
wire_bytes encode_table_pairs(table_op op, const std::string& table, std::span<const uint64_t> a,
                              std::span<const uint64_t> b, float alpha = 0.0f);
wire_bytes encode_table_scal(const std::string& table, float alpha, std::span<const uint64_t> keys);
wire_bytes encode_table_reduce(const std::string& table, const std::string& what);
wire_bytes encode_table_call(const std::string& table, const std::string& operation, const wire_bytes& args);
/// The save slots a table shard keeps in its table-dir: save and load name
/// one below this (0 is a plain save).
constexpr uint32_t max_table_slots = 4;

/// info, list, drop, save, load (`slot`: save and load only, below max_table_slots)
wire_bytes encode_table_simple(table_op op, const std::string& table, uint32_t slot = 0);
/// A standby's spare table shard becomes shard `shard` of `shards`
/// (schema/table.capnp, TakeOver).
wire_bytes encode_table_take_over(uint32_t shard, uint32_t shards);
/// A page of a shard's rows (schema/table.capnp, Scan).
wire_bytes encode_table_scan(const std::string& table, uint64_t cursor, uint32_t limit);

/// Columns `indices` (global numbers) of each of `rows`: the reply holds
/// rows.size() x indices.size() floats.
wire_bytes encode_table_sparse_get(const std::string& table, std::span<const uint64_t> rows,
                                   std::span<const uint32_t> indices);
/// row[indices[j]] += values[j] (as many values as indices), from the
/// writer with token `writer` (0: never fenced; see encode_table_fence).
wire_bytes encode_table_sparse_add(const std::string& table, uint64_t row, std::span<const uint32_t> indices,
                                   std::span<const float> values, uint64_t writer = 0);
/// Raises the table's fence to `fence`: from then on the shard refuses
/// every increment whose writer token is nonzero and below it
/// (schema/table.capnp, TableRequest.writer).
wire_bytes encode_table_fence(const std::string& table, uint64_t fence);

/// An embedding lookup (schema/table.capnp, Lookup).
wire_bytes encode_table_lookup(const std::string& table, table_combiner combiner, std::span<const uint64_t> keys,
                               std::span<const uint32_t> offsets, std::span<const uint32_t> positions,
                               std::span<const uint32_t> counts);

/// A decoded TableReply.
struct table_reply {
  enum class kind { error, done, floats, flags, sums, result, tables } what = kind::error;
  std::string error;
  error_code code = error_code::failed; // with `error`
  std::vector<float> floats;
  std::vector<uint8_t> flags;
  std::vector<double> sums;
  wire_bytes result;
  std::vector<table_info> tables;
  std::vector<uint32_t> steps;
  std::vector<uint64_t> keys; // scan
  uint64_t next = 0;          // scan
  uint64_t fence = 0;         // fence: the table's fence after it
};

/// Decodes a reply; a malformed one is a failure line.
expected<table_reply> decode_table_reply(const wire_bytes& bytes);

/// For a `floats` reply: calls use(floats, count) on the floats where they
/// lie in the message (no copy), and returns what it returns. An error
/// reply is its line; any other kind, or malformed bytes, a failure.
status read_table_floats(const wire_bytes& bytes, const std::function<status(const float*, size_t)>& use);

} // namespace gridvec
