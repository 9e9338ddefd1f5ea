#pragma once
// The coordinator owns one training job's lifecycle:
//
//   counting --> vocabulary --> preprocessing --> training --> export --> done
//       \____________\_______________\_______________\___________\---> failed
//
// It spawns the other roles (vocabulary, S shards with their lanes, one
// learner per thread, the exporter), moves the job from phase to phase,
// prints progress, and answers `run` with the job's summary.
#include "actors/protocol.hpp"
#include "src/options.hpp"

namespace gridvec {

coordinator_actor spawn_coordinator(caf::actor_system& sys, train_options options);

/// Set from a signal handler: the running job stops at its next progress
/// tick, and no output file is left behind.
void request_cancel();

} // namespace gridvec
