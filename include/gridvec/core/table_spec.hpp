#pragma once
// (Public header of src/table/table_spec.cpp.)
// What a table of the parameter server is (docs/tables.md): its name, its
// keys, its width, how its rows are split over the shards, how an unknown
// row starts, and which optimizer `push` applies. The Spark + parameter server talk (map and matrix
// API over shards) and the Distributed embedding layer design (lazy rows, optimizer slots beside them).
#include <cstdint>
#include <string>
#include <string_view>

#include <gridvec/core/expected.hpp>

namespace gridvec {

/// matrix: dense row ids 0..rows-1. map: any 64-bit key (table_key() turns
/// a string into one).
enum class table_kind : uint8_t { matrix, map };

/// rows: each shard owns whole rows (key hash mod shards); columns: each
/// shard owns a column slice of every row, so that row arithmetic (dot,
/// axpy, copy) runs on the shards without moving a row, as gridvec's SGNS.
enum class table_layout : uint8_t { rows, columns };

/// How a row that nobody has written yet starts, on its first read.
enum class table_init : uint8_t { zeros, uniform, normal };

/// What `push` does with a gradient g; the slot variables live beside the
/// row on its shard and are checkpointed with it.
///   sgd:     v -= lr g                                   (no slot)
///   adagrad: G += g^2; v -= lr g / (sqrt(G) + eps)       (1 slot)
///   adam:    m, s moments, per-row step t, bias-corrected (2 slots + t)
enum class table_optimizer : uint8_t { sgd, adagrad, adam };

struct table_spec {
  std::string name;
  table_kind kind = table_kind::map;
  uint64_t rows = 0; // matrix only: the number of rows
  uint32_t dim = 0;  // floats per row
  table_layout layout = table_layout::rows;
  table_init init = table_init::zeros;
  float init_scale = 0.0f; // uniform: values in [-scale, scale]; normal: standard deviation
  uint64_t seed = 1;       // of the initial values: a restarted shard gives the same ones
  table_optimizer optimizer = table_optimizer::sgd;
  float learning_rate = 0.01f;
  float beta1 = 0.9f, beta2 = 0.999f; // adam
  float epsilon = 1e-8f;              // adagrad, adam
  // Matrix in the columns layout only: every row is made, with its initial value, when the table
  // is created, and stored contiguously (row r at r x stride): no key index
  // and no per-row cost, for a matrix whose rows are all used (gridvec's
  // own SGNS model, src/model/shard_store.hpp). A removed row goes back to
  // its initial value.
  bool dense = false;

  bool operator==(const table_spec&) const = default;
};

/// Bounds on what a table may be (a peer chooses them).
constexpr uint32_t max_table_dim = 65536;
/// A dense matrix in the columns layout may have rows this long: each is
/// one distributed vector split over the shards by columns (a model of 10^8
/// features), read and written by column (fetch/increment) and combined
/// on the shards (dot, axpy, scal, copy). Its memory is bounded by the
/// shard's dense limit.
constexpr uint32_t max_vector_dim = uint32_t{1} << 30;
constexpr size_t max_table_name = 64;

/// Checks a spec: a name of [A-Za-z0-9_.-] not starting with '.', at most
/// 64 characters (it names files); 1 <= dim <= 65536 (max_vector_dim for a
/// dense matrix in the columns layout); a matrix has rows;
/// a scale for a random initializer; a positive learning rate. One line.
status validate_table_spec(const table_spec& spec);

/// "matrix 1000 x 64, columns, init normal 0.1 seed 7, adagrad lr 0.05".
std::string describe(const table_spec& spec);

std::string_view to_string(table_kind k);
std::string_view to_string(table_layout l);
std::string_view to_string(table_init i);
std::string_view to_string(table_optimizer o);
expected<table_init> parse_table_init(std::string_view text);
expected<table_optimizer> parse_table_optimizer(std::string_view text);
expected<table_layout> parse_table_layout(std::string_view text);

/// Slot floats per column that `o` keeps beside each row (sgd 0, adagrad 1,
/// adam 2), and whether it also keeps a per-row step count.
uint32_t slots_per_column(table_optimizer o);
bool keeps_step(table_optimizer o);

/// The key of a string key of a map table: 64-bit FNV-1a of its bytes,
/// the word_key of a word (include/gridvec/core/vocabulary.hpp).
uint64_t table_key(std::string_view text);

/// Which of `shards` shards owns `key` in a rows-layout table.
uint32_t shard_of_key(uint64_t key, uint32_t shards);

/// The columns shard `shard` of `shards` holds of a columns-layout table
/// of width `dim`: [first, first + width), split as evenly as possible.
struct column_range {
  uint32_t first = 0;
  uint32_t width = 0;
};
column_range columns_of_shard(uint32_t dim, uint32_t shard, uint32_t shards);

} // namespace gridvec
