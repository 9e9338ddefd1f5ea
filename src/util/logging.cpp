// gridvec/logging.hpp: where gridvec's log lines go.
#include <gridvec/logging.hpp>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace gridvec {

void configure_logging(log_level level) {
  // The sink is made here rather than with stderr_logger_mt, which throws
  // if a logger of that name exists (configure_logging called twice).
  auto logger = std::make_shared<spdlog::logger>("gridvec", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("[%H:%M:%S.%e] %v");
  switch (level) {
    case log_level::info: logger->set_level(spdlog::level::info); break;
    case log_level::warn: logger->set_level(spdlog::level::warn); break;
    case log_level::error: logger->set_level(spdlog::level::err); break;
    case log_level::off: logger->set_level(spdlog::level::off); break;
  }
  spdlog::set_default_logger(std::move(logger));
}

} // namespace gridvec
