#pragma once
// Running gridvec inside one actor system: the entry point of `gridvec
// train`, and of applications that embed gridvec (include/gridvec/gridvec.hpp).
#include <caf/actor_system.hpp>

#include "actors/protocol.hpp"
#include "src/util/expected.hpp"
#include "src/config/options.hpp"
#include "src/formats/report.hpp"

namespace gridvec {

/// A node hosting every role and a controller, in this actor system: ask it
/// for its controller (controller_atom) and submit jobs there. Send it
/// stop_atom when done; it stops the controller and the last job with it.
node_actor spawn_local_gridvec(caf::actor_system& sys);

/// Runs one job on a local gridvec and waits until the vectors are written
/// (or the job fails): the job's summary or one error line. Blocks; do not
/// call it from inside an actor.
expected<job_summary> run_train_job(caf::actor_system& sys, const train_options& options);

} // namespace gridvec
