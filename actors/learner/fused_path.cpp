// The fused path: when every shard lane of this learner lives in its own
// process (gridvec train), minibatches are trained on the stores directly
// (src/sgns/local_trainer.hpp), or with --partition words through the word
// partitions' exchange (src/model/word_split_trainer.hpp), one slice of
// time at a time.
#include "actors/learner/learner_state.hpp"

#include <spdlog/spdlog.h>

namespace gridvec::learner {

namespace {

// Fills the next minibatch and trains it with train(mb, alpha), which
// counts its weights and says whether the job goes on. `trained` says
// whether there was one (none where a part ended or a pause point came).
// False if the job failed.
template <class Train>
bool fill_and_train(learner_ptr self, bool& trained, Train&& train) {
  auto& st = self->state;
  batch_state& b = st.fused_batch;
  b.has_start = false;
  b.trained = 0;
  status read;
  fill(st, b, read);
  if (!read) {
    fail(self, read.error());
    return false;
  }
  trained = b.mb.examples() > 0 || b.has_start;
  if (!trained)
    return true;
  if (!train(b.mb, st.source->alpha_for(b)))
    return false;
  count_trained(st, b);
  return true;
}

// Through the word partitions' exchange (--partition words): what would
// cross between partitions is counted as their messages.
bool train_next_split(learner_ptr self, bool& trained) {
  return fill_and_train(self, trained, [self](const minibatch& mb, float alpha) {
    auto& st = self->state;
    auto w = st.word_split->train(mb, alpha);
    if (!w) {
      fail(self, w.error());
      return false;
    }
    const auto t = st.word_split->take_traffic();
    const auto kind = static_cast<size_t>(message_kind::word_split_batch);
    st.unreported.wire.messages[kind] += t.batches;
    st.unreported.wire.bytes[kind] += t.vectors * st.word_split->dim() * sizeof(float) + t.index_bytes;
    return count_weights(self, *w, alpha);
  });
}

} // namespace

bool train_next(learner_ptr self, local_trainer& trainer, bool& trained) {
  return fill_and_train(self, trained, [self, &trainer](const minibatch& mb, float alpha) {
    return count_weights(self, trainer.train(mb, alpha), alpha);
  });
}

bool slice_over(learner_ptr self, clock::time_point until) {
  if (clock::now() < until)
    return false;
  // The next slice comes through the clock, not a message to itself: with a
  // self-message always waiting, a scheduler without a max-throughput
  // (CAF's default) would never give this worker to another actor, and the
  // coordinator would starve.
  auto& st = self->state;
  if (!st.fused_scheduled) {
    st.fused_scheduled = true;
    self->delayed_send(self, std::chrono::microseconds(1), run_atom::value);
  }
  return true;
}

// Trains minibatches on the local stores for one time slice; the same
// minibatches, seeds, noise words and weights as the protocol, but nothing
// is in flight, so a pause settles at the end of the current sentence.
void fused_pump(learner_ptr self) {
  auto& st = self->state;
  const auto until = clock::now() + fused_slice;
  while (st.state == mode::running || st.state == mode::pausing) {
    if (!st.mid_sentence() && (st.state == mode::pausing || !st.source->has_work()))
      break;
    bool trained = false;
    if (!(st.word_split ? train_next_split(self, trained) : train_next(self, *st.fused, trained)))
      return;
    if (trained && slice_over(self, until))
      return;
  }
  pump_settled(self);
}

} // namespace gridvec::learner
