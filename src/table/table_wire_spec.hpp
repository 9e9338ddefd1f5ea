#pragma once
// table_spec and table_info <-> their Cap'n Proto structs
// (schema/table.capnp), for the codecs of the client (table_wire.cpp) and
// the shard (table_service.cpp).
#include "schema/table.capnp.h"
#include <gridvec/core/table_spec.hpp>
#include <gridvec/core/table_wire.hpp> // table_info

namespace gridvec {

inline void write_table_spec(wire::TableSpec::Builder b, const table_spec& s) {
  b.setName(s.name);
  b.setKind(static_cast<wire::TableKind>(s.kind));
  b.setRows(s.rows);
  b.setDim(s.dim);
  b.setLayout(static_cast<wire::TableLayout>(s.layout));
  b.setInit(static_cast<wire::TableInit>(s.init));
  b.setInitScale(s.init_scale);
  b.setSeed(s.seed);
  b.setOptimizer(static_cast<wire::TableOptimizer>(s.optimizer));
  b.setLearningRate(s.learning_rate);
  b.setBeta1(s.beta1);
  b.setBeta2(s.beta2);
  b.setEpsilon(s.epsilon);
  b.setDense(s.dense);
}

/// An enum's number, 255 if it does not fit the spec's byte (invalid then).
template <class E>
uint8_t narrow(E e) {
  const auto n = static_cast<unsigned>(e);
  return n > 255 ? uint8_t{255} : static_cast<uint8_t>(n);
}

/// Enum values outside the schema's come through as they are; the receiver
/// validates the spec (validate_table_spec) before using it.
inline table_spec read_table_spec(wire::TableSpec::Reader r) {
  table_spec s;
  s.name = r.getName().cStr();
  s.kind = static_cast<table_kind>(narrow(r.getKind()));
  s.rows = r.getRows();
  s.dim = r.getDim();
  s.layout = static_cast<table_layout>(narrow(r.getLayout()));
  s.init = static_cast<table_init>(narrow(r.getInit()));
  s.init_scale = r.getInitScale();
  s.seed = r.getSeed();
  s.optimizer = static_cast<table_optimizer>(narrow(r.getOptimizer()));
  s.learning_rate = r.getLearningRate();
  s.beta1 = r.getBeta1();
  s.beta2 = r.getBeta2();
  s.epsilon = r.getEpsilon();
  s.dense = r.getDense();
  return s;
}

inline void write_table_info(wire::TableInfo::Builder b, const table_info& info) {
  write_table_spec(b.initSpec(), info.spec);
  b.setShard(info.shard);
  b.setShards(info.shards);
  b.setFirstColumn(info.first_column);
  b.setWidth(info.width);
  b.setStride(info.stride);
  b.setRows(info.rows);
  b.setMemoryBytes(info.memory_bytes);
}

inline table_info read_table_info(wire::TableInfo::Reader r) {
  table_info info;
  info.spec = read_table_spec(r.getSpec());
  info.shard = r.getShard();
  info.shards = r.getShards();
  info.first_column = r.getFirstColumn();
  info.width = r.getWidth();
  info.stride = r.getStride();
  info.rows = r.getRows();
  info.memory_bytes = r.getMemoryBytes();
  return info;
}

} // namespace gridvec
