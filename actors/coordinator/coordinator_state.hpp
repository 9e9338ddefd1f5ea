#pragma once
// The coordinator's state and the functions its source files share
// (internal to the coordinator; not installed as a public header):
//   coordinator_actor.cpp     the behaviour, progress, ticks; finish and fail
//   *_phase.cpp               one file per phase of a job (phases.hpp)
//   coordinator_recovery.cpp  pause/resume, checkpoints, lost shards/learners
//   coordinator_queries.cpp   status, shards, learners, nearest, analogy, vector
#include <chrono>
#include <optional>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gridvec/roles/coordinator.hpp>
#include <gridvec/roles/vocabulary.hpp>
#include "src/corpus/vocabulary_counts.hpp"
#include "src/corpus/work_queue.hpp"
#include "src/formats/checkpoint.hpp"
#include "src/corpus/text_corpus.hpp"
#include "src/util/event_log.hpp"
#include "src/util/history_buffer.hpp"

namespace gridvec {

using coordinator_clock = std::chrono::steady_clock;

enum class job_phase {
  starting,
  counting,
  vocabulary,
  placing,
  preprocessing,
  training,
  pausing,
  paused,
  checkpointing,
  recovering,
  exporting,
  done,
  failed,
  cancelled
};

const char* phase_name(job_phase p);

struct coordinator_state {
  uint64_t job_id = 0;
  train_options opt;
  std::vector<job_node> nodes;
  progress_sink sink;
  placing_hook before_placing; // called once, as placing begins
  bool keep_shards = false;
  bool choose_shards = false;         // no --shards given: placement picks S (src/model/memory_plan.hpp)
  bool budgets_known = false;         // os_memory is filled in (fetch_budgets)
  std::vector<uint64_t> os_memory;    // per node without a configured `memory`: what its OS reports
  std::vector<uint64_t> planned_need; // per node: the memory plan's need (the report shows it)
  job_phase phase = job_phase::starting;
  std::string message; // the last event, in words (status shows it)
  coordinator_clock::time_point started, training_started;
  // The training clock. Words/s is the words done since training began in
  // this run (a resumed job: since its checkpoint) over the seconds it
  // trained, paused time left out, up to the end of training; a recovery
  // does not restart it (its lost time and re-done words count against the
  // rate). The progress line, status, /status, the report's
  // training_words_per_second and each learner's share are all this figure.
  coordinator_clock::time_point rate_started;          // words/s counts from here ...
  uint64_t words_at_start = 0;                         // ... and from this many words done
  std::vector<uint64_t> part_words_at_start;           // ... cursors[p].processed then
  coordinator_clock::time_point paused_since;          // {} unless paused
  coordinator_clock::duration paused_for{};            // the pauses that ended
  coordinator_clock::time_point training_ended, ended; // {} until training, the job, end
  caf::typed_response_promise<job_summary> done;
  bool finished = false; // `run` has been answered

  // The model and the actors that train it.
  std::vector<vocabulary_partition_actor> vocab_partitions; // one per vocabulary node, until the vocabulary is built
  uint64_t counted_tokens = 0;                              // what the count workers counted of the corpus
  uint64_t counted_lines = 0;
  uint64_t listed_words = 0; // the words a vocabulary file listed (-read-vocab, --init)
  vocabulary_info vocab;
  uint32_t vocab_crc = 0;
  // The counts file's header once the vocabulary is known (its size and
  // train words, for --resume); not the counts, 8 bytes a word that only
  // the shards and learners need (the partition model loads them for a
  // moment where it sizes the sampling tables).
  std::optional<vocabulary_counts_header> counts;
  vocabulary_ptr words;  // its words, if small: loaded by the first query (query_ids, phases.hpp)
  std::string init_rows; // --init's row map (src/corpus/model_row_map.hpp); empty: shards match by word
  std::vector<shard_info> shards;
  std::vector<size_t> shard_node; // node index of each shard
  std::vector<learner_actor> learners;
  std::vector<size_t> learner_node;
  std::vector<uint32_t> learner_threads; // --partition replicated: each host's (else 1 each)
  uint32_t learner_threads_in_all() const {
    uint32_t n = 0;
    for (uint32_t t : learner_threads)
      n += t;
    return n;
  }
  std::vector<bool> learner_alive;
  std::vector<bool> learner_idle;
  std::vector<traffic> learner_wire;    // each learner's training traffic
  std::vector<uint64_t> learner_rounds; // --partition replicated: rounds each learner took part in
  supervisor_actor supervisor;
  std::vector<caf::actor> spawned; // everything to stop at the end

  // The corpus parts: --parts-per-learner per learner, handed out as a
  // work queue (src/corpus/work_queue.hpp), a part's epoch at a time; with
  // --partition replicated one fixed part per learner, handed over when a
  // learner is lost. cursors[p] is the latest safe position of part p.
  std::vector<byte_range> ranges;
  std::vector<byte_range> count_ranges; // counting: one range per learner
  std::vector<part_cursor> cursors;
  std::vector<uint32_t> owner; // learner holding each part; work_queue::nobody: none
  std::optional<work_queue> queue;
  std::vector<uint64_t> learner_words; // words each learner trained since the training clock started
  uint64_t generation = 0;             // learner reports of older generations are stale
  std::string work_dir;
  bool own_work_dir = false;

  // What --partition auto's cost model knows of the cluster
  // (src/model/partition_choice.hpp). gridvec train has no link and no
  // limit; a cluster job is to set these from the links it measured
  // (docs/netlab.md) and its shard nodes' memory. --link-speed overrides
  // the link.
  double measured_link_speed = 0;   // bytes/s; 0: none measured
  uint64_t shard_memory_budget = 0; // bytes a shard may hold; 0: unknown

  // Checkpoints.
  std::optional<checkpoint_store> store;
  uint64_t next_sequence = 1;
  uint64_t last_checkpoint = 0;
  coordinator_clock::time_point last_checkpoint_time;
  uint64_t words_at_last_checkpoint = 0;
  uint64_t checkpoint_attempt = 0; // a newer attempt (or a recovery) voids older callbacks
  std::vector<caf::typed_response_promise<checkpoint_info>> checkpoint_waiters;
  std::vector<std::pair<uint64_t, double>> loss_history;

  // Requests to every learner that wait for all answers (pause, halt); a
  // learner lost meanwhile counts as having answered.
  struct learner_round {
    std::set<uint32_t> waiting;
    bool ok = true;
    std::function<void(bool)> then;
  };
  std::vector<std::shared_ptr<learner_round>> rounds;

  // Recovery.
  std::map<uint32_t, uint32_t> lost_shards; // shard -> node to restore it on
  std::map<uint32_t, uint32_t> halting_for; // lost shards of the halt under way
  std::set<size_t> lost_nodes;              // nodes that died in this job: nobody waits on them again
  bool learners_halted = false;             // by this recovery, not resumed since
  std::string lost_learner;                 // --partition replicated: whose loss began the recovery
  std::vector<uint32_t> restoring;          // shards placed anew in this recovery
  bool resuming = false;                    // restoring for --resume, not after a loss
  uint64_t resumed_words = 0;               // words done before --resume
  std::set<uint64_t> bad_checkpoints;       // failed to load during this run
  coordinator_clock::time_point recovery_started;
  uint64_t words_before_recovery = 0;

  // Counters.
  job_summary summary;
  learner_progress totals; // summed counters of all learners (this generation)
  float alpha = 0;
  double recent_loss = 0; // since the previous progress line
  uint64_t recent_pairs = 0;
  double last_loss = 0;
  bool tty = false;
  bool printed_progress_line = false;
  coordinator_clock::time_point last_line;      // of the progress line printed here
  coordinator_clock::time_point last_sink_line; // of the one sent to the sink
  std::vector<uint64_t> shard_requests_seen;    // for requests/s in `shards`
  coordinator_clock::time_point shard_stats_time;

  // What a dashboard shows of the run (coordinator_history.cpp).
  history_buffer history;
  event_log events;
  uint64_t marked_checkpoint = 0; // the last checkpoint put on the curves
  uint32_t marked_recoveries = 0; // recoveries whose span is on the curves
  bool recovery_seen = false;     // a tick saw the recovery under way
  int64_t started_unix_ms = 0;

  /// Takes the cursors learner `l` reports (progress, pause, halt) for the
  /// parts it owns; others are stale (a part moved to another learner).
  void adopt_cursors(uint32_t l, const std::vector<part_cursor>& reported) {
    for (const auto& c : reported)
      if (c.part < cursors.size() && owner[c.part] == l) {
        if (c.processed > cursors[c.part].processed && l < learner_words.size())
          learner_words[l] += c.processed - cursors[c.part].processed;
        cursors[c.part] = c;
      }
  }
  uint64_t processed_words() const {
    uint64_t n = 0;
    for (const auto& c : cursors)
      n += c.processed;
    return n;
  }
  uint64_t total_words() const {
    uint64_t n = 0;
    for (const auto& c : cursors)
      n += c.words;
    return n * opt.iter;
  }
  /// Seconds paused up to `now`.
  double paused_seconds(coordinator_clock::time_point now) const {
    auto d = paused_for;
    if (paused_since != coordinator_clock::time_point{} && now > paused_since)
      d += now - paused_since;
    return std::chrono::duration<double>(d).count();
  }
  /// Seconds trained since rate_started, pauses left out.
  double active_training_seconds() const {
    if (rate_started == coordinator_clock::time_point{})
      return 0;
    const auto end = training_ended != coordinator_clock::time_point{} ? training_ended : coordinator_clock::now();
    const double s = std::chrono::duration<double>(end - rate_started).count() - paused_seconds(end);
    return s > 0 ? s : 0;
  }
  /// Words done since rate_started by learner `l` (the words its reports
  /// moved its parts' cursors on by, whichever parts it held), or by all
  /// parts (l < 0).
  uint64_t words_since_start(int64_t l = -1) const {
    if (l >= 0)
      return static_cast<size_t>(l) < learner_words.size() ? learner_words[l] : 0;
    uint64_t n = 0;
    for (size_t p = 0; p < cursors.size(); ++p) {
      const uint64_t base = p < part_words_at_start.size() ? part_words_at_start[p] : 0;
      n += cursors[p].processed > base ? cursors[p].processed - base : 0;
    }
    return n;
  }
  /// Starts the training clock now, from the words done so far.
  void start_rate_clock() {
    rate_started = coordinator_clock::now();
    words_at_start = processed_words();
    part_words_at_start.clear();
    for (const auto& c : cursors)
      part_words_at_start.push_back(c.processed);
    learner_words.assign(learners.size(), 0);
  }
  bool training_like() const {
    return phase == job_phase::training || phase == job_phase::pausing || phase == job_phase::paused ||
           phase == job_phase::checkpointing || phase == job_phase::recovering;
  }
  static inline const char* name = "coordinator";
};

using coordinator_ptr = coordinator_actor::stateful_pointer<coordinator_state>;

// coordinator_actor.cpp, training_phase.cpp, export_phase.cpp, placement_phase.cpp
void say(coordinator_ptr self, const std::string& line);
void warn(coordinator_ptr self, const std::string& line);
void fail(coordinator_ptr self, const caf::error& err);
inline auto fail_with(coordinator_ptr self) {
  return [self](caf::error& err) { fail(self, err); };
}
template <class Handle>
void track(coordinator_ptr self, const Handle& h) {
  self->state.spawned.push_back(caf::actor_cast<caf::actor>(h));
}
/// Lane i % lanes of every shard: the shards as learner i talks to them.
std::vector<shard_actor> lanes_for(const coordinator_state& st, uint32_t learner);
/// --partition replicated: the learners still alive, the job's hosts.
std::vector<caf::actor> live_hosts(const coordinator_state& st);
/// Hands out the parts whose owner is lost to live learners (fewest parts
/// first); with the work queue, the next part to every live learner that
/// holds none. Returns the parts that moved, by new owner.
std::vector<std::vector<part_cursor>> rebalance_parts(coordinator_state& st);
/// Takes learner l's reported cursors; with the work queue, the leases they
/// end go back and the learners without work get the next parts.
void take_reported_parts(coordinator_ptr self, uint32_t l, const std::vector<part_cursor>& reported);
/// The work queue: every live learner without a part takes the next one.
void hand_out_parts(coordinator_ptr self);
void check_training_done(coordinator_ptr self);
void run_export(coordinator_ptr self);
/// (Re-)places shard s on node n; then(shard_info) or fail the job.
void place_shard(coordinator_ptr self, uint32_t s, size_t n, std::function<void()> then);
/// Connects the shards that talk to each other, as their layout asks
/// (after placement and after a restore); then `then`.
void connect_shards(coordinator_ptr self, std::function<void()> then);

// coordinator_recovery.cpp
/// Sends `ask(id, done)` to every live learner; `then(all ok)` runs once
/// every one has called done(ok) or been lost.
void learner_round(coordinator_ptr self, std::function<void(uint32_t, std::function<void(bool)>)> ask,
                   std::function<void(bool)> then);
/// Loads the newest usable checkpoint into every shard (falling back to
/// older ones, and to the initial vectors when recovering without any),
/// rolls the learners back to its cursors and resumes training.
void restore_latest(coordinator_ptr self);
void pause_learners(coordinator_ptr self, std::function<void(bool)> then);
void resume_learners(coordinator_ptr self);
/// Writes a checkpoint (pausing training meanwhile); answers `rp` if valid.
void take_checkpoint(coordinator_ptr self, std::optional<caf::typed_response_promise<checkpoint_info>> rp);
void maybe_checkpoint(coordinator_ptr self);
void on_shard_lost(coordinator_ptr self, uint32_t shard, uint32_t node);
void on_learner_lost(coordinator_ptr self, uint32_t learner, const std::string& why);

// coordinator_history.cpp
/// A line of the job's event log (say and warn add theirs).
void note_event(coordinator_state& st, const char* level, const std::string& text);
/// Takes a point of the curves if one is due, the phase and a new checkpoint.
void record_history(coordinator_state& st);
job_history make_history(const coordinator_state& st);

// training_phase.cpp
/// Bytes each node sent and received during training so far, by message kind.
std::vector<node_traffic> traffic_per_node(const coordinator_state& st);

// coordinator_queries.cpp
/// The progress line, to the sink (progress_prefix) and to this process's
/// terminal or log; `to_log` false: to the sink only.
void print_progress(coordinator_ptr self, bool final_line, bool to_log = true);
job_status make_status(const coordinator_state& st);
/// Words per second of training so far (the training clock's figure).
double training_rate(const coordinator_state& st);
void query_shards(coordinator_ptr self, caf::typed_response_promise<std::vector<shard_status>> rp);
void query_learners(coordinator_ptr self, caf::typed_response_promise<std::vector<learner_status>> rp);
void query_similar(coordinator_ptr self, std::vector<std::string> words, std::vector<float> signs, uint32_t k,
                   caf::typed_response_promise<std::vector<neighbour>> rp);
void query_vector(coordinator_ptr self, const std::string& word, caf::typed_response_promise<wire_bytes> rp);

} // namespace gridvec
