#pragma once
// A shard of the replicated layout: a column slice of the model that every
// learner copies at the start (rows) and that each round's masters write
// their rows' new values back to (storerows), so that checkpoints, queries
// and the export see the trained model.
#include "src/shard/column_service.hpp"
#include "src/util/malloc_policy.hpp"

namespace gridvec {

class replica_service : public column_service {
public:
  using column_service::column_service;

  /// A RowBlock of this shard's columns (schema/minibatch.capnp), checked
  /// whole before anything is written.
  status store_rows(const wire_bytes& block);

private:
  // Each round's block arrives in a buffer the size of the changed rows'
  // columns: kept for the next round's (src/util/malloc_policy.hpp).
  large_block_reuse block_reuse_;
};

} // namespace gridvec
