#include <gridvec/core/table_spec.hpp>

#include <cmath>
#include <cstdio>

#include <gridvec/core/vocabulary.hpp> // word_key
#include "src/util/rng.hpp"

namespace gridvec {

namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

std::string number(float x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(x));
  return buf;
}

} // namespace

status validate_table_spec(const table_spec& spec) {
  if (spec.name.empty())
    return failure{"a table needs a name"};
  if (spec.name.size() > max_table_name)
    return failure{"table name is longer than " + std::to_string(max_table_name) + " characters"};
  for (char c : spec.name)
    if (!name_char(c))
      return failure{"table name '" + spec.name + "' may contain only letters, digits, '_', '.' and '-'"};
  if (spec.name[0] == '.')
    return failure{"table name '" + spec.name + "' must not start with '.'"};
  const std::string t = "table " + spec.name + ": ";
  const bool vectors = spec.dense && spec.layout == table_layout::columns && spec.kind == table_kind::matrix;
  const uint32_t most = vectors ? max_vector_dim : max_table_dim;
  if (spec.dim == 0 || spec.dim > most)
    return failure{t + "dim must be between 1 and " + std::to_string(most) + ", not " + std::to_string(spec.dim) +
                   (vectors ? "" : " (a dense matrix in the columns layout may have longer rows)")};
  if (spec.kind == table_kind::matrix && spec.rows == 0)
    return failure{t + "a matrix needs rows > 0"};
  if (spec.kind == table_kind::map && spec.rows != 0)
    return failure{t + "a map has no row count (its keys are any 64-bit numbers)"};
  if (spec.kind == table_kind::map && spec.dense)
    return failure{t + "only a matrix can be dense (a map's keys are not known in advance)"};
  if (spec.dense && spec.layout != table_layout::columns)
    return failure{t + "a dense matrix needs the columns layout (each shard then holds every row)"};
  if (spec.kind != table_kind::matrix && spec.kind != table_kind::map)
    return failure{t + "unknown table kind"};
  if (spec.layout != table_layout::rows && spec.layout != table_layout::columns)
    return failure{t + "unknown layout"};
  if (spec.init != table_init::zeros && spec.init != table_init::uniform && spec.init != table_init::normal)
    return failure{t + "unknown initializer"};
  if (spec.init != table_init::zeros && !(spec.init_scale > 0.0f && std::isfinite(spec.init_scale)))
    return failure{t + "initializer " + std::string{to_string(spec.init)} + " needs a scale > 0"};
  if (spec.optimizer != table_optimizer::sgd && spec.optimizer != table_optimizer::adagrad &&
      spec.optimizer != table_optimizer::adam)
    return failure{t + "unknown optimizer"};
  if (!(spec.learning_rate > 0.0f && std::isfinite(spec.learning_rate)))
    return failure{t + "learning rate must be > 0"};
  if (!(spec.beta1 >= 0.0f && spec.beta1 < 1.0f) || !(spec.beta2 >= 0.0f && spec.beta2 < 1.0f))
    return failure{t + "adam's beta1 and beta2 must be in [0, 1)"};
  if (!(spec.epsilon > 0.0f && std::isfinite(spec.epsilon)))
    return failure{t + "epsilon must be > 0"};
  return {};
}

std::string describe(const table_spec& spec) {
  std::string s{to_string(spec.kind)};
  if (spec.kind == table_kind::matrix)
    s += " " + std::to_string(spec.rows) + " x " + std::to_string(spec.dim);
  else
    s += " of " + std::to_string(spec.dim) + " floats";
  s += ", " + std::string{to_string(spec.layout)};
  if (spec.dense)
    s += ", dense";
  s += ", init " + std::string{to_string(spec.init)};
  if (spec.init != table_init::zeros)
    s += " " + number(spec.init_scale) + " seed " + std::to_string(spec.seed);
  s += ", " + std::string{to_string(spec.optimizer)} + " lr " + number(spec.learning_rate);
  return s;
}

std::string_view to_string(table_kind k) { return k == table_kind::matrix ? "matrix" : "map"; }
std::string_view to_string(table_layout l) { return l == table_layout::rows ? "rows" : "columns"; }

std::string_view to_string(table_init i) {
  switch (i) {
    case table_init::zeros: return "zeros";
    case table_init::uniform: return "uniform";
    case table_init::normal: return "normal";
  }
  return "?";
}

std::string_view to_string(table_optimizer o) {
  switch (o) {
    case table_optimizer::sgd: return "sgd";
    case table_optimizer::adagrad: return "adagrad";
    case table_optimizer::adam: return "adam";
  }
  return "?";
}

expected<table_init> parse_table_init(std::string_view text) {
  for (auto i : {table_init::zeros, table_init::uniform, table_init::normal})
    if (text == to_string(i))
      return i;
  return failure{"unknown initializer '" + std::string{text} + "' (zeros, uniform or normal)"};
}

expected<table_optimizer> parse_table_optimizer(std::string_view text) {
  for (auto o : {table_optimizer::sgd, table_optimizer::adagrad, table_optimizer::adam})
    if (text == to_string(o))
      return o;
  return failure{"unknown optimizer '" + std::string{text} + "' (sgd, adagrad or adam)"};
}

expected<table_layout> parse_table_layout(std::string_view text) {
  for (auto l : {table_layout::rows, table_layout::columns})
    if (text == to_string(l))
      return l;
  return failure{"unknown layout '" + std::string{text} + "' (rows or columns)"};
}

uint32_t slots_per_column(table_optimizer o) {
  return o == table_optimizer::adagrad ? 1 : o == table_optimizer::adam ? 2 : 0;
}

bool keeps_step(table_optimizer o) { return o == table_optimizer::adam; }

uint64_t table_key(std::string_view text) { return word_key(text); }

uint32_t shard_of_key(uint64_t key, uint32_t shards) {
  // Mixed first (one SplitMix64 step): dense ids 0, 1, 2, ... and keys
  // with common low bits still spread evenly.
  return static_cast<uint32_t>(rng(key).next() % shards);
}

column_range columns_of_shard(uint32_t dim, uint32_t shard, uint32_t shards) {
  const uint64_t first = uint64_t{dim} * shard / shards;
  const uint64_t end = uint64_t{dim} * (shard + 1) / shards;
  return {static_cast<uint32_t>(first), static_cast<uint32_t>(end - first)};
}

} // namespace gridvec
