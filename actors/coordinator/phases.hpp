#pragma once
// The phases of a job, one file each, in the order a job goes through them.
// Each phase sets coordinator_state::phase, asks the nodes for its work and,
// when the last reply is in, calls the next phase:
//
//   start_phase.cpp          starting: supervisor, work directory
//     | fresh                   | --resume
//     v                         |
//   vocabulary_phase.cpp     counting -> vocabulary
//     |                         |
//     v                         v
//   placement_phase.cpp      placing: the shards, then the learners
//     | fresh                   | --resume
//     v                         v
//   preprocessing_phase.cpp  preprocessing      recovering (restore_latest)
//     |                         |
//     v                         v
//   training_phase.cpp       training  <->  pausing, paused, checkpointing,
//     |                                     recovering (coordinator_recovery.cpp)
//     v
//   export_phase.cpp         exporting -> done (finish, coordinator_actor.cpp)
//
// Any phase can end in failed (fail) or cancelled. What differs between
// the shards' layouts is asked of the layout's entry (actors/layouts/):
// connecting the shards after placement and restores, `nearest`, and
// whether the learners share rounds (training_phase.cpp,
// coordinator_recovery.cpp); the rows themselves are read through each
// shard's geometry. --partition itself is read where it is chosen
// (vocabulary_phase.cpp, the automatic choice), where it bounds the number
// of shards (placement_phase.cpp) and in the job's summary.
#include <functional>
#include <string>
#include <vector>

#include "actors/coordinator/coordinator_state.hpp"

namespace gridvec {

// Phases that read or write a whole corpus may take long on a big one; a
// dead node is noticed by the supervisor, not through this.
inline constexpr auto long_phase = std::chrono::seconds(30 * 24 * 3600);
inline constexpr auto placement_timeout = std::chrono::seconds(120);

// start_phase.cpp
/// Starts the job: a fresh one (counting) or one resumed from --resume.
void start(coordinator_ptr self);

// vocabulary_phase.cpp
/// Map: each corpus part is counted on a learner's node; reduce: the tables
/// merge into the vocabulary actor, which builds the vocabulary; then placing.
void count_words(coordinator_ptr self);
/// Takes the vocabulary file `info` names as the job's (fails the job if it
/// cannot be read).
void use_vocabulary(coordinator_ptr self, const vocabulary_info& info);
/// A query's words as ids (vocabulary::npos for one not in the
/// vocabulary), and the words of ids. A vocabulary of up to
/// whole_query_vocabulary words (src/corpus/vocabulary_lookup.hpp) is
/// loaded by the first query and kept (a job that is never queried never
/// holds it); a larger one is read from its file, one pass a query, so
/// that the coordinator never holds a large vocabulary's strings.
expected<std::vector<uint32_t>> query_ids(coordinator_state& st, const std::vector<std::string>& words);
expected<std::vector<std::string>> query_words_of(coordinator_state& st, const std::vector<uint32_t>& ids);
/// --init's row map file, in the job's work directory.
std::string init_rows_path(const coordinator_state& st);
/// --init: the model's rows mapped to job ids through the vocabulary
/// partitions (src/corpus/model_row_map.hpp) into init_rows_path; then
/// `then`. Nothing without --init or without partitions.
void map_init_rows(coordinator_ptr self, std::function<void()> then);

// placement_phase.cpp
/// Asks every node what its OS lets it take (a node's configured `memory`
/// takes precedence) and starts its peak memory over for this job; then
/// `then`.
void fetch_budgets(coordinator_ptr self, std::function<void()> then);
/// Every node's peak memory since the job began, beside the plan's need and
/// its budget, into the summary (and the largest as the job's); then `then`.
void collect_node_memory(coordinator_ptr self, std::function<void()> then);
/// No --shards given: the most shards, up to what the nodes declare, that
/// fit every node's memory become the job's S.
void choose_shard_count(coordinator_ptr self);
/// The memory plan of the job as it stands, for --explain.
std::string explain_memory_plan(coordinator_ptr self);
/// Places every shard on the shard nodes (round robin over the nodes with
/// room, src/model/shard_placement.hpp), then `then`; a job that does not
/// fit a node's memory fails here with one line, before anything is placed.
void place_all_shards(coordinator_ptr self, std::function<void()> then);
/// Spawns every learner on its node, then `then`.
void place_learners(coordinator_ptr self, std::function<void()> then);

// preprocessing_phase.cpp
/// Every learner turns its corpus parts into word-id files; then training.
void run_preprocessing(coordinator_ptr self);

// training_phase.cpp
/// Hands each learner its parts' cursors: training runs.
void start_training(coordinator_ptr self);

// export_phase.cpp (run_export is declared in coordinator_state.hpp)
/// The nodes that write --output-parts' part files: one per vocabulary
/// node that is not a standby (the exporter node when none is listed).
std::vector<size_t> part_writers(const coordinator_state& st);

// coordinator_actor.cpp
/// The job's node with a role (the first that is not a standby).
size_t node_with(const coordinator_state& st, bool job_node::*role);
/// The summary's counters as they stand now.
void take_totals(coordinator_state& st);
/// The job is done: report written, the promise answered.
void finish(coordinator_ptr self);
/// --explain: the partition model's table is in the summary; the job ends
/// there, with nothing trained or written.
void finish_explained(coordinator_ptr self);

} // namespace gridvec
