// The learner's window of minibatches in flight: the minibatches of its
// source (src/sgns/minibatch_source.hpp) entered, counted and retired.
#include "actors/learner/learner_state.hpp"

#include <spdlog/spdlog.h>

namespace gridvec::learner {

std::vector<part_cursor> safe_cursors(const learner_state& st) { return st.source->safe_cursors(st.in_flight); }

void fill(learner_state& st, batch_state& b, status& read) { st.source->fill(b, st.state == mode::pausing, read); }

void count_trained(learner_state& st, const batch_state& b) {
  st.unreported.trained_words += b.trained;
  st.unreported.pairs += b.mb.pairs();
  st.trained_total += b.trained;
}

// Counts a minibatch as trained and forgets it.
void retire_batch(learner_state& st, const batch_state& b) {
  for (auto it = st.in_flight.begin(); it != st.in_flight.end(); ++it)
    if (it->get() == &b) {
      st.in_flight.erase(it);
      break;
    }
  count_trained(st, b);
}

// Forms the next minibatch to send, or returns nullptr when none may start
// now: not running, the window of in-flight minibatches is full (not
// counting `releasing` ones that end with the message this one will ride
// in), or the pause point or the end of the work is reached. A minibatch of
// words without context has nothing to send and is counted on the spot.
batch_ptr next_batch(learner_state& st, size_t releasing, status& read) {
  while ((st.state == mode::running || st.state == mode::pausing) &&
         st.in_flight.size() - releasing < st.cfg.in_flight) {
    if (st.state == mode::pausing && !st.mid_sentence())
      break;
    if (!st.source->has_work())
      break;
    auto b = std::make_shared<batch_state>();
    b->generation = st.generation;
    fill(st, *b, read);
    if (!read)
      return nullptr;
    if (b->mb.pairs() == 0) {
      retire_batch(st, *b);
      continue; // a part ended, the pause point was reached, or no context
    }
    return b;
  }
  return nullptr;
}

} // namespace gridvec::learner
