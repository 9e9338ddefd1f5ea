#pragma once
// `--partition words` on one shard: a learner whose one shard holds the
// whole model (gridvec train) trains through the Distributed negative sampling paper's word split
// (src/model/word_split.hpp). The store's rows are viewed as p partitions
// (word w in partition w mod p); every minibatch goes through the
// partitions' exchange exactly as shards holding those partitions would
// run it -- a plan per source, the input vectors' snapshots served at each
// peer, the gradients added back -- and what would cross between
// partitions is counted. Export, checkpoints and recovery see the one
// store as always. (Over several shards, each holds its partition's rows
// and they exchange the same batches as messages:
// actors/layouts/rows/row_exchange.hpp.)
#include <cstdint>
#include <memory>
#include <vector>

#include "src/model/shard_store.hpp"
#include "src/model/word_split.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec {

class word_split_trainer {
public:
  /// Fails unless `store` holds every column and its noise sampler draws
  /// through `partitions` word partitions.
  static expected<std::unique_ptr<word_split_trainer>> make(std::shared_ptr<shard_store> store, uint32_t partitions,
                                                            negatives_mode mode,
                                                            visit_grouping grouping = visit_grouping::example);

  /// Trains `mb` (skip-gram, negative sampling) with learning rate
  /// `alpha`; adds to traffic() what crossed between partitions.
  expected<weight_result> train(const minibatch& mb, float alpha);

  /// Since the last take_traffic(): what would have crossed.
  split_traffic take_traffic();
  uint32_t dim() const { return store_->dim(); }

private:
  word_split_trainer(std::shared_ptr<shard_store> store, uint32_t partitions, negatives_mode mode,
                     visit_grouping grouping);

  std::shared_ptr<shard_store> store_;
  std::vector<partition_rows> parts_;
  negatives_mode mode_;
  visit_grouping grouping_;
  split_traffic traffic_;
};

} // namespace gridvec
