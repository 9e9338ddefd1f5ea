#pragma once
// Running one training job inside an actor system: the entry point of
// `gridvec train`, and of applications that embed gridvec.
#include <caf/actor_system.hpp>

#include "src/expected.hpp"
#include "src/options.hpp"
#include "src/report.hpp"

namespace gridvec {

/// Spawns a coordinator for `options`, waits until the vectors are written
/// (or the job fails) and returns the job's summary or one error line.
expected<job_summary> run_train_job(caf::actor_system& sys, const train_options& options);

} // namespace gridvec
