#pragma once
// The optimiser's side of an L-BFGS checkpoint, in a file: the scalars a run
// needs to go on (lbfgs_state: the iteration, objective, |gradient|, the
// curvature scale, the history's slots and rho = 1/s.y, the trace), with the
// run's identity (table, features, history length, l2, examples) so that it
// is never applied to another run. The vectors themselves are the model
// table, saved by the table shards in the cluster's table-dir at the same
// checkpoint; `gridvec lbfgs --resume` loads both.
//
// Text, one value a line, floats in hexadecimal (%a) so that they read back
// exactly; written whole or not at all (src/util/atomic_file.hpp).
#include <cstdint>
#include <string>

#include <gridvec/core/expected.hpp>
#include "src/lbfgs/lbfgs.hpp"

namespace gridvec {

/// What a state must match to be resumed.
struct lbfgs_run_identity {
  std::string table;
  uint32_t features = 0;
  uint32_t memory = 0;
  double l2 = 0;
  uint64_t examples = 0;
};

/// A checkpoint as the file records it: the optimiser's state, and the
/// table-dir save slot its model table was saved in (checkpoints alternate
/// two slots, so that a save cut short leaves the one before it whole).
struct lbfgs_checkpoint {
  lbfgs_state state;
  uint32_t table_slot = 0;
};

status write_lbfgs_state(const std::string& path, const lbfgs_checkpoint& checkpoint, const lbfgs_run_identity& run);

/// One line naming the file if it is missing, malformed, out of bounds, or
/// of another run. A file of the first format (no table slot) reads as
/// slot 0.
expected<lbfgs_checkpoint> read_lbfgs_state(const std::string& path, const lbfgs_run_identity& expect);

} // namespace gridvec
