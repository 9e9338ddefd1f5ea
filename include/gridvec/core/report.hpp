#pragma once
// (Public header of src/formats/report.cpp.)
// What a finished job reports: the figures of --report (JSON) and of the
// closing log line. Message accounting is per message kind, in encoded
// (Cap'n Proto) bytes, so it can be checked against the Network-efficient word2vec paper's formula (7).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

// The replicated mode's round messages (src/replicated/row_block.hpp):
// round_changes host -> master, round_values master -> host, round_store
// master -> shard. word_split_batch: what --partition words's partitions
// exchange (src/model/word_split.hpp), counted at the learner whose
// minibatch they train; split_train_*: learner <-> the shard that owns a
// share's input words.
enum class message_kind : int {
  dotprod_request,
  dotprod_reply,
  adjust_request,
  adjust_reply,
  round_changes,
  round_values,
  round_store,
  word_split_batch,    // --partition words: a batch of input vectors to another partition, and its gradients back
  split_train_request, // --partition words across shards: a learner's examples to the shard of their input words
  split_train_reply,
  count
};

const char* message_kind_name(message_kind k);

struct traffic {
  std::array<uint64_t, static_cast<size_t>(message_kind::count)> messages{};
  std::array<uint64_t, static_cast<size_t>(message_kind::count)> bytes{};
  void add(message_kind k, uint64_t n) {
    messages[static_cast<size_t>(k)] += 1;
    bytes[static_cast<size_t>(k)] += n;
  }
  /// Bytes of a kind that travel inside a message of another kind (an
  /// adjust request riding on the next dotprod request): no message of
  /// their own.
  void add_part(message_kind k, uint64_t n) { bytes[static_cast<size_t>(k)] += n; }
  void merge(const traffic& o) {
    for (size_t i = 0; i < messages.size(); ++i) {
      messages[i] += o.messages[i];
      bytes[i] += o.bytes[i];
    }
  }
};

/// Training traffic of one node of a cluster, in encoded bytes.
struct node_traffic {
  std::string node;
  traffic sent;
  traffic received;
};

/// One node's memory over a job: its process's peak resident set since the
/// job began, beside what the memory plan said it would need and its budget.
struct node_memory {
  std::string node;
  uint64_t peak_rss_bytes = 0;
  uint64_t planned_bytes = 0; // 0: not planned (the job ended before placing)
  uint64_t budget_bytes = 0;  // 0: unknown
};

struct job_summary {
  uint64_t raw_words = 0;       // tokens in the corpus (one pass)
  uint64_t trained_words = 0;   // input words after subsampling, all epochs
  uint64_t processed_words = 0; // in-vocabulary words read, all epochs
  uint64_t pairs = 0;           // positive pairs trained
  double seconds = 0;           // whole run, wall clock
  double training_seconds = 0;  // training phase only, pauses left out
  double paused_seconds = 0;    // paused (the shell's pause), within `seconds`
  // In-vocabulary words trained per second of training_seconds, by this
  // run: the figure the progress line, status and /status show.
  double training_words_per_second = 0;
  uint64_t vocab_size = 0;
  uint64_t peak_rss_bytes = 0;     // a cluster: the largest node's
  std::string peak_rss_node;       // a cluster: which node that is
  std::vector<node_memory> memory; // every node's (the coordinator asks them as the job ends)
  double final_loss = 0;           // mean SGNS loss per positive pair, last stretch
  std::string error;               // why the job failed (a report of a diverged run); empty: it did not
  uint32_t shards = 0;
  uint32_t learners = 0;
  uint32_t dim = 0;
  uint32_t iterations = 0;
  traffic wire;
  std::vector<node_traffic> nodes;     // cluster jobs only
  uint32_t parts = 0;                  // corpus parts trained (the work queue's)
  std::vector<uint64_t> parts_trained; // per learner: the parts' epochs it trained (work queue leases ended)
  uint32_t recoveries = 0;             // shards restored from a checkpoint
  uint64_t redone_words = 0;           // words trained again after rollbacks
  uint32_t checkpoints = 0;            // checkpoints written
  uint64_t resumed_words = 0;          // words already done by the checkpoint a job resumed from
  bool replicated = false;             // --partition replicated
  bool word_split = false;             // --partition words
  bool partition_auto = false;         // the partition was --partition auto's: the cost model chose it
  std::string partition_reason;        // ... and why (src/model/partition_choice.hpp)
  std::string explanation;             // --explain: the model's table; the job trained nothing
  uint64_t sync_rounds = 0;            // ... synchronisation rounds done
  // Noise words (--negatives, --sampler, --word-partitions): how they were
  // drawn, and the memory of the sampling tables -- per shard, and what
  // one word partition would hold with the vectors split by word.
  std::string negatives = "bns";
  bool hierarchical_sampler = false;
  uint32_t word_partitions = 1;
  uint64_t sampling_bytes = 0; // the largest shard's
  uint64_t partition_sampling_bytes = 0;

  /// Corpus words per second over the whole run, as peers count them:
  /// raw_words * iterations / (seconds - paused_seconds) (of a resumed job:
  /// only the share of the training this run did).
  double words_per_second() const {
    const double running = seconds - paused_seconds;
    if (running <= 0 || processed_words == 0)
      return 0;
    const double share =
      1.0 - static_cast<double>(std::min(resumed_words, processed_words)) / static_cast<double>(processed_words);
    return static_cast<double>(raw_words) * iterations * share / running;
  }
};

std::string to_json(const job_summary& s);
status write_report(const std::string& path, const job_summary& s);
/// The report of a job that failed with `error` (a diverged run): what is
/// known of it, "error", and a null final_loss.
status write_failure_report(const std::string& path, job_summary s, const std::string& error);
/// True for the error line of a run whose vectors blew up.
bool is_divergence(const std::string& error);

/// Peak resident set size of this process so far.
uint64_t peak_rss_bytes();
/// Peak resident set size since the last reset_peak_rss() (Linux's VmHWM);
/// 0 where the system does not say.
uint64_t peak_rss_since_reset();
/// Starts the peak over from the resident set now (a node's next job), so
/// that each job's report shows its own peak; false where the system
/// cannot (then the peak stays the process's).
bool reset_peak_rss();
/// Resident set size of this process now.
uint64_t current_rss_bytes();

} // namespace gridvec
