#pragma once
// Memory sized before it is taken: what each node of a job will hold once
// its shards and learners are placed, against the node's budget (its
// `memory` in the cluster config, else what its OS reports), so that a job
// that does not fit is refused with one line before anything is allocated,
// and a job submitted without --shards gets the most shards that fit.
//
// A node's need is the sum of
//   process     the gridvec process itself (code, actor system, network
//               buffers): process_bytes, measured; on a node that exports,
//               its block of rows too, and with -classes every input vector
//               (the K-means needs them all: V x d floats) and each word's
//               class;
//   model       per shard it holds, its slice of the input and output
//               vectors: columns, V x ceil(d/S) floats per matrix; split by
//               word, ceil(V/S) x d floats per matrix (an input and an
//               output matrix, the output one V-1 rows longer with -hs 1);
//   tables      per shard, the noise words' sampling tables (an alias table
//               of at most V runs, alias_entry_bytes each; with partitioned
//               sampling the partitions' tables besides; split by word, one
//               partition's) and with -hs 1 the Huffman tree's paths;
//   vocabulary  once per process that holds shards or learners: the
//               vocabulary's counts, counts_bytes_per_word per word (they
//               load the counts file, not the words); on a node of role
//               vocabulary, its partition's words at their most, while
//               the vocabulary is paged out to the coordinator (each word
//               in its counter's map and in the lookup map the join uses,
//               and its place in the order): partition_bytes_per_word a
//               word and twice its share of the vocabulary file's bytes,
//               for a share of V / P words (P vocabulary nodes, hashed:
//               a few standard deviations added); on the coordinator's
//               node while V <= 2^22, the whole vocabulary for the shell's
//               queries: vocabulary_bytes_per_word a word and the file's
//               bytes. An exporter reads the words from the file as it
//               writes them and holds none;
//   learners    per learner, its minibatches in flight (the requests and
//               every shard's replies), its reading buffer and its
//               subsampling thresholds (8 bytes a word); with
//               --partition replicated, its whole copy of the model, the
//               copy as of the last synchronisation, and a round's buffers,
//               replicated_round_models times the model.
// The coordinator's node besides: process_bytes (it is a process even
// where it holds nothing else) and, while it writes the vocabulary files,
// a page of words from each partition and its copy in the message.
// Counting the words comes before the plan (the vocabulary is its input)
// and is not in it. A node that holds nothing of the job needs nothing (its budget is not
// checked). A standby node's need is what it holds after restoring as many shards as
// it declares; a standby that cannot hold them is a warning, not a refusal
// (it only matters once a node is lost).
// Pure arithmetic: no I/O, no actors.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/options.hpp>

namespace gridvec {

// Measured figures (docs/performance.md, "Memory per node").
// A gridvec process besides what the plan counts: an idle node measured
// 15 MiB, a one-process run of the dev corpus 31 MiB beyond its model,
// tables and vocabulary (threads, the actor system, allocator arenas), and
// a loopback cluster's shard node 33 MiB beyond its shard; rounded up.
inline constexpr uint64_t process_bytes = uint64_t{40} << 20;
inline constexpr uint64_t alias_entry_bytes = 20;                    // src/sgns/alias_sampler.hpp's entry
inline constexpr uint64_t vocabulary_bytes_per_word = 48;            // word_map index and record, id -> word, count
inline constexpr uint64_t partition_bytes_per_word = 72;             // two word_map entries, and its place in the order
inline constexpr uint64_t vocabulary_page_words = uint64_t{1} << 18; // actors/vocabulary_actor.cpp's page
inline constexpr uint64_t counts_bytes_per_word = 8;                 // src/corpus/vocabulary_counts.hpp
inline constexpr uint64_t export_block_words = 4096;                 // actors/exporter_actor.cpp's block
inline constexpr uint64_t learner_reading_bytes = uint64_t{2} << 20; // a learner's id buffer and passage
inline constexpr uint64_t replicated_round_models = 4;               // a replicated round's buffers, in models

/// A node as the plan sees it.
struct memory_node {
  std::string name;
  uint64_t budget = 0;            // bytes it may take; 0: unknown, not checked
  bool budget_configured = false; // from its `memory` key, else what its OS reports
  uint32_t shard_capacity = 0;    // the config's `shards`
  bool standby = false;
  uint32_t learners = 0;
  bool holds_words = false;          // the coordinator's node while V <= 2^22: every word, for the shell's queries
  bool exports = false;              // it writes the vectors (or a part of them)
  bool vocabulary_partition = false; // a node of role vocabulary: one partition of the words
  bool coordinates = false;          // the coordinator's node: it writes the vocabulary files from the pages
};

/// The job's figures the plan reads.
struct memory_job {
  uint64_t vocab = 0;            // V
  uint64_t vocab_file_bytes = 0; // the vocabulary file's size (its words' text, counts, separators)
  uint32_t dim = 100;
  uint32_t shards = 1; // S
  uint32_t negative = 5;
  uint32_t window = 5;
  uint32_t minibatch = 64;
  uint32_t in_flight = 10;
  bool hs = false;
  uint32_t classes = 0; // -classes K: the exporter's K-means
  bool word_split = false;
  bool replicated = false;
  bool partitioned_sampler = false;
  uint32_t word_partitions = 1;
  uint32_t vocab_partitions = 1; // the vocabulary nodes the words are hashed over
};

memory_job memory_job_of(const train_options& o, uint64_t vocab, uint64_t vocab_file_bytes);

/// One node's need, by kind.
struct memory_need {
  uint32_t shards = 0, learners = 0;
  uint64_t process = 0, model = 0, tables = 0, vocabulary = 0, learner_buffers = 0;
  uint64_t total() const { return process + model + tables + vocabulary + learner_buffers; }
};

/// One shard's model slice and tables (shard s of job.shards).
uint64_t shard_model_bytes(const memory_job& job, uint32_t s);
uint64_t shard_table_bytes(const memory_job& job);
uint64_t vocabulary_bytes(const memory_job& job);
/// One vocabulary partition's words, at their most (while paged out).
uint64_t vocabulary_partition_bytes(const memory_job& job);
/// The coordinator's pages of words while it writes the vocabulary files.
uint64_t coordinator_bytes(const memory_job& job);
/// The vocabulary's counts without its words (shards and learners).
uint64_t vocabulary_counts_bytes(const memory_job& job);
uint64_t learner_bytes(const memory_job& job);
/// The exporter's block of rows and a shard's reply to it, and with
/// -classes every input vector and class: counted with the process on a
/// node that exports.
uint64_t exporter_bytes(const memory_job& job);

struct memory_plan {
  uint32_t shards = 0;
  std::vector<uint32_t> shard_node; // node index of each shard
  std::vector<memory_need> need;    // per node, in the nodes' order
  std::string refusal;              // one line; empty: the job fits
  std::string standby_warning;      // one line; empty: every standby can restore its shards
  bool fits() const { return refusal.empty(); }
};

/// The plan of job.shards shards placed by the shared rule
/// (src/model/shard_placement.hpp), checked against every budget.
memory_plan plan_memory(const std::vector<memory_node>& nodes, const memory_job& job);

/// --shards not given: the most shards, from `most` down to `least`, whose
/// plan fits every node; if none does, the plan at `most` (its refusal
/// says why).
memory_plan choose_shards(const std::vector<memory_node>& nodes, memory_job job, uint32_t least, uint32_t most);

/// The table --explain prints: each node's need by kind and its budget.
std::string explain_memory(const std::vector<memory_node>& nodes, const memory_plan& plan);

} // namespace gridvec
