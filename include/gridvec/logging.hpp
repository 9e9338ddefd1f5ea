#pragma once
// gridvec's actors log what they do (a job's phases, warnings, its progress
// line) through spdlog's default logger, which writes to stdout unless the
// application has set up its own.
#include <string>

namespace gridvec {

enum class log_level { info, warn, error, off };

/// Makes spdlog's default logger write one plain line per message to
/// stderr, "[HH:MM:SS] text", as the gridvec binary does, and drops messages
/// below `level`. This replaces the default logger: an application that
/// logs through spdlog itself may prefer to configure spdlog directly.
void configure_logging(log_level level = log_level::info);

} // namespace gridvec
