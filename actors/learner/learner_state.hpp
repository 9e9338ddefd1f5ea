#pragma once
// The learner's state and the functions its source files share (internal
// to the learner):
//   learner_actor.cpp   the behaviour: assign, pause/resume, halt, rollback,
//                       status, reports
//   time_slice.cpp      training on stores in this process, one slice of
//                       time at a time (the fused and replicated paths')
//   training_path.hpp   the path that trains, one per layout, defined in
//                       its folder under actors/layouts/:
//     columns/protocol_path.cpp   minibatches in flight to the column
//                                 shards and back (src/sgns/column_step.hpp)
//     columns/fused_path.cpp      trained on the shards' stores directly,
//                                 when every lane is in this process
//     rows/split_path.cpp         each minibatch's shares to the row shards
//                                 of their input words
//     replica/replicated_path.cpp this learner's own copy of the model,
//                                 synchronised with the others every round
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gridvec/roles/learner.hpp>
#include "actors/learner/training_path.hpp"
#include "src/corpus/text_corpus.hpp"
#include "src/sgns/local_trainer.hpp"
#include "src/sgns/minibatch_source.hpp"
#include "src/sgns/sgns.hpp"

namespace gridvec::learner {

using clock = std::chrono::steady_clock;
inline constexpr auto report_interval = std::chrono::milliseconds(200);
inline constexpr auto sync_timeout = std::chrono::seconds(60);
// The fused path trains for at most this long before it lets the mailbox in
// (pause, status, reports), by sending itself a `run` message.
inline constexpr auto fused_slice = std::chrono::milliseconds(5);

//   running --pause--> pausing --(passage done, nothing in flight)--> paused
//   running --shard error--> stalled --halt--> paused --rollback/resume--> running
enum class mode { running, pausing, paused, stalled };

struct learner_state {
  learner_config cfg;
  // The vocabulary's counts (8 bytes a word), never its words on a node:
  // parts become ids through the vocabulary partitions, and --partition
  // replicated reads its keys from vocab_path one word at a time. `vocab`
  // is set only where the caller has the words already (one process).
  vocabulary_counts_ptr counts;
  std::string vocab_path;
  vocabulary_ptr vocab;
  // One lane of every shard, in shard order.
  std::vector<shard_actor> shards;
  coordinator_actor coordinator;
  // Its parts, the minibatches cut from them and the window of those in
  // flight (src/sgns/minibatch_source.hpp).
  std::unique_ptr<minibatch_source> source;
  std::shared_ptr<const huffman_tree> tree; // -hs 1

  mode state = mode::paused; // until work is assigned
  bool ticking = false;
  uint64_t generation = 0;
  std::vector<caf::typed_response_promise<std::vector<part_cursor>>> pause_waiters;
  learner_progress unreported;
  bool reported_idle = false;
  loss_watch losses;
  clock::time_point started = clock::now();

  // The path that trains (training_path.hpp), made by the shards' layout.
  shard_layout layout = shard_layout::columns;
  std::unique_ptr<training_path> path;
  // The time-sliced paths' (time_slice.cpp): the minibatch being trained,
  // and whether a `run` message is on its way.
  batch_state fused_batch;
  bool fused_scheduled = false;

  // The job's live learners, from the coordinator, and this one's place
  // among them: the hosts of a layout whose learners share rounds.
  std::vector<learner_actor> hosts;
  uint32_t host_index = 0;

  bool mid_sentence() const { return source->mid_sentence(); }
  bool idle() const { return !source->has_work() && source->in_flight().empty() && !(path && path->busy()); }
  /// The next minibatch to send, entered in the window
  /// (minibatch_source::next_in_flight), or nullptr when none may start
  /// now: new ones start while running, or pausing until the sentence ends.
  batch_ptr next_batch(size_t releasing, status& read) {
    if (state != mode::running && state != mode::pausing)
      return nullptr;
    return source->next_in_flight(cfg.in_flight, releasing, state == mode::pausing, generation, read);
  }
  static inline const char* name = "learner";
};

// learner_actor.cpp
void report(learner_ptr self, bool force);
void fail(learner_ptr self, const std::string& what);
/// A request to a shard failed: a lost shard stalls the learner until the
/// coordinator halts it (stale requests of an older generation are
/// ignored); any other error fails the job.
void on_shard_error(learner_ptr self, uint64_t generation, const caf::error& err);
/// A pause requested is reached: answers the waiters.
void settle_pause(learner_ptr self);
/// Counts a minibatch's loss; false (and the job failed) if it diverged.
bool count_weights(learner_ptr self, const weight_result& w, float alpha);
/// Trains what may be trained now, on whichever path this learner uses.
void pump(learner_ptr self);
/// The end of a path's pump: a pause that is reached settles, and a
/// learner left with nothing to do says so once.
void pump_settled(learner_ptr self);

// time_slice.cpp
/// Fills `b` with the source's next minibatch; false where there is none
/// to train (a part ended or a pause point came) or the read failed
/// (`read` says so). Reads only this learner's source: its actor's thread.
bool fill_next(learner_state& st, batch_state& b, status& read);
/// Fills the next minibatch and trains it with train(mb, alpha), which
/// counts its weights and says whether the job goes on; `trained`: whether
/// there was one (none where a part ended or a pause point came). False if
/// the job failed.
bool fill_and_train(learner_ptr self, bool& trained, const std::function<bool(const minibatch&, float)>& train);
/// The same, trained on `trainer` (the fused path's and the replicated
/// mode's).
bool train_next(learner_ptr self, local_trainer& trainer, bool& trained);
/// True once a time slice that began with `until` ahead is over; the next
/// one is then on its way.
bool slice_over(learner_ptr self, clock::time_point until);

// actors/layouts/replica/replicated_path.cpp: the messages of learners
// that share rounds (their path's), refused on any other path.
/// The hosts changed (learner_state::hosts).
void on_hosts(learner_ptr self);
/// A round's changes of rows this host is master of (from any host).
void on_round_changes(learner_ptr self, const wire_bytes& bytes);
/// A master's new values of its rows.
void on_round_values(learner_ptr self, const wire_bytes& bytes);

} // namespace gridvec::learner
