#pragma once
// The messages between gridvec's actors, as typed interfaces, one per role.
//
//   coordinator --count/build--> vocabulary --count--> count workers
//   coordinator --preprocess/train--> learner --dotprod/adjust--> shard lanes
//   learner --progress--> coordinator
//   coordinator --export--> exporter --rows--> shard lanes
//
// Training traffic (dotprod, adjust and their replies) is Cap'n Proto bytes
// (schema/minibatch.capnp) so that it is the same in one process and across
// the network; every other message type has an inspect() overload so that
// it can cross the network too.
#include <caf/all.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/options.hpp"
#include "src/report.hpp"
#include "src/vocabulary.hpp"
#include "src/wire.hpp"

namespace gridvec {

using count_atom = caf::atom_constant<caf::atom("count")>;
using build_atom = caf::atom_constant<caf::atom("build")>;
using preprocess_atom = caf::atom_constant<caf::atom("preproc")>;
using train_atom = caf::atom_constant<caf::atom("train")>;
using dotprod_atom = caf::atom_constant<caf::atom("dotprod")>;
using adjust_atom = caf::atom_constant<caf::atom("adjust")>;
using rows_atom = caf::atom_constant<caf::atom("rows")>;
using progress_atom = caf::atom_constant<caf::atom("progress")>;
using export_atom = caf::atom_constant<caf::atom("export")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using run_atom = caf::atom_constant<caf::atom("run")>;
using merge_atom = caf::atom_constant<caf::atom("merge")>;
using new_counter_atom = caf::atom_constant<caf::atom("newcounter")>;
using new_vocab_atom = caf::atom_constant<caf::atom("newvocab")>;
using new_shard_atom = caf::atom_constant<caf::atom("newshard")>;
using new_learner_atom = caf::atom_constant<caf::atom("newlearner")>;
using new_export_atom = caf::atom_constant<caf::atom("newexport")>;
using status_atom = caf::atom_constant<caf::atom("status")>;
using submit_atom = caf::atom_constant<caf::atom("submit")>;
using link_atom = caf::atom_constant<caf::atom("link")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using line_atom = caf::atom_constant<caf::atom("line")>;

using vocabulary_ptr = std::shared_ptr<const vocabulary>;

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, count_table& x) {
  return f(caf::meta::type_name("count_table"), x.words, x.counts, x.total);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, train_options& x) {
  return f(caf::meta::type_name("train_options"), x.train, x.output, x.size, x.window, x.negative,
           x.sample, x.min_count, x.iter, x.alpha, x.threads, x.binary, x.cbow, x.max_vocab,
           x.shards, x.minibatch, x.in_flight, x.seed, x.report, x.work_dir, x.log_every, x.stop_cluster);
}

/// The vocabulary a job trains on, as every node can find it: a file on
/// the shared file system (vocabulary::save format) and its figures.
struct vocabulary_info {
  std::string path;
  uint64_t size = 0;
  uint64_t train_words = 0;    // occurrences of vocabulary words
  uint64_t raw_words = 0;      // all tokens of the corpus
  uint64_t distinct_words = 0; // before min-count
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, vocabulary_info& x) {
  return f(caf::meta::type_name("vocabulary_info"), x.path, x.size, x.train_words, x.raw_words,
           x.distinct_words);
}

/// How a learner trains (the job's options that concern it).
struct learner_config {
  uint32_t id = 0;
  uint32_t window = 5;
  uint32_t negatives = 5;
  uint32_t minibatch_words = 32;
  uint32_t in_flight = 4;
  uint32_t iterations = 5;
  bool cbow = false;
  float start_alpha = 0.025f;
  double sample = 1e-3;
  uint64_t seed = 1;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, learner_config& x) {
  return f(caf::meta::type_name("learner_config"), x.id, x.window, x.negatives, x.minibatch_words,
           x.in_flight, x.iterations, x.cbow, x.start_alpha, x.sample, x.seed);
}

/// Counters a learner reports while it trains (deltas since its last report)
/// and, summed, when it is done.
struct learner_progress {
  uint64_t processed_words = 0; // in-vocabulary words read
  uint64_t trained_words = 0;   // after subsampling
  uint64_t pairs = 0;
  double loss_sum = 0;
  uint64_t loss_pairs = 0;
  float alpha = 0;              // current learning rate
  traffic wire;

  void merge(const learner_progress& o) {
    processed_words += o.processed_words;
    trained_words += o.trained_words;
    pairs += o.pairs;
    loss_sum += o.loss_sum;
    loss_pairs += o.loss_pairs;
    wire.merge(o.wire);
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, traffic& x);

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, learner_progress& x) {
  return f(caf::meta::type_name("learner_progress"), x.processed_words, x.trained_words, x.pairs,
           x.loss_sum, x.loss_pairs, x.alpha, x.wire);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, traffic& x) {
  auto& m = x.messages;
  auto& b = x.bytes;
  return f(caf::meta::type_name("traffic"), m[0], m[1], m[2], m[3], b[0], b[1], b[2], b[3]);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_traffic& x) {
  return f(caf::meta::type_name("node_traffic"), x.node, x.sent, x.received);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_summary& x) {
  return f(caf::meta::type_name("job_summary"), x.raw_words, x.trained_words, x.processed_words,
           x.pairs, x.seconds, x.training_seconds, x.vocab_size, x.peak_rss_bytes, x.final_loss,
           x.shards, x.learners, x.dim, x.iterations, x.wire, x.nodes);
}

// --- typed interfaces -------------------------------------------------------

/// One lane of a shard. A shard is a column slice (shard_store) served by
/// several lanes that share it without locks, so that one shard can use
/// several cores (Hogwild, as word2vec.c's threads).
///   dotprod: DotprodRequest bytes -> DotprodReply bytes
///   adjust:  AdjustRequest bytes  -> AdjustReply bytes
///   rows:    (first word, end word) -> the slice of those words' input
///            vectors, row-major little-endian float32 (export only)
/// Errors: a malformed message or an out-of-range id -> runtime_error.
using shard_actor = caf::typed_actor<
  caf::replies_to<dotprod_atom, wire_bytes>::with<wire_bytes>,
  caf::replies_to<adjust_atom, wire_bytes>::with<wire_bytes>,
  caf::replies_to<rows_atom, uint32_t, uint32_t>::with<wire_bytes>>;

/// Counts one byte range of a corpus where the data is:
///   (path, begin, end) -> that range's word counts
/// Errors: unreadable corpus, binary data, invalid UTF-8 -> runtime_error.
using count_worker_actor = caf::typed_actor<
  caf::replies_to<count_atom, std::string, uint64_t, uint64_t>::with<count_table>>;

/// The vocabulary (reduce side of the count map-reduce):
///   merge: one part's counts -> distinct words so far
///   build: (min count, max size, file) -> the vocabulary, ids fixed by
///          frequency and saved to the file for every node to load
/// Errors: empty corpus, empty vocabulary, unwritable file -> runtime_error.
using vocabulary_actor = caf::typed_actor<
  caf::replies_to<merge_atom, count_table>::with<uint64_t>,
  caf::replies_to<build_atom, uint64_t, uint64_t, std::string>::with<vocabulary_info>>;

/// A learner:
///   preprocess: (corpus, begin, end, ids file) -> words written; turns its
///               part of the corpus into word ids on disk
///   train:      runs every epoch over its part -> its totals
using learner_actor = caf::typed_actor<
  caf::replies_to<preprocess_atom, std::string, uint64_t, uint64_t, std::string>::with<uint64_t>,
  caf::replies_to<train_atom>::with<learner_progress>,
  caf::reacts_to<tick_atom>>; // internal: the watchdog on shard replies

/// The exporter: (path, binary) -> rows written. Streams the shards'
/// column slices back in vocabulary order into one vectors file.
using exporter_actor = caf::typed_actor<
  caf::replies_to<export_atom, std::string, bool>::with<uint64_t>>;

/// The coordinator of one training job:
///   run:      -> the job's summary, once vectors are written
///   progress: a learner's counters since its last report
using coordinator_actor = caf::typed_actor<
  caf::replies_to<run_atom>::with<job_summary>,
  caf::reacts_to<progress_atom, uint32_t, learner_progress>,
  caf::reacts_to<tick_atom>>;

/// A shard as its users see it: its columns and the lanes serving them.
struct shard_info {
  uint32_t index = 0;
  uint32_t first = 0; // first column
  uint32_t width = 0; // columns
  std::vector<shard_actor> lanes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shard_info& x) {
  return f(caf::meta::type_name("shard_info"), x.index, x.first, x.width, x.lanes);
}

/// What a node reports about itself.
struct node_status {
  std::string name;
  std::string roles;
  uint64_t rss_bytes = 0;
  uint32_t shards = 0;   // shard actors it hosts now
  uint32_t learners = 0; // learner actors it hosts now
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_status& x) {
  return f(caf::meta::type_name("node_status"), x.name, x.roles, x.rss_bytes, x.shards, x.learners);
}

/// A node: hosts roles on request of a job's coordinator. In `gridvec
/// train` there is one node in the process; in a cluster, one per process.
///   newcounter: -> a count worker
///   newvocab:   -> a vocabulary actor
///   newshard:   (index, count, dim, vocabulary file, seed, lanes)
///               -> the shard's columns and lanes
///   newlearner: (config, vocabulary file, one lane per shard, coordinator)
///               -> the learner
///   newexport:  (vocabulary file, shards, dim) -> an exporter
///   status:     -> name, roles, memory, actors hosted
///   link:       (hosts, ports) -> nodes connected; opens direct
///               connections to those nodes (learner nodes to shard nodes)
///   submit:     (job options, listener) -> the job's summary; only on the
///               coordinator's node of a cluster; progress lines go to the
///               listener as (line, text). A second job while one runs is
///               refused.
///   stop:       the node's process ends (after the job, or on request)
/// Errors: an unreadable vocabulary file -> runtime_error.
using node_actor = caf::typed_actor<
  caf::replies_to<new_counter_atom>::with<count_worker_actor>,
  caf::replies_to<new_vocab_atom>::with<vocabulary_actor>,
  caf::replies_to<new_shard_atom, uint32_t, uint32_t, uint32_t, std::string, uint64_t, uint32_t>::with<shard_info>,
  caf::replies_to<new_learner_atom, learner_config, std::string, std::vector<shard_actor>,
                  coordinator_actor>::with<learner_actor>,
  caf::replies_to<new_export_atom, std::string, std::vector<shard_info>, uint32_t>::with<exporter_actor>,
  caf::replies_to<status_atom>::with<node_status>,
  caf::replies_to<link_atom, std::vector<std::string>, std::vector<uint16_t>>::with<uint32_t>,
  caf::replies_to<submit_atom, train_options, caf::actor>::with<job_summary>,
  caf::reacts_to<stop_atom>>;

/// caf::error carrying one human-readable line.
inline caf::error make_job_error(std::string what) {
  return caf::make_error(caf::sec::runtime_error, std::move(what));
}

/// The line inside an error made by make_job_error, or CAF's rendering.
std::string error_text(const caf::error& err);

} // namespace gridvec

