#pragma once
// The messages between gridvec's actors, as typed interfaces, one per role.
//
//   shell/submit --> controller --start--> coordinator (one per job)
//   coordinator --count/build--> vocabulary --count--> count workers
//   coordinator --preprocess/assign/pause/...--> learners --dotprod/adjust--> shard lanes
//   learners --progress--> coordinator <--shard lost/learner lost-- supervisor
//   coordinator --export--> exporter --rows--> shard lanes
//
// Training traffic (dotprod, adjust and their replies) is Cap'n Proto bytes
// (schema/minibatch.capnp), the same in one process and across the network.
// Every other message carries the types of job_types.hpp. Errors are
// caf::error values made by make_job_error: one human-readable line
// (error_text() gets it back) and an error_code (error_code_of() gets it
// back, failure_of() both). docs/actors.md describes every message.
#include <caf/all.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/job_types.hpp>
#include <gridvec/core/wire_bytes.hpp>

namespace gridvec {

// Atoms (CAF 0.17: at most 10 characters).
using count_atom = caf::atom_constant<caf::atom("count")>;
using build_atom = caf::atom_constant<caf::atom("build")>;
using preprocess_atom = caf::atom_constant<caf::atom("preproc")>;
using assign_atom = caf::atom_constant<caf::atom("assign")>;
using dotprod_atom = caf::atom_constant<caf::atom("dotprod")>;
using adjust_atom = caf::atom_constant<caf::atom("adjust")>;
using step_atom = caf::atom_constant<caf::atom("step")>;
using rows_atom = caf::atom_constant<caf::atom("rows")>;
using progress_atom = caf::atom_constant<caf::atom("progress")>;
using export_atom = caf::atom_constant<caf::atom("export")>;
using export_part_atom = caf::atom_constant<caf::atom("exportpart")>;
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
using start_atom = caf::atom_constant<caf::atom("start")>;
using wait_atom = caf::atom_constant<caf::atom("wait")>;
using link_atom = caf::atom_constant<caf::atom("link")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using line_atom = caf::atom_constant<caf::atom("line")>;
using pause_atom = caf::atom_constant<caf::atom("pause")>;
using resume_atom = caf::atom_constant<caf::atom("resume")>;
using halt_atom = caf::atom_constant<caf::atom("halt")>;
using rollback_atom = caf::atom_constant<caf::atom("rollback")>;
using sync_atom = caf::atom_constant<caf::atom("sync")>;
using save_atom = caf::atom_constant<caf::atom("save")>;
using save_model_atom = caf::atom_constant<caf::atom("savemodel")>;
using load_atom = caf::atom_constant<caf::atom("load")>;
using reset_atom = caf::atom_constant<caf::atom("reset")>;
using stats_atom = caf::atom_constant<caf::atom("stats")>;
using norms_atom = caf::atom_constant<caf::atom("norms")>;
using similar_atom = caf::atom_constant<caf::atom("similar")>;
using checkpoint_atom = caf::atom_constant<caf::atom("checkpoint")>;
using cancel_atom = caf::atom_constant<caf::atom("cancel")>;
using nearest_atom = caf::atom_constant<caf::atom("nearest")>;
using analogy_atom = caf::atom_constant<caf::atom("analogy")>;
using vector_atom = caf::atom_constant<caf::atom("vector")>;
using shards_atom = caf::atom_constant<caf::atom("shards")>;
using learners_atom = caf::atom_constant<caf::atom("learners")>;
using nodes_atom = caf::atom_constant<caf::atom("nodes")>;
using shard_lost_atom = caf::atom_constant<caf::atom("shardlost")>;
using learner_lost_atom = caf::atom_constant<caf::atom("learnlost")>;
using watch_atom = caf::atom_constant<caf::atom("watch")>;
using controller_atom = caf::atom_constant<caf::atom("controller")>;
using hosts_atom = caf::atom_constant<caf::atom("hosts")>;
using round_atom = caf::atom_constant<caf::atom("round")>;
using synced_atom = caf::atom_constant<caf::atom("synced")>;
using store_rows_atom = caf::atom_constant<caf::atom("storerows")>;
using table_atom = caf::atom_constant<caf::atom("table")>;
using tables_atom = caf::atom_constant<caf::atom("tables")>;
using split_train_atom = caf::atom_constant<caf::atom("splittrain")>;
using visit_atom = caf::atom_constant<caf::atom("visit")>;
using peers_atom = caf::atom_constant<caf::atom("peers")>;
using echo_atom = caf::atom_constant<caf::atom("echo")>;
using history_atom = caf::atom_constant<caf::atom("history")>;
using collect_atom = caf::atom_constant<caf::atom("collect")>;
using earlier_atom = caf::atom_constant<caf::atom("earlier")>;
using page_atom = caf::atom_constant<caf::atom("page")>;
using assign_ids_atom = caf::atom_constant<caf::atom("assignids")>;
using lookup_atom = caf::atom_constant<caf::atom("lookup")>;
using row_map_atom = caf::atom_constant<caf::atom("rowmap")>;
using lbfgs_atom = caf::atom_constant<caf::atom("lbfgs")>;

using vocabulary_ptr = std::shared_ptr<const vocabulary>;
using vocabulary_counts_ptr = std::shared_ptr<const vocabulary_counts>;

/// "No node": a lost shard that no surviving node can take.
constexpr uint32_t no_node = 0xFFFFFFFFu;

// --- typed interfaces -------------------------------------------------------

/// One lane of a shard. A shard is a slice of the model (shard_store) served
/// by several lanes that share it without locks, so that one shard can use
/// several cores (Hogwild, as word2vec.c's threads). Its layout
/// (shard_layout) is chosen once per job and decides its interface: every
/// shard answers shard_actor's messages, and each layout adds its own, so
/// that a message of another layout is a compile error where it is sent.
///
/// shard_actor: what every shard answers, whatever its layout.
///   rows:    (first word, end word[, output]) -> those words' input (or
///            output) vectors that this shard holds, its columns,
///            row-major little-endian float32 (export, --save-model)
///   sync:    -> true once every message this sender sent before is done
///            (messages between two actors stay in order)
///   save:    (file, vocabulary crc) -> the slice file written (checkpoint)
///   load:    (file, vocabulary crc) -> true; the slices read back from a
///            checkpoint (learners must be paused)
///   reset:   -> true; back to the initial vectors (rollback to the start)
///   stats:   -> requests served, memory
///   norms:   (word ids) -> partial squared norms of their input vectors
///            (0 for words it does not hold), float32 bytes
/// Errors: a malformed message, an out-of-range id, an unreadable or
/// damaged checkpoint file -> runtime_error with one line.
using shard_actor =
  caf::typed_actor<caf::replies_to<rows_atom, uint32_t, uint32_t>::with<wire_bytes>,
                   caf::replies_to<rows_atom, uint32_t, uint32_t, bool>::with<wire_bytes>,
                   caf::replies_to<sync_atom>::with<bool>,
                   caf::replies_to<save_atom, std::string, uint64_t>::with<file_digest>,
                   caf::replies_to<load_atom, std::string, uint64_t>::with<bool>,
                   caf::replies_to<reset_atom>::with<bool>, caf::replies_to<stats_atom>::with<shard_counters>,
                   caf::replies_to<norms_atom, std::vector<uint32_t>>::with<wire_bytes>>;

/// A shard that holds the columns [first, first + width) of every word's
/// vectors (the columns and replicated layouts) adds:
///   similar: (word ids, weights as float32 bytes) -> partial similarity of
///            the query q = sum weight_i u(word_i) to every word, float32
///            bytes: [|q_s|^2, q_s.u_s(0..V-1), |u_s(0..V-1)|^2]
using column_slice_actor =
  shard_actor::extend<caf::replies_to<similar_atom, std::vector<uint32_t>, wire_bytes>::with<wire_bytes>>;

/// The columns layout: learners train through the shards' column slices.
///   dotprod: DotprodRequest bytes -> DotprodReply bytes
///   adjust:  AdjustRequest bytes  -> AdjustReply bytes
///   step:    (AdjustRequest bytes of finished minibatches, DotprodRequest
///            bytes of new ones) -> DotprodReply bytes of the new ones, in
///            order; the adjusts are applied first, one minibatch after the
///            other. A learner's whole group of minibatches in one message
///            each way, instead of an adjust and a dotprod per minibatch;
///            nothing is applied if any part is bad.
using column_shard_actor = column_slice_actor::extend<
  caf::replies_to<dotprod_atom, wire_bytes>::with<wire_bytes>,
  caf::replies_to<adjust_atom, wire_bytes>::with<wire_bytes>,
  caf::replies_to<step_atom, std::vector<wire_bytes>, std::vector<wire_bytes>>::with<std::vector<wire_bytes>>>;

/// The replicated layout: the shards keep the model that every learner
/// copies, and take each round's new values from the rows' masters.
///   storerows: (RowBlock bytes of this shard's columns) -> true
using replica_shard_actor = column_slice_actor::extend<caf::replies_to<store_rows_atom, wire_bytes>::with<bool>>;

/// The rows layout (--partition words over several shards): a shard holds
/// the whole rows of its words (word w on shard w mod S,
/// docs/word-partitions.md) and trains through these:
///   splittrain: SplitTrainRequest bytes (a learner's examples whose input
///            words this shard owns) -> SplitTrainReply bytes, once the
///            visits to the other shards have come back
///   visit:   VisitBatch bytes (from another shard: input vectors to train
///            against this shard's output rows) -> VisitReply bytes
///   peers:   (every shard of the job, by index) -> true; whom visits go to
///            (at placement, and again after a shard is restored)
///   similar: (the query vector q, float32 bytes) -> [0, q.u(x), |u(x)|^2]
///            for the words x it holds, 0 for the others
using row_shard_actor = shard_actor::extend<caf::replies_to<split_train_atom, wire_bytes>::with<wire_bytes>,
                                            caf::replies_to<visit_atom, wire_bytes>::with<wire_bytes>,
                                            caf::replies_to<peers_atom, std::vector<caf::actor>>::with<bool>,
                                            caf::replies_to<similar_atom, wire_bytes>::with<wire_bytes>>;

/// A lane as the handle type of its layout. The lanes were spawned for that
/// layout (shard_info::layout), which the caller knows from the job's
/// options; only the handle type changes here.
template <class LayoutActor>
LayoutActor lane_as(const shard_actor& lane) {
  return caf::actor_cast<LayoutActor>(lane);
}
template <class LayoutActor>
std::vector<LayoutActor> lanes_as(const std::vector<shard_actor>& lanes) {
  std::vector<LayoutActor> out;
  out.reserve(lanes.size());
  for (const auto& lane : lanes)
    out.push_back(lane_as<LayoutActor>(lane));
  return out;
}

/// One word partition of the vocabulary: every word belongs to one
/// partition by its hash (src/corpus/partitioned_count.hpp), so no process
/// holds every distinct word. It counts in bounded memory on its node
/// (`count-memory`, spilling sorted runs to `count-dir`), and the
/// vocabulary is decided from the partitions' count histograms
/// (src/corpus/vocabulary_layout.hpp):
///   merge: counts of its words -> the table given back, emptied: a sender
///          in the same process fills it again, its memory kept, instead
///          of taking fresh pages for every table
///   collect: (min count) -> its words of at least that count, by count
///   earlier: (count, first place) -> its words of that count first seen
///            before that place (where -max-vocab cuts through a count)
///   assignids: (layout as numbers, its index) -> the words it keeps
///   page: (most words, a page already written, given back emptied) ->
///         its next words in id order, in that table (its memory reused in
///         one process); empty at the end
///   lookup: (words back to back, their lengths) -> their ids, npos
///           (0xFFFFFFFF) for words it does not keep; at most 2^18 words
///           and 16 MB of them (src/corpus/word_join.hpp): the join that
///           turns a learner's corpus part into ids
///   load: (vocabulary file, its index, the partitions, the file's words,
///         its CRC-32) -> the words it holds: instead of counting, its
///         words and their ids read back from the file (a resumed job
///         turning parts into ids again), ready for lookups
/// Errors: a spill that cannot be written, a malformed table, layout or
/// lookup, messages out of that order -> runtime_error.
using vocabulary_partition_actor =
  caf::typed_actor<caf::replies_to<merge_atom, count_table>::with<count_table>,
                   caf::replies_to<collect_atom, uint64_t>::with<partition_counts>,
                   caf::replies_to<earlier_atom, uint64_t, uint64_t>::with<uint64_t>,
                   caf::replies_to<assign_ids_atom, std::vector<uint64_t>, uint32_t>::with<uint64_t>,
                   caf::replies_to<page_atom, uint64_t, count_table>::with<count_table>,
                   caf::replies_to<lookup_atom, std::string, std::vector<uint32_t>>::with<std::vector<uint32_t>>,
                   caf::replies_to<load_atom, std::string, uint32_t, uint32_t, uint64_t, uint32_t>::with<uint64_t>>;

/// Counts where the data is, sending each word's counts to its partition
/// a bounded table at a time:
///   count: (path, begin, end, invalid UTF-8 mode, the partitions) -> the
///          range's token and line totals (a table without words)
///   load: (word2vec.c vocabulary file, the partitions) -> the same for
///         the file's words and counts (-read-vocab, a model's words), read
///         and sent on a line at a time, and the words it lists
///   rowmap: (--init model's vocab.txt, row map file, the vocabulary's
///           size and file crc32, the partitions) -> (rows, rows found):
///           writes the model's row map (src/corpus/model_row_map.hpp)
///           through the partitions, after the vocabulary is built
/// (the mode as train_options::invalid_utf8: 0 fail, 1 skip, 2 replace).
/// Errors: unreadable corpus, binary data, invalid UTF-8, a partition's
/// error -> runtime_error.
using count_worker_actor = caf::typed_actor<
  caf::replies_to<count_atom, std::string, uint64_t, uint64_t, uint8_t,
                  std::vector<vocabulary_partition_actor>>::with<count_table>,
  caf::replies_to<load_atom, std::string, std::vector<vocabulary_partition_actor>>::with<count_table, uint64_t>,
  caf::replies_to<row_map_atom, std::string, std::string, uint64_t, uint64_t,
                  std::vector<vocabulary_partition_actor>>::with<uint64_t, uint64_t>>;

/// A learner (the Network-efficient word2vec paper Figure 7). It works through the parts it is given
/// and reports progress (with its parts' cursors) to its coordinator.
///   preprocess: (corpus, begin, end, ids file, the word partitions) ->
///               in-vocabulary words written; turns one corpus part into
///               word ids on disk, asking each chunk's distinct words of
///               the partitions that own them (no partitions: from the
///               vocabulary file, as a resumed job whose partitions are
///               gone does)
///   assign:     (cursors) -> true; adds parts to its work
///   pause:      -> its parts' cursors, exact, once nothing is in flight
///   resume:     -> true; continues after pause or rollback
///   halt:       (generation, live shard indices) -> its parts' safe cursors;
///               forgets what is in flight (a shard is lost), waits until
///               every live shard has done its earlier messages, and stays
///               paused; later reports carry `generation`
///   rollback:   (generation, cursors, one lane per shard) -> true; its
///               work becomes exactly `cursors`, its shards these lanes, its
///               reports carry `generation`; stays paused
///   status:     -> what it is doing
using learner_actor = caf::typed_actor<
  caf::replies_to<preprocess_atom, std::string, uint64_t, uint64_t, std::string,
                  std::vector<vocabulary_partition_actor>>::with<uint64_t>,
  caf::replies_to<assign_atom, std::vector<part_cursor>>::with<bool>,
  caf::replies_to<pause_atom>::with<std::vector<part_cursor>>, caf::replies_to<resume_atom>::with<bool>,
  caf::replies_to<halt_atom, uint64_t, std::vector<uint32_t>>::with<std::vector<part_cursor>>,
  caf::replies_to<rollback_atom, uint64_t, std::vector<part_cursor>, std::vector<shard_actor>>::with<bool>,
  caf::replies_to<status_atom>::with<learner_status>,
  caf::reacts_to<tick_atom>, // internal: progress reports
  caf::reacts_to<run_atom>,  // internal: the fused path's next time slice
  // --partition replicated (actors/layouts/replica/replicated_path.cpp): the job's
  // learners by id, then each round's row blocks (schema/minibatch.capnp):
  // changes host -> master, new values master -> host.
  caf::replies_to<hosts_atom, std::vector<caf::actor>>::with<bool>, caf::reacts_to<round_atom, wire_bytes>,
  caf::reacts_to<synced_atom, wire_bytes>>;

/// The exporter: (path, binary) -> rows written. Streams the shards'
/// column slices back in vocabulary order into one vectors file, which
/// appears only when complete.
/// export: (path, binary, classes): the vectors, or with classes > 0 their
/// K-means classes (-classes).
/// export_part: (directory, part, parts, binary) -> words written; part
/// `part` of `parts` (its share of the ids, in order) as DIR/part-NNNNN.vec
/// (src/formats/vector_parts.hpp), committed atomically.
/// save_model: (directory, line count, options) -> words saved; the whole
/// model (src/formats/model_dir.hpp).
using exporter_actor =
  caf::typed_actor<caf::replies_to<export_atom, std::string, bool, uint32_t>::with<uint64_t>,
                   caf::replies_to<export_part_atom, std::string, uint32_t, uint32_t, bool>::with<uint64_t>,
                   caf::replies_to<save_model_atom, std::string, uint64_t, std::vector<std::string>>::with<uint64_t>>;

/// What can be asked of a job, by the coordinator that runs it and by the
/// controller that forwards to its current job (both described below).
using job_commands_actor = caf::typed_actor<
  caf::replies_to<status_atom>::with<job_status>, caf::replies_to<shards_atom>::with<std::vector<shard_status>>,
  caf::replies_to<learners_atom>::with<std::vector<learner_status>>, caf::replies_to<pause_atom>::with<bool>,
  caf::replies_to<resume_atom>::with<bool>, caf::replies_to<checkpoint_atom>::with<checkpoint_info>,
  caf::replies_to<cancel_atom>::with<bool>, caf::replies_to<export_atom, std::string, bool>::with<uint64_t>,
  caf::replies_to<nearest_atom, std::string, uint32_t>::with<std::vector<neighbour>>,
  caf::replies_to<analogy_atom, std::string, std::string, std::string, uint32_t>::with<std::vector<neighbour>>,
  caf::replies_to<vector_atom, std::string>::with<wire_bytes>, caf::replies_to<history_atom>::with<job_history>>;

/// The coordinator of one training job (see coordinator_actor.hpp for its
/// phases). Queries and commands:
///   run:        -> the job's summary, once the vectors are written
///   status / shards / learners -> job_status / shard_status / learner_status
///   pause, resume -> true (error if the job is not training / paused)
///   checkpoint  -> the checkpoint written (error without --checkpoint-dir)
///   cancel      -> true; the job ends without writing vectors
///   export:     (path, binary) -> rows written, from the live shards
///   nearest:    (word, k) -> the k most similar words (cosine)
///   analogy:    (a, b, c, k) -> words closest to b - a + c
///   vector:     word -> its input vector, float32 bytes (one `rows` per shard)
///   history:    -> job_history: its curves over the whole run, phases,
///               checkpoints, the last lines of its event log, traffic per node
///   stop:       everything the job placed stops, and so does the coordinator
/// From its learners and supervisor:
///   progress:   (learner id, progress)
///   shard lost: (shard index, node index to restore it on, or no_node)
///   learner lost: (learner id, why): an empty reason means its process is
///               gone (its parts go to other learners); otherwise the learner
///               failed on bad data or a bug, and so does the job
using coordinator_actor = job_commands_actor::extend<
  caf::replies_to<run_atom>::with<job_summary>, caf::reacts_to<progress_atom, uint32_t, learner_progress>,
  caf::reacts_to<shard_lost_atom, uint32_t, uint32_t>, caf::reacts_to<learner_lost_atom, uint32_t, std::string>,
  caf::reacts_to<stop_atom>, caf::reacts_to<tick_atom>>;

/// A shard as its users see it: its columns and the lanes serving them.
struct shard_info {
  uint32_t index = 0;
  uint32_t first = 0; // first column
  uint32_t width = 0; // columns
  std::vector<shard_actor> lanes;
  // Its noise sampler's tables, and what one word partition's would take
  // with the vectors split by word (src/sgns/noise_sampler.hpp).
  uint64_t sampling_bytes = 0;
  uint64_t partition_sampling_bytes = 0;
  // Its interface (shard_layout), and which rows it holds of those
  // columns (every word's, or one word partition's).
  shard_layout layout = shard_layout::columns;
  word_rows rows;
  shard_geometry geometry() const { return {{first, width}, rows}; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shard_info& x) {
  return f(caf::meta::type_name("shard_info"), x.index, x.first, x.width, x.lanes, x.sampling_bytes,
           x.partition_sampling_bytes, x.layout, x.rows.partition, x.rows.partitions);
}

/// Where to start a new shard from.
struct shard_spec {
  uint32_t index = 0;
  uint32_t count = 0;
  uint32_t dim = 0;
  std::string vocabulary; // file
  uint64_t seed = 0;
  uint32_t lanes = 1;
  std::string checkpoint; // slice file to load; empty: initial vectors
  uint64_t vocab_crc = 0;
  std::string init_model; // --init: a saved model whose rows replace the initial vectors of its words
  // --init's row map (src/corpus/model_row_map.hpp): the model's rows placed
  // by number; empty: matched by word, the vocabulary's words loaded.
  std::string init_rows;
  bool hierarchical = false; // -hs 1: the store also holds the Huffman tree's inner nodes
  // How noise words are drawn (src/sgns/noise_sampler.hpp): --negatives
  // (0 bns, 1 sns, 2 tns), --sampler hierarchical, and the word partitions
  // they are drawn over.
  uint8_t negatives_mode = 0;
  bool hierarchical_sampler = false;
  uint32_t word_partitions = 1;
  // Its interface and what it holds: rows, the whole rows of the words w
  // with w mod count = index, trained through the word split's exchange.
  shard_layout layout = shard_layout::columns;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shard_spec& x) {
  return f(caf::meta::type_name("shard_spec"), x.index, x.count, x.dim, x.vocabulary, x.seed, x.lanes, x.checkpoint,
           x.vocab_crc, x.init_model, x.init_rows, x.hierarchical, x.negatives_mode, x.hierarchical_sampler,
           x.word_partitions, x.layout);
}

/// Watches a job's actors and tells its coordinator when one is lost:
///   watch (shard index, node index, lanes)  -- a shard (again, once restored)
///   watch (learner id, learner)
/// A lost shard is reported with the node to restore it on: a surviving
/// shard node with spare capacity (its config `shards`), else a standby.
using supervisor_actor = caf::typed_actor<caf::reacts_to<watch_atom, uint32_t, uint32_t, std::vector<shard_actor>>,
                                          caf::reacts_to<watch_atom, uint32_t, learner_actor>>;

/// A table shard of the parameter server (docs/tables.md): one per shard
/// node of a cluster (cluster_config::table_shard_nodes), or several in one
/// process. Serves the tables' slices that it holds.
///   table: TableRequest bytes (schema/table.capnp) -> TableReply bytes;
///          a bad request gets an error reply, never a crash
using table_shard_actor = caf::typed_actor<caf::replies_to<table_atom, wire_bytes>::with<wire_bytes>>;

/// An L-BFGS learner on a learner node (docs/lbfgs.md): `gridvec lbfgs`
/// asks learner nodes for them and gives each shares of the training
/// examples, which it evaluates against the table shards itself. Every
/// request carries a tag, and is answered by a message to its sender,
/// (lbfgs, tag, values, error line or ""), not by a reply, so that the
/// sender can wait for answers and for a learner's loss at once:
///   table: (tag, hosts, ports, table name, timeout ms) -> []; its own
///          client of the table shards on the shard nodes at those
///          addresses (in shard order; nodes of its cluster's config only,
///          connected to directly), the table opened by name
///   load:  (tag, share, training file, features, first example, end)
///          -> [examples in the file]; the file opened under the node's
///          allowed directories, examples [first, end) kept as the share
///   lbfgs: (tag, pass, share, steps) -> pass 0: the loss at each step,
///          then the slope at each; 1: [loss], its gradient added into the
///          next gradient's row; 2: [examples classified right]
using lbfgs_learner_actor = caf::typed_actor<
  caf::reacts_to<table_atom, uint64_t, std::vector<std::string>, std::vector<uint16_t>, std::string, uint32_t>,
  caf::reacts_to<load_atom, uint64_t, uint32_t, std::string, uint32_t, uint64_t, uint64_t>,
  caf::reacts_to<lbfgs_atom, uint64_t, uint8_t, uint32_t, std::vector<double>>>;

/// The controller: the entry point of a cluster (on the coordinator's node)
/// or of a local gridvec, for `gridvec submit`, the shell and embedding
/// applications. One job runs at a time; the last one stays queryable
/// (nearest, analogy, export) until the next starts.
///   submit:  (options, listener) -> the summary, once the job is done;
///            progress lines go to the listener as (line, text)
///   start:   (options) -> job number; the job runs on
///   wait:    -> the current job's summary once it is done
///   status / shards / learners / nodes, pause, resume, checkpoint, cancel,
///   export, nearest, analogy: as the coordinator's, for the current job
///   stop:    every node of the cluster stops (the controller's too)
/// Errors: a second job while one runs; a command that needs a job when
/// there is none; whatever the coordinator answers.
using controller_actor =
  job_commands_actor::extend<caf::replies_to<submit_atom, train_options, caf::actor>::with<job_summary>,
                             caf::replies_to<start_atom, train_options>::with<uint64_t>,
                             caf::replies_to<wait_atom>::with<job_summary>,
                             caf::replies_to<nodes_atom>::with<std::vector<node_status>>, caf::reacts_to<stop_atom>>;

/// A node: hosts roles on request of a job's coordinator. In `gridvec
/// train` there is one node in the process; in a cluster, one per process.
///   newcounter: -> a count worker
///   newvocab:   -> a vocabulary actor
///   newshard:   (spec) -> the shard's columns and lanes
///   newlearner: (config, vocabulary file, one lane per shard, coordinator)
///               -> the learner
///   newexport:  (vocabulary file, shards, dim) -> an exporter
///   status:     -> name, roles, memory, actors hosted
///   status, reset: the same, and the node's peak memory (job_peak_rss_bytes)
///               starts over: a job begins
///   link:       (hosts, ports) -> nodes connected; opens direct
///               connections to those nodes (learner nodes to shard nodes)
///   controller: -> the cluster's controller (coordinator's node only)
///   tables:     -> the node's table shard (shard nodes only)
///   lbfgs:      -> a new L-BFGS learner (learner nodes only; it stops with
///               the process that asked for it)
///   echo:       (bytes, at most max_echo_bytes) -> the same bytes; the
///               coordinator times them to measure a link (--partition auto)
///   stop:       the node's process ends (after the job, or on request)
/// Errors: an unreadable vocabulary or checkpoint file -> runtime_error.
using node_actor = caf::typed_actor<
  caf::replies_to<new_counter_atom>::with<count_worker_actor>,
  caf::replies_to<new_vocab_atom>::with<vocabulary_partition_actor>,
  caf::replies_to<new_shard_atom, shard_spec>::with<shard_info>,
  caf::replies_to<new_learner_atom, learner_config, std::string, std::vector<shard_actor>,
                  coordinator_actor>::with<learner_actor>,
  caf::replies_to<new_export_atom, std::string, std::vector<shard_info>, uint32_t>::with<exporter_actor>,
  caf::replies_to<status_atom>::with<node_status>, caf::replies_to<status_atom, reset_atom>::with<node_status>,
  caf::replies_to<link_atom, std::vector<std::string>, std::vector<uint16_t>>::with<uint32_t>,
  caf::replies_to<controller_atom>::with<controller_actor>, caf::replies_to<tables_atom>::with<table_shard_actor>,
  caf::replies_to<lbfgs_atom>::with<lbfgs_learner_actor>, caf::replies_to<echo_atom, wire_bytes>::with<wire_bytes>,
  caf::reacts_to<stop_atom>>;

/// The largest block a node echoes.
constexpr size_t max_echo_bytes = size_t{8} << 20;

/// caf::error carrying one human-readable line (code error_code::failed).
inline caf::error make_job_error(std::string what) { return caf::make_error(caf::sec::runtime_error, std::move(what)); }

/// The CAF error category of job errors with a code other than failed; the
/// CAF code is the error_code plus one (CAF's 0 means no error).
inline caf::atom_value job_error_category() { return caf::atom("gridvec"); }

/// caf::error carrying one line and its code.
inline caf::error make_job_error(error_code code, std::string what) {
  if (code == error_code::failed)
    return make_job_error(std::move(what));
  return caf::error{static_cast<uint8_t>(static_cast<uint8_t>(code) + 1), job_error_category(),
                    caf::make_message(std::move(what))};
}
inline caf::error make_job_error(const failure& f) { return make_job_error(f.code, f.message); }

/// Whether `err` was made by make_job_error (a refusal or a failed job, not
/// CAF's own error about a lost actor or connection).
bool is_job_error(const caf::error& err);

/// The line inside an error made by make_job_error, or CAF's rendering.
std::string error_text(const caf::error& err);

/// The code of an error: make_job_error's, or for CAF's own errors timeout
/// (a request timed out), unavailable (the receiver or its node is gone)
/// or failed.
error_code error_code_of(const caf::error& err);

/// The error as a failure: error_text and error_code_of.
inline failure failure_of(const caf::error& err) { return failure{error_text(err), error_code_of(err)}; }

} // namespace gridvec
