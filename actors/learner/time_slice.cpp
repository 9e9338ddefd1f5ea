// Training on stores in this process, one slice of time at a time: the
// fused path's (actors/layouts/columns/fused_path.cpp) and the replicated
// path's way. A slice ends by the clock so that the mailbox (pause,
// status, reports) gets in between.
#include "actors/learner/learner_state.hpp"

namespace gridvec::learner {

bool fill_next(learner_state& st, batch_state& b, status& read) {
  b.has_start = false;
  b.trained = 0;
  st.source->fill(b, st.state == mode::pausing, read);
  return read && (b.mb.examples() > 0 || b.has_start);
}

bool fill_and_train(learner_ptr self, bool& trained, const std::function<bool(const minibatch&, float)>& train) {
  auto& st = self->state;
  batch_state& b = st.fused_batch;
  status read;
  trained = fill_next(st, b, read);
  if (!read) {
    fail(self, read.error());
    return false;
  }
  if (!trained)
    return true;
  if (!train(b.mb, st.source->alpha_for(b)))
    return false;
  st.source->count_trained(b);
  return true;
}

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

} // namespace gridvec::learner
