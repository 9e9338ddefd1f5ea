#pragma once
// The learner's state and the functions its source files share (internal
// to the learner):
//   learner_actor.cpp   the behaviour: assign, pause/resume, halt, rollback,
//                       status, reports; which path trains (choose_path)
//   in_flight.cpp       the window of minibatches in flight, filled from the
//                       minibatch source (src/sgns/minibatch_source.hpp)
//   protocol_path.cpp   minibatches in flight to the shards (dotprod, adjust,
//                       step messages) and back (src/sgns/column_step.hpp)
//   fused_path.cpp      minibatches trained on the shards' stores directly,
//                       when every lane is in this process
//   split_path.cpp      --partition words over several shards: each
//                       minibatch's shares to the shards of their input words
//   replicated_path.cpp --partition replicated: minibatches trained on this
//                       learner's own copy of the model, synchronised with
//                       the other learners every round
//                       (src/replicated/sync_round.hpp)
#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <gridvec/roles/learner.hpp>
#include "src/corpus/text_corpus.hpp"
#include "src/replicated/replica.hpp"
#include "src/replicated/sync_round.hpp"
#include "src/model/word_split_trainer.hpp"
#include "src/sgns/column_step.hpp"
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

/// A learner of --partition replicated, a host of the GraphWord2Vec paper: its copy of the
/// model and where it stands in the current synchronisation round.
struct replicated_host {
  std::unique_ptr<replica> model;
  std::unique_ptr<local_trainer> trainer; // on model->store()
  sync_round sync;                        // src/replicated/sync_round.hpp
  uint64_t round_words = 1;               // words trained per round (after subsampling)
  uint64_t round_started = 0;             // trained_total when the round began
  uint32_t loads_pending = 0;
};

//   running --pause--> pausing --(passage done, nothing in flight)--> paused
//   running --shard error--> stalled --halt--> paused --rollback/resume--> running
enum class mode { running, pausing, paused, stalled };

struct learner_state {
  learner_config cfg;
  // The vocabulary's counts (8 bytes a word); its words only where they
  // are needed, loaded from vocab_path then: a part turned into ids without
  // the vocabulary partitions (words_of). --partition replicated reads its
  // keys from the file one word at a time.
  vocabulary_counts_ptr counts;
  std::string vocab_path;
  vocabulary_ptr vocab;
  // One lane of every shard, in shard order; and the same lanes as the
  // handles of the shards' layout, the one that fits the path (choose_path).
  std::vector<shard_actor> shards;
  std::vector<column_shard_actor> column_lanes; // the protocol path
  std::vector<row_shard_actor> row_lanes;       // the split path
  std::vector<replica_shard_actor> replica_lanes;
  coordinator_actor coordinator;
  // Its parts and the minibatches cut from them (src/sgns/minibatch_source.hpp).
  std::unique_ptr<minibatch_source> source;
  std::shared_ptr<const huffman_tree> tree; // -hs 1

  mode state = mode::paused; // until work is assigned
  bool ticking = false;
  uint64_t generation = 0;
  std::deque<batch_ptr> in_flight; // in the order they were formed
  std::vector<caf::typed_response_promise<std::vector<part_cursor>>> pause_waiters;
  learner_progress unreported;
  bool reported_idle = false;
  std::unique_ptr<column_step> step; // the protocol path's weights (src/sgns/column_step.hpp)
  uint64_t trained_total = 0;
  loss_watch losses;
  clock::time_point started = clock::now();

  // Which path trains, chosen once the shards are known (choose_path):
  //   protocol    minibatches to column shards (protocol_path.cpp)
  //   fused       on the stores of this process directly (fused_path.cpp)
  //   split       shares to the row shards of their input words (split_path.cpp)
  //   replicated  on this learner's copy of the model (replicated_path.cpp)
  enum class training_path { protocol, fused, split, replicated };
  training_path path = training_path::protocol;

  // The fused path (src/sgns/local_trainer.hpp): set while every shard lane is in
  // this process; minibatches are then trained on the stores directly.
  std::unique_ptr<local_trainer> fused;
  // --partition words, on that path: the store's rows viewed as word
  // partitions and trained through their exchange (src/model/word_split_trainer.hpp).
  std::unique_ptr<word_split_trainer> word_split;
  batch_state fused_batch;
  bool fused_scheduled = false; // a `run` message is on its way

  // --partition replicated (replicated_path.cpp): set on the first assign;
  // `hosts`, the job's learners by id, come from the coordinator.
  std::unique_ptr<replicated_host> replicated;
  std::vector<learner_actor> hosts; // the job's live learners
  uint32_t host_index = 0;          // this learner's place among them
  // Round changes from hosts that began before this one had its first
  // work (a tiny round ends fast): kept until start_replicated, not lost.
  std::vector<row_block> early_changes;

  bool mid_sentence() const { return source->mid_sentence(); }
  bool idle() const {
    return !source->has_work() && in_flight.empty() &&
           (!replicated || replicated->sync.at() == sync_round::phase::finished);
  }
  static inline const char* name = "learner";
};

using learner_ptr = learner_actor::stateful_pointer<learner_state>;

/// The vocabulary's words, loaded from vocab_path the first time.
expected<vocabulary_ptr> words_of(learner_state& st);

// in_flight.cpp
/// Where each part can be restarted without skipping anything.
std::vector<part_cursor> safe_cursors(const learner_state& st);
/// Fills the next minibatch from the current passage onwards.
void fill(learner_state& st, batch_state& b, status& read);
void count_trained(learner_state& st, const batch_state& b);
/// Counts a minibatch as trained and forgets it.
void retire_batch(learner_state& st, const batch_state& b);
/// The next minibatch to send, or nullptr when none may start now.
batch_ptr next_batch(learner_state& st, size_t releasing, status& read);

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

// protocol_path.cpp
/// Sends the minibatches that may start now to the shards.
void protocol_pump(learner_ptr self);

// split_path.cpp
/// Sends the minibatches that may start now, split by the shards of their
/// input words.
void split_pump(learner_ptr self);

// fused_path.cpp
/// Trains minibatches on the local stores for one time slice.
void fused_pump(learner_ptr self);
/// Fills and trains the next minibatch on `trainer` (the fused path's and
/// the replicated mode's); `trained`: whether there was one. False if the
/// job failed.
bool train_next(learner_ptr self, local_trainer& trainer, bool& trained);
/// True once a time slice that began with `until` ahead is over; the next
/// one is then on its way.
bool slice_over(learner_ptr self, clock::time_point until);

// replicated_path.cpp
/// Makes this learner a host of the replicated mode (on its first work or
/// after a rollback): its model is loaded from the shards, then it trains.
void start_replicated(learner_ptr self);
/// Trains this round's minibatches on the host's own model, one time slice.
void replicated_pump(learner_ptr self);
/// A round's changes of rows this host is master of (from any host).
void on_round_changes(learner_ptr self, const wire_bytes& bytes);
/// A master's new values of its rows.
void on_round_values(learner_ptr self, const wire_bytes& bytes);
/// A halt: forgets the round in progress.
void forget_round(learner_state& st);

} // namespace gridvec::learner
