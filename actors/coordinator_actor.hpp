#pragma once
// The coordinator owns one training job's lifecycle:
//
//   counting --> vocabulary --> placing --> preprocessing --> training --> export --> done
//       \____________\_____________\_____________\_______________\___________\---> failed
//
// It places every role through node actors (the vocabulary and exporter on
// the nodes that host those roles, S shards round-robin over shard nodes,
// learners on learner nodes, count workers where the learners are), moves
// the job from phase to phase, reports progress and answers `run` with the
// job's summary.
#include <functional>
#include <string>
#include <vector>

#include "actors/protocol.hpp"
#include "src/options.hpp"

namespace gridvec {

/// A node as a job sees it.
struct job_node {
  std::string name;
  node_actor handle;
  bool vocabulary = false;
  bool exporter = false;
  bool shard = false;
  uint32_t learners = 0; // learner actors to place here
};

/// Receives each progress line (besides the log); e.g. a remote submitter.
using progress_sink = std::function<void(const std::string&)>;

coordinator_actor spawn_coordinator(caf::actor_system& sys, train_options options,
                                    std::vector<job_node> nodes, progress_sink sink = {});

/// Set from a signal handler: the running job stops at its next progress
/// tick, and no output file is left behind.
void request_cancel();

} // namespace gridvec
