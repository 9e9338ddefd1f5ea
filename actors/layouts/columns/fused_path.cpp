// The fused path: when every shard lane of this learner lives in its own
// process (gridvec train), minibatches are trained on the stores directly
// (src/sgns/local_trainer.hpp), or with --partition words through the word
// partitions' exchange (src/model/word_split_trainer.hpp), one slice of
// time at a time (actors/learner/time_slice.cpp).
#include "actors/layouts/columns/columns.hpp"

#include "actors/learner/learner_state.hpp"
#include "actors/local_lanes.hpp"
#include "src/model/word_split_trainer.hpp"

namespace gridvec::learner {

namespace {

class fused_path final : public training_path {
public:
  explicit fused_path(bool word_split) : split_(word_split) {}

  // local_trainer applies each pair before the next; --partition words
  // (which trains no -hs 1) keeps the centre's direction.
  bool pair_by_pair() const override { return !split_; }

  // The stores behind the lanes, found again after a rollback (a restored
  // shard's store is a new one).
  status bind(learner_ptr self) override {
    auto& st = self->state;
    auto stores = find_local_stores(st.shards);
    if (split_) {
      if (stores.size() != 1)
        return failure{"--partition words with one shard trains where that shard is (gridvec train)"};
      auto trainer = word_split_trainer::make(
        std::move(stores.front()), st.cfg.word_partitions, static_cast<negatives_mode>(st.cfg.negatives_mode),
        st.cfg.visits_per_skipgram ? visit_grouping::skipgram : visit_grouping::example);
      if (!trainer)
        return failure{trainer.error()};
      word_split_ = std::move(*trainer);
      return {};
    }
    if (stores.empty())
      return failure{"the fused path needs every shard in this process, and a shard is not"};
    trainer_ = std::make_unique<local_trainer>(std::move(stores));
    return {};
  }

  // Trains minibatches on the local stores for one time slice; the same
  // minibatches, seeds, noise words and weights as the protocol, but
  // nothing is in flight, so a pause settles at the end of the current
  // sentence.
  void pump(learner_ptr self) override {
    auto& st = self->state;
    const auto until = clock::now() + fused_slice;
    while (st.state == mode::running || st.state == mode::pausing) {
      if (!st.mid_sentence() && (st.state == mode::pausing || !st.source->has_work()))
        break;
      bool trained = false;
      if (!(split_ ? train_next_split(self, trained) : train_next(self, *trainer_, trained)))
        return;
      if (trained && slice_over(self, until))
        return;
    }
    pump_settled(self);
  }

private:
  // Through the word partitions' exchange: what would cross between
  // partitions is counted as their messages.
  bool train_next_split(learner_ptr self, bool& trained) {
    return fill_and_train(self, trained, [this, self](const minibatch& mb, float alpha) {
      auto& st = self->state;
      auto w = word_split_->train(mb, alpha);
      if (!w) {
        fail(self, w.error());
        return false;
      }
      const auto t = word_split_->take_traffic();
      const auto kind = static_cast<size_t>(message_kind::word_split_batch);
      st.unreported.wire.messages[kind] += t.batches;
      st.unreported.wire.bytes[kind] += t.vectors * word_split_->dim() * sizeof(float) + t.index_bytes;
      return count_weights(self, *w, alpha);
    });
  }

  bool split_;
  std::unique_ptr<local_trainer> trainer_;
  std::unique_ptr<word_split_trainer> word_split_;
};

} // namespace

std::unique_ptr<training_path> make_fused_path(bool word_split) { return std::make_unique<fused_path>(word_split); }

} // namespace gridvec::learner
