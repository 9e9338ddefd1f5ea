// Reached by: any peer that holds a table shard's handle (every client of
// the parameter server, docs/tables.md): a TableRequest is decoded and run
// by the shard's table_service (src/table/table_service.hpp), which must
// answer anything (malformed bytes, unknown tables or operations, wrong
// value sizes, keys outside a matrix or of another shard, columns of
// another shard in a sparse request, huge batches)
// with a reply and never write outside a row. The service keeps its tables
// across inputs, as a shard does across requests; it has no directory, so
// save writes nothing, and its dense tables may take 64 MiB (a node's
// limit is half its memory, more than the fuzzer's).
#include <cstddef>
#include <cstdint>

#include "src/table/table_service.hpp"
#include <gridvec/core/table_wire.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  // Made once and kept (a service holds locks: it is not copied or moved).
  static table_service& service = *[] {
    auto* made = new table_service{1, 2, "", uint64_t{64} << 20};
    table_service& s = *made;
    table_spec rows;
    rows.name = "rows";
    rows.dim = 3;
    rows.optimizer = table_optimizer::adam;
    table_spec columns = rows;
    columns.name = "columns";
    columns.kind = table_kind::matrix;
    columns.rows = 100;
    columns.layout = table_layout::columns;
    columns.optimizer = table_optimizer::adagrad;
    columns.init = table_init::normal;
    columns.init_scale = 0.1f;
    // A vector table: rows longer than an ordinary table's, split by
    // columns, read and written by column (sparseGet, sparseAdd).
    table_spec vectors = columns;
    vectors.name = "vectors";
    vectors.rows = 4;
    vectors.dim = 100000;
    vectors.dense = true;
    vectors.optimizer = table_optimizer::sgd;
    vectors.init = table_init::zeros;
    (void)s.handle(encode_table_create(rows));
    (void)s.handle(encode_table_create(columns));
    (void)s.handle(encode_table_create(vectors));
    return made;
  }();
  const wire_bytes bytes(data, data + size);
  auto reply = decode_table_reply(service.handle(bytes));
  if (!reply)
    __builtin_trap(); // the shard's own reply must always decode
  return 0;
}
