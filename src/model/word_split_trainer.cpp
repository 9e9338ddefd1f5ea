#include "src/model/word_split_trainer.hpp"

#include <string>

namespace gridvec {

expected<std::unique_ptr<word_split_trainer>> word_split_trainer::make(std::shared_ptr<shard_store> store,
                                                                       uint32_t partitions, negatives_mode mode,
                                                                       visit_grouping grouping) {
  if (store->slice().first != 0 || store->slice().width != store->dim())
    return failure{"--partition words trains in one process on one shard holding every column (give --shards 1)"};
  const auto& spec = store->noise().spec();
  if (spec.partitions != partitions || !store->noise().partition(0))
    return failure{"the shard's noise sampler does not draw through " + std::to_string(partitions) +
                   " word partitions"};
  return std::unique_ptr<word_split_trainer>(new word_split_trainer(std::move(store), partitions, mode, grouping));
}

word_split_trainer::word_split_trainer(std::shared_ptr<shard_store> store, uint32_t partitions, negatives_mode mode,
                                       visit_grouping grouping)
  : store_(std::move(store)), mode_(mode), grouping_(grouping) {
  const word_layout layout{partitions};
  for (uint32_t k = 0; k < partitions; ++k)
    parts_.emplace_back(k, layout, store_->dim(), store_->vocab_size(), store_->input_row(0), store_->output_row(0));
}

expected<weight_result> word_split_trainer::train(const minibatch& mb, float alpha) {
  return train_word_split(parts_, store_->noise(), mb, mode_, alpha, traffic_, grouping_);
}

split_traffic word_split_trainer::take_traffic() {
  split_traffic t = traffic_;
  traffic_ = {};
  return t;
}

} // namespace gridvec
