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
// the network. In-process handles (vocabulary_ptr, word_counts_ptr) are
// shared pointers and never leave the process.
#include <caf/all.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

using vocabulary_ptr = std::shared_ptr<const vocabulary>;
using word_counts_ptr = std::shared_ptr<const word_counts>;

/// What one pass of counting saw.
struct corpus_stats {
  uint64_t raw_words = 0;      // tokens
  uint64_t distinct_words = 0; // before min-count
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, corpus_stats& x) {
  return f(caf::meta::type_name("corpus_stats"), x.raw_words, x.distinct_words);
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
typename Inspector::result_type inspect(Inspector& f, learner_progress& x) {
  auto& m = x.wire.messages;
  auto& b = x.wire.bytes;
  return f(caf::meta::type_name("learner_progress"), x.processed_words, x.trained_words, x.pairs,
           x.loss_sum, x.loss_pairs, x.alpha, m[0], m[1], m[2], m[3], b[0], b[1], b[2], b[3]);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_summary& x) {
  auto& m = x.wire.messages;
  auto& b = x.wire.bytes;
  return f(caf::meta::type_name("job_summary"), x.raw_words, x.trained_words, x.processed_words,
           x.pairs, x.seconds, x.training_seconds, x.vocab_size, x.peak_rss_bytes, x.final_loss,
           x.shards, x.learners, x.dim, x.iterations, m[0], m[1], m[2], m[3], b[0], b[1], b[2], b[3]);
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

/// Counts one byte range of a corpus: (path, begin, end) -> counts.
using count_worker_actor = caf::typed_actor<
  caf::replies_to<count_atom, std::string, uint64_t, uint64_t>::with<word_counts_ptr>>;

/// The vocabulary:
///   count: (corpus path, parts) -> stats; counts the parts in parallel
///   build: (min count, max size) -> the vocabulary (ids fixed)
/// Errors: unreadable/empty/bad corpus, empty vocabulary -> runtime_error.
using vocabulary_actor = caf::typed_actor<
  caf::replies_to<count_atom, std::string, uint32_t>::with<corpus_stats>,
  caf::replies_to<build_atom, uint64_t, uint64_t>::with<vocabulary_ptr>>;

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

/// caf::error carrying one human-readable line.
inline caf::error make_job_error(std::string what) {
  return caf::make_error(caf::sec::runtime_error, std::move(what));
}

/// The line inside an error made by make_job_error, or CAF's rendering.
std::string error_text(const caf::error& err);

} // namespace gridvec

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gridvec::vocabulary_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(gridvec::word_counts_ptr)
