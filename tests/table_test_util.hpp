#pragma once
// Asking a table service directly in tests: the reply, decoded.
#include <catch2/catch.hpp>

#include <string>

#include "src/table/table_service.hpp"
#include <gridvec/core/table_wire.hpp>

namespace gridvec::test {

inline table_reply ask(table_service& service, const wire_bytes& request) {
  auto reply = decode_table_reply(service.handle(request));
  REQUIRE(reply);
  return *reply;
}

/// A dense matrix of `rows` x `dim` in the columns layout: one distributed
/// vector a row.
inline table_spec dense_columns_spec(const std::string& name, uint64_t rows, uint32_t dim) {
  table_spec spec;
  spec.name = name;
  spec.kind = table_kind::matrix;
  spec.rows = rows;
  spec.dim = dim;
  spec.layout = table_layout::columns;
  spec.dense = true;
  return spec;
}

/// The error line of a request that must fail.
inline std::string error_of(table_service& service, const wire_bytes& request) {
  auto reply = ask(service, request);
  REQUIRE(reply.what == table_reply::kind::error);
  return reply.error;
}

} // namespace gridvec::test
