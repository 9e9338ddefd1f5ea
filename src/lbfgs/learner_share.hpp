#pragma once
// One learner's part of a data pass of `gridvec lbfgs`: its share of the
// examples against the model table, read only at the columns the share
// touches (a sparse fetch) and written back the same way (a sparse
// increment into the next gradient's row). The same code runs on a learner
// thread of the `gridvec lbfgs` process (no cluster) and on a cluster's
// learner node; both reach the table through `sparse_model`, and both send
// back only scalars: losses, slopes, a count.
//
// The shares are contiguous ranges of the examples, numbered from 0; with
// several learners, each share belongs to one of them at a time, and a
// lost learner's shares go to the live ones (reassign_shares).
#include <cstdint>
#include <span>
#include <vector>

#include <gridvec/core/expected.hpp>

#include "src/lbfgs/lbfgs.hpp"
#include "src/lbfgs/logistic.hpp"

namespace gridvec {

/// The model table as one learner reaches it (a table client's sparse
/// fetch and increment).
class sparse_model {
public:
  virtual ~sparse_model() = default;
  /// Columns `columns` of each of `rows`: rows.size() x columns.size() floats.
  virtual expected<std::vector<float>> fetch_rows(std::span<const uint64_t> rows,
                                                  std::span<const uint32_t> columns) = 0;
  /// row[columns[j]] += values[j].
  virtual status increment(uint64_t row, std::span<const uint32_t> columns, std::span<const float> values) = 0;
};

/// Examples [begin, end) of share `k` of `count` over `examples` examples:
/// contiguous, in order, sizes differing by at most one.
struct share_range {
  uint64_t begin = 0, end = 0;
};
share_range share_of(uint64_t examples, uint32_t k, uint32_t count);

/// The loss and its slope along d at w + step d for each step, over the share.
expected<line_values> share_line(sparse_model& model, const logistic_part& part, std::span<const double> steps);

/// The share's loss at w; its gradient is added into row g_new, in one
/// increment (one request per table shard) once the whole share is done.
expected<double> share_gradient(sparse_model& model, const logistic_part& part);

/// The share's examples whose sign of w.x is their label's (a zero margin counts as wrong).
expected<uint64_t> share_correct(sparse_model& model, const logistic_part& part);

/// Adds `part` into `sum` (sum's vectors sized by the first part added).
void add_line_values(line_values& sum, const line_values& part);

/// Who holds each share once the learners that are not `alive` are gone:
/// a share of a lost learner goes to the live learner holding the fewest
/// shares at that moment (the lowest number among equals); the others stay.
/// `owner[k]` is share k's learner. Empty if no learner is alive.
std::vector<uint32_t> reassign_shares(const std::vector<uint32_t>& owner, const std::vector<bool>& alive);

} // namespace gridvec
