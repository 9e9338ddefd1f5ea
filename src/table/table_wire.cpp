#include <gridvec/core/table_wire.hpp>

#include "schema/table.capnp.h"
#include "src/formats/capnp_bytes.hpp"
#include "src/table/table_wire_spec.hpp"

namespace gridvec {

namespace {

// First-segment size for a message of `keys` keys and `floats` floats.
unsigned words_for(size_t keys, size_t floats) { return static_cast<unsigned>(32 + keys + floats / 2); }

} // namespace

wire_bytes encode_table_create(const table_spec& spec) {
  wire_message message(64);
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(spec.name);
  write_table_spec(root.initCreate(), spec);
  return message.finish();
}

wire_bytes encode_table_keys(table_op op, const std::string& table, std::span<const uint64_t> keys) {
  wire_message message(words_for(keys.size(), 0));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  const auto n = static_cast<unsigned>(keys.size());
  switch (op) {
    case table_op::get: set_list(root.initGet(n), keys); break;
    case table_op::remove: set_list(root.initRemove(n), keys); break;
    default: set_list(root.initFetch(n), keys); break;
  }
  return message.finish();
}

wire_bytes encode_table_values(table_op op, const std::string& table, std::span<const uint64_t> keys,
                               std::span<const float> values) {
  wire_message message(words_for(keys.size(), values.size()));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  auto kv = op == table_op::put             ? root.initPut()
            : op == table_op::set_if_absent ? root.initSetIfAbsent()
            : op == table_op::push          ? root.initPush()
                                            : root.initAdd();
  set_list(kv.initKeys(static_cast<unsigned>(keys.size())), keys);
  copy_into(kv.initValues(static_cast<unsigned>(values.size_bytes())), values.data(), values.size_bytes());
  return message.finish();
}

wire_bytes encode_table_pairs(table_op op, const std::string& table, std::span<const uint64_t> a,
                              std::span<const uint64_t> b, float alpha) {
  wire_message message(words_for(a.size() + b.size(), 0));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  wire::KeyPairs::Builder pairs = op == table_op::dot    ? root.initDot()
                                  : op == table_op::copy ? root.initCopy()
                                                         : [&] {
                                                             auto axpy = root.initAxpy();
                                                             axpy.setAlpha(alpha);
                                                             return axpy.initPairs();
                                                           }();
  set_list(pairs.initA(static_cast<unsigned>(a.size())), a);
  set_list(pairs.initB(static_cast<unsigned>(b.size())), b);
  return message.finish();
}

wire_bytes encode_table_scal(const std::string& table, float alpha, std::span<const uint64_t> keys) {
  wire_message message(words_for(keys.size(), 0));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  auto scal = root.initScal();
  scal.setAlpha(alpha);
  set_list(scal.initKeys(static_cast<unsigned>(keys.size())), keys);
  return message.finish();
}

wire_bytes encode_table_reduce(const std::string& table, const std::string& what) {
  wire_message message(32);
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  root.setReduce(what);
  return message.finish();
}

wire_bytes encode_table_call(const std::string& table, const std::string& operation, const wire_bytes& args) {
  wire_message message(words_for(0, args.size() / 4));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  auto call = root.initCall();
  call.setOperation(operation);
  copy_into(call.initArgs(static_cast<unsigned>(args.size())), args.data(), args.size());
  return message.finish();
}

wire_bytes encode_table_simple(table_op op, const std::string& table, uint32_t slot) {
  wire_message message(32);
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  root.setSlot(static_cast<uint8_t>(slot));
  switch (op) {
    case table_op::info: root.setInfo(); break;
    case table_op::list: root.setList(); break;
    case table_op::drop: root.setDrop(); break;
    case table_op::load: root.setLoad(); break;
    default: root.setSave(); break;
  }
  return message.finish();
}

wire_bytes encode_table_take_over(uint32_t shard, uint32_t shards) {
  wire_message message(32);
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable("");
  auto t = root.initTakeOver();
  t.setShard(shard);
  t.setShards(shards);
  return message.finish();
}

wire_bytes encode_table_scan(const std::string& table, uint64_t cursor, uint32_t limit) {
  wire_message message(32);
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  auto scan = root.initScan();
  scan.setCursor(cursor);
  scan.setLimit(limit);
  return message.finish();
}

wire_bytes encode_table_sparse_get(const std::string& table, std::span<const uint64_t> rows,
                                   std::span<const uint32_t> indices) {
  wire_message message(words_for(rows.size() + indices.size() / 2, 0));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  auto sparse = root.initSparseGet();
  set_list(sparse.initRows(static_cast<unsigned>(rows.size())), rows);
  set_list(sparse.initIndices(static_cast<unsigned>(indices.size())), indices);
  return message.finish();
}

wire_bytes encode_table_sparse_add(const std::string& table, uint64_t row, std::span<const uint32_t> indices,
                                   std::span<const float> values, uint64_t writer) {
  wire_message message(words_for(indices.size() / 2, values.size()));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  root.setWriter(writer);
  auto sparse = root.initSparseAdd();
  sparse.setRow(row);
  set_list(sparse.initIndices(static_cast<unsigned>(indices.size())), indices);
  copy_into(sparse.initValues(static_cast<unsigned>(values.size_bytes())), values.data(), values.size_bytes());
  return message.finish();
}

wire_bytes encode_table_fence(const std::string& table, uint64_t fence) {
  wire_message message(32);
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  root.setFence(fence);
  return message.finish();
}

wire_bytes encode_table_lookup(const std::string& table, table_combiner combiner, std::span<const uint64_t> keys,
                               std::span<const uint32_t> offsets, std::span<const uint32_t> positions,
                               std::span<const uint32_t> counts) {
  wire_message message(words_for(keys.size() + (offsets.size() + positions.size() + counts.size()) / 2, 0));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::TableRequest>();
  root.setTable(table);
  auto lookup = root.initLookup();
  lookup.setCombiner(combiner == table_combiner::sum    ? wire::Combiner::SUM
                     : combiner == table_combiner::mean ? wire::Combiner::MEAN
                                                        : wire::Combiner::SQRTN);
  set_list(lookup.initKeys(static_cast<unsigned>(keys.size())), keys);
  set_list(lookup.initOffsets(static_cast<unsigned>(offsets.size())), offsets);
  set_list(lookup.initPositions(static_cast<unsigned>(positions.size())), positions);
  set_list(lookup.initCounts(static_cast<unsigned>(counts.size())), counts);
  return message.finish();
}

status read_table_floats(const wire_bytes& bytes, const std::function<status(const float*, size_t)>& use) {
  return with_reader<wire::TableReply>(bytes, "table reply", [&](wire::TableReply::Reader r) -> status {
    if (r.which() == wire::TableReply::ERROR)
      return failure{r.getError().cStr(), error_code_from_number(r.getErrorCode())};
    if (r.which() != wire::TableReply::FLOATS)
      return failure{"a table shard sent a reply of another kind than floats"};
    auto data = r.getFloats();
    if (data.size() % sizeof(float) != 0)
      return failure{"malformed table reply: float bytes are not a whole number of floats"};
    // Cap'n Proto keeps Data word-aligned in a message that with_reader has
    // aligned: the bytes are floats in place.
    return use(reinterpret_cast<const float*>(data.begin()), data.size() / sizeof(float));
  });
}

expected<table_reply> decode_table_reply(const wire_bytes& bytes) {
  table_reply out;
  auto read = with_reader<wire::TableReply>(bytes, "table reply", [&](wire::TableReply::Reader r) -> status {
    switch (r.which()) {
      case wire::TableReply::ERROR:
        out.what = table_reply::kind::error;
        out.error = r.getError().cStr();
        out.code = error_code_from_number(r.getErrorCode());
        break;
      case wire::TableReply::DONE: out.what = table_reply::kind::done; break;
      case wire::TableReply::FLOATS: {
        out.what = table_reply::kind::floats;
        auto data = r.getFloats();
        if (data.size() % sizeof(float) != 0)
          return failure{"malformed table reply: float bytes are not a whole number of floats"};
        copy_from(data, out.floats);
        break;
      }
      case wire::TableReply::FLAGS: {
        out.what = table_reply::kind::flags;
        copy_from(r.getFlags(), out.flags);
        break;
      }
      case wire::TableReply::SUMS:
        out.what = table_reply::kind::sums;
        get_list(r.getSums(), out.sums);
        break;
      case wire::TableReply::RESULT: {
        out.what = table_reply::kind::result;
        copy_from(r.getResult(), out.result);
        break;
      }
      case wire::TableReply::TABLES:
        out.what = table_reply::kind::tables;
        for (auto t : r.getTables())
          out.tables.push_back(read_table_info(t));
        break;
    }
    get_list(r.getSteps(), out.steps);
    get_list(r.getKeys(), out.keys);
    out.next = r.getNext();
    out.fence = r.getFence();
    return {};
  });
  if (!read)
    return failure{read.error()};
  return out;
}

} // namespace gridvec
