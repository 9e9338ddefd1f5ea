#pragma once
// What a job's shards hold. A layout is chosen once per job
// (layout_of_shards) and gives every shard a geometry: a slice of the
// columns of a set of rows. Whoever reads a shard's rows (queries, the
// exporter, checkpoints, a peer's size check) asks its geometry, never its
// layout, so a new layout that is such a shape changes none of them.
#include <cstdint>

#include <gridvec/core/table_spec.hpp>

namespace gridvec {

/// How a job splits its model (--partition): by columns over the shards,
/// by word over the shards or word partitions, or a whole copy per learner.
enum class model_partition : uint8_t { columns = 0, words = 1, replicated = 2 };

/// What a job's shards hold, and so which messages they answer
/// (include/gridvec/protocol.hpp): a column slice that learners train
/// through (columns; also --partition words on one shard, whose learner
/// trains it in place), the whole rows of one word partition (--partition
/// words over several shards), or the model the replicated learners copy.
enum class shard_layout : uint8_t { columns = 0, rows = 1, replica = 2 };
inline constexpr uint8_t last_shard_layout = 2;

/// The one place a shard layout is decided: from --partition and the
/// number of shards.
inline shard_layout layout_of_shards(model_partition partition, uint32_t shards) {
  if (partition == model_partition::replicated)
    return shard_layout::replica;
  return partition == model_partition::words && shards > 1 ? shard_layout::rows : shard_layout::columns;
}

/// Which columns shard `index` of `count` holds for dimension `dim`:
/// [index·dim/count, (index+1)·dim/count), as for every columns-layout
/// table.
struct column_slice {
  uint32_t first = 0;
  uint32_t width = 0;
  static column_slice of(uint32_t index, uint32_t count, uint32_t dim) {
    auto range = columns_of_shard(dim, index, count);
    return {range.first, range.width};
  }
  bool operator==(const column_slice&) const = default;
};

/// Which rows a shard holds: the words w with w mod partitions = partition,
/// its local row w / partitions. One partition: every word, row w.
struct word_rows {
  uint32_t partition = 0;
  uint32_t partitions = 1;
  uint32_t owner(uint32_t w) const { return w % partitions; }
  uint32_t local(uint32_t w) const { return w / partitions; }
  /// Rows of `partition` among words [0, end): its local rows up to end.
  uint32_t rows_below(uint32_t end) const {
    return end > partition ? (end - partition + partitions - 1) / partitions : 0;
  }
  bool operator==(const word_rows&) const = default;
};

/// What one shard holds: columns `columns` of the rows `rows`.
struct shard_geometry {
  column_slice columns;
  word_rows rows;

  /// Shard `index` of `count` in `layout`, for dimension `dim`.
  static shard_geometry of(shard_layout layout, uint32_t index, uint32_t count, uint32_t dim) {
    if (layout == shard_layout::rows)
      return {{0, dim}, {index, count}};
    return {column_slice::of(index, count, dim), {}};
  }
  bool holds(uint32_t word) const { return rows.owner(word) == rows.partition; }
  /// How many of its rows are words in [begin, end).
  uint32_t rows_between(uint32_t begin, uint32_t end) const { return rows.rows_below(end) - rows.rows_below(begin); }
  /// The word of its local row `row`.
  uint32_t word_of(uint32_t row) const { return row * rows.partitions + rows.partition; }
  bool operator==(const shard_geometry&) const = default;
};

} // namespace gridvec
