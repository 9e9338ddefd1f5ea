#pragma once
// The data that gridvec's actors exchange besides the Cap'n Proto training
// traffic: what a job reports about itself, its shards, learners and nodes,
// and where its learners stand in the corpus. Each type has an inspect()
// overload so that it can cross the network (registered in
// message_types.cpp under the same name on every node).
#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/options.hpp>
#include <gridvec/core/file_digest.hpp>
#include <gridvec/core/job_history.hpp>
#include <gridvec/core/part_cursor.hpp>
#include <gridvec/core/report.hpp>
#include <gridvec/core/vocabulary.hpp>

namespace gridvec {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, count_table& x) {
  return f(caf::meta::type_name("count_table"), x.words, x.lengths, x.counts, x.firsts, x.total, x.lines);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, train_options& x) {
  // Every field: an option left out here is silently back at its default
  // on the cluster (tests/job_types.test.cpp sends them all).
  return f(caf::meta::type_name("train_options"), x.train, x.output, x.size, x.window, x.negative, x.sample,
           x.min_count, x.iter, x.alpha, x.threads, x.binary, x.cbow, x.hs, x.max_vocab, x.classes, x.debug,
           x.save_vocab, x.read_vocab, x.save_model, x.init, x.shards, x.minibatch, x.in_flight, x.coalesce, x.seed,
           x.fused, x.shared_negatives, x.interleave, x.refresh_weights, x.negatives_mode, x.hierarchical_sampler,
           x.parts_per_learner, x.word_partitions, x.partition, x.visits_per_skipgram, x.partition_auto, x.explain,
           x.link_speed, x.sync_rounds, x.host_threads, x.average_combiner, x.report, x.work_dir, x.log_every,
           x.checkpoint_dir, x.checkpoint_seconds, x.checkpoint_words, x.checkpoint_failures_warn, x.checkpoint_keep,
           x.stop_cluster, x.resume, x.invalid_utf8, x.output_parts);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, part_cursor& x) {
  return f(caf::meta::type_name("part_cursor"), x.part, x.ids_path, x.words, x.epoch, x.offset, x.processed);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, file_digest& x) {
  return f(caf::meta::type_name("file_digest"), x.bytes, x.crc);
}

/// The vocabulary a job trains on, as every node can find it: a file on
/// the shared file system (vocabulary::save format) and its figures.
/// A vocabulary partition's words of count >= min-count, by count (most
/// frequent first, `words[i]` of `counts[i]`), and what it counted.
struct partition_counts {
  std::vector<uint64_t> counts;
  std::vector<uint64_t> words;
  uint64_t tokens = 0;   // every token counted, those below min-count too
  uint64_t distinct = 0; // distinct words counted, before min-count
  uint64_t spills = 0;   // sorted runs written to disk
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_counts& x) {
  return f(caf::meta::type_name("partition_counts"), x.counts, x.words, x.tokens, x.distinct, x.spills);
}

struct vocabulary_info {
  std::string path;
  uint64_t size = 0;
  uint64_t train_words = 0;    // occurrences of vocabulary words
  uint64_t raw_words = 0;      // all tokens of the corpus
  uint64_t distinct_words = 0; // before min-count
  uint64_t lines = 0;          // line ends of the corpus (word2vec.c's "</s>" count)
  uint64_t spills = 0;         // sorted runs the partitions wrote while counting
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, vocabulary_info& x) {
  return f(caf::meta::type_name("vocabulary_info"), x.path, x.size, x.train_words, x.raw_words, x.distinct_words,
           x.lines, x.spills);
}

/// How a learner trains (the job's options that concern it).
/// What a learner needs: its job's options, with the computed defaults
/// resolved for this learner (in_flight, word_partitions, sync_rounds are
/// never 0 here), and its place among the job's learners. Built only from
/// train_options, so every default is the option table's.
struct learner_config : train_options {
  uint32_t id = 0;
  uint32_t learners = 1; // of the job: all their minibatches in flight meet the same rows
  uint32_t threads = 1;  // --partition replicated: threads training this host's copy together

  learner_config() : learner_config(train_defaults(), 0, 1) {}
  learner_config(const train_options& job, uint32_t id_, uint32_t learners_)
    : train_options(job), id(id_), learners(learners_) {
    in_flight = job.in_flight_window();
    word_partitions = job.word_partitions_of(job.shards);
    // --partition replicated: this learner is host `id` of `learners`, holds
    // the whole model and synchronises sync_rounds times per epoch.
    sync_rounds = job.sync_rounds_per_epoch(learners_);
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, learner_config& x) {
  return f(caf::meta::type_name("learner_config"), static_cast<train_options&>(x), x.id, x.learners, x.threads);
}

/// What a learner reports to its coordinator a few times a second: counters
/// since its previous report, and where it stands in each part it holds.
struct learner_progress {
  uint64_t trained_words = 0; // input words after subsampling
  uint64_t pairs = 0;
  double loss_sum = 0;
  uint64_t loss_pairs = 0;
  float alpha = 0; // current learning rate
  traffic wire;
  uint64_t sync_rounds = 0; // --partition replicated: rounds completed
  // Not deltas:
  uint64_t generation = 0;          // reports of an older generation are stale
  std::vector<part_cursor> cursors; // safe restart points of its parts
  bool idle = false;                // no work left and nothing in flight
  uint32_t in_flight = 0;

  void merge_counters(const learner_progress& o) {
    trained_words += o.trained_words;
    pairs += o.pairs;
    loss_sum += o.loss_sum;
    loss_pairs += o.loss_pairs;
    wire.merge(o.wire);
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, traffic& x) {
  auto& m = x.messages;
  auto& b = x.bytes;
  static_assert(static_cast<int>(message_kind::count) == 10, "every message kind crosses the wire");
  return f(caf::meta::type_name("traffic"), m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], b[0], b[1],
           b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9]);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, learner_progress& x) {
  return f(caf::meta::type_name("learner_progress"), x.trained_words, x.pairs, x.loss_sum, x.loss_pairs, x.alpha,
           x.wire, x.sync_rounds, x.generation, x.cursors, x.idle, x.in_flight);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_traffic& x) {
  return f(caf::meta::type_name("node_traffic"), x.node, x.sent, x.received);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_memory& x) {
  return f(caf::meta::type_name("node_memory"), x.node, x.peak_rss_bytes, x.planned_bytes, x.budget_bytes);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_summary& x) {
  return f(caf::meta::type_name("job_summary"), x.raw_words, x.trained_words, x.processed_words, x.pairs, x.seconds,
           x.training_seconds, x.vocab_size, x.peak_rss_bytes, x.final_loss, x.shards, x.learners, x.dim, x.iterations,
           x.wire, x.nodes, x.recoveries, x.redone_words, x.checkpoints, x.resumed_words, x.replicated, x.sync_rounds,
           x.word_split, x.partition_auto, x.partition_reason, x.explanation, x.negatives, x.hierarchical_sampler,
           x.word_partitions, x.sampling_bytes, x.partition_sampling_bytes, x.paused_seconds,
           x.training_words_per_second, x.peak_rss_node, x.memory, x.parts, x.parts_trained);
}

/// A job as `status` shows it.
struct job_status {
  uint64_t job = 0;    // 0: no job yet
  std::string phase;   // idle, counting, ..., training, paused, recovering, exporting, done, failed, cancelled
  std::string message; // the last thing that happened, in words
  uint32_t epoch = 0;  // 1-based, of `iterations`
  uint32_t iterations = 0;
  double progress = 0; // 0..1 of the training phase
  double words_per_second = 0;
  double eta_seconds = 0; // negative: unknown (no rate yet)
  float alpha = 0;
  double loss = 0;
  double bytes_per_word = 0; // training traffic, both directions, per trained word
  uint64_t processed_words = 0;
  uint64_t total_words = 0;
  uint32_t shards = 0;
  uint32_t learners = 0;
  uint64_t vocab_size = 0;
  uint64_t last_checkpoint = 0; // sequence, 0: none
  uint32_t recoveries = 0;
  double seconds = 0; // since the job started
  // Training traffic so far, per message_kind (include/gridvec/core/report.hpp, in
  // its order): messages and Cap'n Proto bytes. For /metrics.
  std::vector<uint64_t> traffic_messages, traffic_bytes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_status& x) {
  return f(caf::meta::type_name("job_status"), x.job, x.phase, x.message, x.epoch, x.iterations, x.progress,
           x.words_per_second, x.eta_seconds, x.alpha, x.loss, x.bytes_per_word, x.processed_words, x.total_words,
           x.shards, x.learners, x.vocab_size, x.last_checkpoint, x.recoveries, x.seconds, x.traffic_messages,
           x.traffic_bytes);
}

/// One shard as `shards` shows it.
struct shard_status {
  uint32_t index = 0;
  std::string node;
  uint32_t first = 0;             // first column
  uint32_t width = 0;             // columns
  uint32_t row_shards = 0;        // --partition words: it holds the rows of words w mod row_shards = index; else 0
  uint64_t bytes = 0;             // memory of its slices
  uint64_t requests = 0;          // dotprod + adjust served so far
  double requests_per_second = 0; // since the previous `shards`
  bool alive = true;
  uint32_t lanes = 0; // actors serving its slices (a learner talks to lane id % lanes)
  uint64_t rows = 0;  // rows it holds (a slice of each)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shard_status& x) {
  return f(caf::meta::type_name("shard_status"), x.index, x.node, x.first, x.width, x.row_shards, x.bytes, x.requests,
           x.requests_per_second, x.alive, x.lanes, x.rows);
}

/// Counters a shard lane keeps.
struct shard_counters {
  uint64_t requests = 0;
  uint64_t bytes = 0; // memory of the slices
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shard_counters& x) {
  return f(caf::meta::type_name("shard_counters"), x.requests, x.bytes);
}

/// One learner as `learners` shows it.
struct learner_status {
  uint32_t id = 0;
  std::string node;
  std::string state; // training, paused, idle, lost
  std::vector<part_cursor> parts;
  uint32_t in_flight = 0;
  // Words per second done by the parts it holds, over the job's training
  // clock (the coordinator's): the learners' rates add up to the job's.
  double words_per_second = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, learner_status& x) {
  return f(caf::meta::type_name("learner_status"), x.id, x.node, x.state, x.parts, x.in_flight, x.words_per_second);
}

/// One node as `nodes` shows it.
struct node_status {
  std::string name;
  std::string address; // host:port
  std::string roles;
  bool up = true;
  uint64_t rss_bytes = 0;
  uint32_t shards = 0;             // shard lanes it hosts now
  uint32_t learners = 0;           // learner actors it hosts now
  uint64_t peak_rss_bytes = 0;     // since the process started
  uint64_t memory_limit_bytes = 0; // what the process may take (src/util/memory_limit.hpp); 0: unknown
  bool standby = false;            // a spare of the config, for lost shards
  uint64_t job_peak_rss_bytes = 0; // since the latest job on the cluster began
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_status& x) {
  return f(caf::meta::type_name("node_status"), x.name, x.address, x.roles, x.up, x.rss_bytes, x.shards, x.learners,
           x.peak_rss_bytes, x.memory_limit_bytes, x.standby, x.job_peak_rss_bytes);
}

/// A word and its cosine similarity to a query.
struct neighbour {
  std::string word;
  float score = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, neighbour& x) {
  return f(caf::meta::type_name("neighbour"), x.word, x.score);
}

/// A checkpoint that has been written.
struct checkpoint_info {
  uint64_t sequence = 0;
  std::string path;
  double seconds = 0; // how long writing it took (learners paused)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, checkpoint_info& x) {
  return f(caf::meta::type_name("checkpoint_info"), x.sequence, x.path, x.seconds);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, history_point& x) {
  return f(caf::meta::type_name("history_point"), x.seconds, x.span, x.progress, x.words_per_second, x.loss, x.pairs,
           x.alpha);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, phase_span& x) {
  return f(caf::meta::type_name("phase_span"), x.phase, x.from, x.to);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, history_mark& x) {
  return f(caf::meta::type_name("history_mark"), x.seconds, x.label);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_event& x) {
  return f(caf::meta::type_name("job_event"), x.sequence, x.seconds, x.unix_ms, x.level, x.text);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_history& x) {
  return f(caf::meta::type_name("job_history"), x.job, x.started_unix_ms, x.seconds, x.interval, x.capacity, x.points,
           x.phases, x.marks, x.events, x.events_total, x.nodes);
}

} // namespace gridvec
