// gridvec train: the whole pipeline (vocabulary, preprocessing, training,
// export) inside one process, built from the same actors as a cluster.
#include <caf/all.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>

#include <gridvec/roles/coordinator.hpp>
#include <gridvec/local.hpp>
#include "src/util/atomic_file.hpp"
#include "apps/cli/cli.hpp"
#include "apps/cli/staged_corpus.hpp"
#include "src/util/human_units.hpp"
#include <gridvec/core/options.hpp>

namespace gridvec {

void setup_logging() {
  auto logger = spdlog::stderr_logger_mt("gridvec");
  logger->set_pattern("[%H:%M:%S.%e] %v");
  spdlog::set_default_logger(logger);
}

namespace {

void on_signal(int) { request_cancel(); }

} // namespace

int cli_train(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-help" || a == "-h") {
      std::fputs(train_help().c_str(), stdout);
      return 0;
    }
  auto opt = parse_train_options(args);
  if (!opt) {
    std::fprintf(stderr, "gridvec train: %s\n", opt.error().c_str());
    return 2;
  }
  // Checkpoints record these paths; a resumed job may run from elsewhere.
  make_paths_absolute(*opt);
  // Fails early, before hours of training, if a file cannot be written there.
  if (auto s = check_outputs(*opt); !s) {
    std::fprintf(stderr, "gridvec train: %s\n", s.error().c_str());
    return 1;
  }
  setup_logging();
  if (opt->debug == 0) // as word2vec.c's -debug 0: nothing but trouble
    spdlog::set_level(spdlog::level::warn);
  auto staged = staged_corpus::prepare(*opt, false);
  if (!staged) {
    std::fprintf(stderr, "gridvec train: %s\n", staged.error().c_str());
    return 1;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  caf::actor_system_config cfg;
  configure_scheduler(cfg, opt->threads);
  caf::actor_system sys{cfg};
  auto result = run_train_job(sys, *opt);
  if (!result) {
    std::fprintf(stderr, "gridvec train: %s\n", result.error().c_str());
    return 1;
  }
  if (opt->explain) { // the partition model's table; nothing was trained
    std::fputs(result->explanation.c_str(), stdout);
    return 0;
  }
  if (opt->classes > 0)
    spdlog::info("done in {:.1f} s: {} words/s, the classes of {} words written, peak RSS {}", result->seconds,
                 human_count(result->words_per_second()), result->vocab_size, human_bytes(result->peak_rss_bytes));
  else
    spdlog::info("done in {:.1f} s: {} words/s, {} vectors of {} written, peak RSS {}", result->seconds,
                 human_count(result->words_per_second()), result->vocab_size, result->dim,
                 human_bytes(result->peak_rss_bytes));
  return 0;
}

} // namespace gridvec
