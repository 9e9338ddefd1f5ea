#pragma once
// (Public header of src/table/table_operations.cpp.)
// User-defined shard operations (the Spark + parameter server talk): code that runs on each shard's
// slice of a table, next to the rows, and returns a small result, so that an
// application computes over a table without moving it. An operation is
// registered by name in every process that hosts table shards (the node
// binary, or an application that runs its own nodes) before they serve:
//
//   gridvec::register_table_operation("l2-clip", [](gridvec::table_slice& slice, const gridvec::wire_bytes& args)
//       -> gridvec::expected<gridvec::wire_bytes> { ...; return gridvec::wire_bytes{}; });
//
// A client calls it with table::call("l2-clip", args) and gets one result
// per shard (in shard order) to combine as it likes: the reduce step of a
// map-reduce over the shards. The arguments come from the network: check
// them, and fail with one line rather than throw.
#include <functional>
#include <string>
#include <vector>

#include <gridvec/core/wire_bytes.hpp>
#include <gridvec/core/table_slice.hpp>

namespace gridvec {

using table_operation = std::function<expected<wire_bytes>(table_slice& slice, const wire_bytes& args)>;

/// Registers (or replaces) the operation `name` in this process. Thread-safe.
void register_table_operation(const std::string& name, table_operation op);

/// The operation `name`, or an empty function.
table_operation find_table_operation(const std::string& name);

/// The names registered, sorted.
std::vector<std::string> table_operation_names();

} // namespace gridvec
