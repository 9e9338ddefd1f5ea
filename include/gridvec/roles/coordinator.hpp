#pragma once
// (Public header of actors/coordinator/coordinator_actor.cpp.)
// The coordinator owns one training job's lifecycle:
//
//   counting -> vocabulary -> placing -> preprocessing -> training -> exporting -> done
//                                                        |    ^   |
//                                           pause/resume |    |   `-- shard lost --> recovering
//                                          checkpointing v    |                          |
//                                                      paused `--------------------------'
//   (resuming from a checkpoint: placing -> preprocessing -> training)
//   any phase -> failed, or cancelled on request
//
// It places every role through node actors (the vocabulary and exporter on
// the nodes that host those roles, S shards round-robin over shard nodes,
// learners on learner nodes, count workers where the learners are), hands
// the corpus parts to the learners, follows their progress, writes
// checkpoints, lets the supervisor tell it about lost shards and learners
// and rolls back (coordinator_recovery.cpp), answers queries
// (coordinator_queries.cpp) and finally answers `run` with the summary.
#include <functional>
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>
#include <gridvec/core/options.hpp>

namespace gridvec {

/// A node as a job sees it.
struct job_node {
  std::string name;
  node_actor handle;
  bool vocabulary = false;
  bool exporter = false;
  uint32_t shard_capacity = 0; // shard actors it takes (config `shards`); 0: no shard role
  uint32_t learners = 0;       // learner actors to place here
  bool standby = false;        // only used to restore lost shards
  uint64_t memory_budget = 0;  // bytes a job may take there (config `memory`); 0: what its OS reports
};

/// Receives the job's lines besides the log, e.g. for a remote submitter:
/// each event ("training: ...", "checkpoint 2 written ...") and, once a
/// second while training, the progress line prefixed with progress_prefix
/// (a terminal redraws those in place; a log keeps one now and then); the
/// final progress line comes as an event.
using progress_sink = std::function<void(const std::string&)>;
inline constexpr const char* progress_prefix = "progress: ";

/// Called once, when a job is about to place its shards (the memory they
/// take): the controller then lets the previous job's shards go, which it
/// keeps until then so that a job that fails early hides nothing.
using placing_hook = std::function<void()>;

/// `job` numbers the job in its controller's lifetime (status shows it).
/// With keep_shards, the shards stay up once the vectors are written, so
/// that nearest/analogy/export keep working until the actor is stopped.
/// With choose_shards (no --shards given), placement takes the most shards,
/// up to options.shards, that fit every node's memory
/// (src/model/memory_plan.hpp).
coordinator_actor spawn_coordinator(caf::actor_system& sys, uint64_t job, train_options options,
                                    std::vector<job_node> nodes, progress_sink sink = {}, bool keep_shards = false,
                                    placing_hook before_placing = {}, bool choose_shards = false);

/// Set from a signal handler: the running job stops at its next progress
/// tick, and no output file is left behind. The job that stops takes the
/// request; a later job in the same process runs.
void request_cancel();

} // namespace gridvec
