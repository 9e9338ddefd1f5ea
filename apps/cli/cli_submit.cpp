// gridvec submit: runs a training job on a cluster. Connects to the
// coordinator's node named in the cluster config, submits the job with the
// same flags as `gridvec train`, streams its progress and exits 0 once the
// vectors are written.
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <unistd.h>

#include <gridvec/cluster.hpp> // configure_cluster_system, controller_client

#include "apps/cli/cli.hpp"
#include "apps/cli/staged_corpus.hpp"
#include <gridvec/roles/coordinator.hpp> // progress_prefix
#include "apps/shell/progress_lines.hpp"
#include <gridvec/core/cluster_config.hpp>
#include "src/util/atomic_file.hpp"
#include "src/util/human_units.hpp"

namespace gridvec {

namespace {

// Set by SIGINT (Ctrl-C): the wait for the job ends and the job is cancelled.
std::atomic<bool> interrupted{false};

extern "C" void on_submit_interrupt(int) { interrupted.store(true); }

// Runs the job through the controller client the shell uses, printing its
// progress lines; Ctrl-C cancels the job (it would otherwise go on running
// on the cluster with no one waiting for it).
expected<job_summary> run_job(caf::actor_system& sys, const cluster_config& cluster, const train_options& opt) {
  const auto& coordinator = cluster.coordinator();
  const auto timeout = std::chrono::milliseconds(cluster.connect_timeout_ms);
  controller_client client{sys, coordinator.host, coordinator.port, timeout, std::chrono::seconds(30)};
  if (auto ok = client.connect(); !ok)
    return failure{"the coordinator's node " + coordinator.name + " is not reachable: " + ok.error()};
  client.set_interrupt_flag(&interrupted);
  struct sigaction on_int {};
  on_int.sa_handler = on_submit_interrupt;
  sigemptyset(&on_int.sa_mask);
  sigaction(SIGINT, &on_int, nullptr);
  progress_lines show{[](const std::string& text) {
                        std::fputs(text.c_str(), stderr);
                        std::fflush(stderr);
                      },
                      ::isatty(STDERR_FILENO) == 1, log_time_stamp};
  const bool progress = opt.debug >= 2; // -debug 0 and 1: no progress lines
  auto summary = client.submit(opt, [&show, progress](const std::string& line) {
    if (progress || line.rfind(progress_prefix, 0) != 0)
      show(line);
  });
  show.close();
  signal(SIGINT, SIG_DFL);
  if (!summary && interrupted.load()) {
    client.set_interrupt_flag(nullptr);
    auto cancelled = client.cancel();
    return failure{cancelled ? "interrupted: the job was cancelled"
                             : "interrupted; cancelling the job failed (" + cancelled.error() +
                                 "): it may still be running, see `gridvec shell --connect` and its cancel"};
  }
  return summary;
}

} // namespace

int cli_submit(const std::vector<std::string>& args) {
  std::string config_path;
  bool keep_running = false, shutdown = false;
  std::vector<std::string> train_args;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::puts("usage: gridvec submit --config CLUSTER.conf [--shutdown | --keep-running]\n"
                "                      -train CORPUS -output VECTORS [train options]\n"
                "       gridvec submit --config CLUSTER.conf [--shutdown | --keep-running]\n"
                "                      --resume CHECKPOINT_DIR [-output FILE]\n"
                "Runs a training job on the cluster; the training options are those of\n"
                "`gridvec train --help` (-threads is ignored: the config places the learners;\n"
                "--shards defaults to the config's total). --resume continues a job from its\n"
                "checkpoints. The cluster's nodes (and their tables) outlive the job: stop\n"
                "them with `gridvec stop --config CLUSTER.conf`. --shutdown stops every node\n"
                "once the job ends (as `shutdown-after-job = true` in the config's [cluster]\n"
                "does; --keep-running overrides that); a job that could not start leaves them\n"
                "up either way. Ctrl-C cancels the job.");
      return 0;
    }
    if ((args[i] == "--config" || args[i] == "-config") && i + 1 < args.size())
      config_path = args[++i];
    else if (args[i] == "--keep-running")
      keep_running = true;
    else if (args[i] == "--shutdown")
      shutdown = true;
    else
      train_args.push_back(args[i]);
  }
  if (config_path.empty()) {
    std::fprintf(stderr, "gridvec submit: missing --config FILE (the cluster config)\n");
    return 2;
  }
  if (keep_running && shutdown) {
    std::fprintf(stderr, "gridvec submit: --shutdown and --keep-running contradict each other; give one\n");
    return 2;
  }
  auto cluster = load_cluster_config(config_path);
  if (!cluster) {
    std::fprintf(stderr, "gridvec submit: %s\n", cluster.error().c_str());
    return 2;
  }
  auto opt = parse_train_options(train_args);
  if (!opt) {
    std::fprintf(stderr, "gridvec submit: %s\n", opt.error().c_str());
    return 2;
  }
  // Nodes read and write these on the shared file system, from their own
  // working directories.
  make_paths_absolute(*opt);
  std::string report = opt->report;
  opt->report.clear(); // written here, from the summary
  opt->stop_cluster = shutdown || (cluster->shutdown_after_job && !keep_running);
  {
    train_options checked = *opt;
    checked.report = report;
    if (auto s = check_outputs(checked); !s) {
      std::fprintf(stderr, "gridvec submit: %s\n", s.error().c_str());
      return 1;
    }
  }
  setup_logging();
  if (opt->debug == 0)
    spdlog::set_level(spdlog::level::warn);
  // Several files, a directory, .gz or stdin: staged into --work-dir, which
  // the nodes share, before the job is submitted.
  auto staged = staged_corpus::prepare(*opt, true);
  if (!staged) {
    std::fprintf(stderr, "gridvec submit: %s\n", staged.error().c_str());
    return 1;
  }
  expected<job_summary> result = failure{"the job ended without an answer"};
  {
    caf::actor_system_config cfg;
    if (auto ok = configure_cluster_system(cfg, *cluster); !ok) {
      std::fprintf(stderr, "gridvec submit: %s\n", ok.error().c_str());
      return 2;
    }
    caf::actor_system sys{cfg};
    result = run_job(sys, *cluster, *opt);
  }
  if (!result) {
    const std::string& error = result.error();
    std::fprintf(stderr, "gridvec submit: %s\n", error.c_str());
    if (!report.empty() && is_divergence(error))
      if (auto st = write_failure_report(report, job_summary{}, error); !st)
        std::fprintf(stderr, "gridvec submit: %s\n", st.error().c_str());
    return 1;
  }
  const job_summary& s = *result;
  if (opt->explain) { // the partition model's table; nothing was trained
    std::fputs(s.explanation.c_str(), stdout);
    return 0;
  }
  if (!report.empty())
    if (auto st = write_report(report, s); !st) {
      std::fprintf(stderr, "gridvec submit: %s\n", st.error().c_str());
      return 1;
    }
  // Where memory went: every node's peak beside the plan, then the largest
  // on the closing line.
  for (const auto& m : s.memory)
    spdlog::info("memory: node {} peak RSS {} (planned {}, budget {})", m.node,
                 m.peak_rss_bytes > 0 ? human_bytes(m.peak_rss_bytes) : std::string{"unknown (lost or silent)"},
                 m.planned_bytes > 0 ? human_bytes(m.planned_bytes) : std::string{"-"},
                 m.budget_bytes > 0 ? human_bytes(m.budget_bytes) : std::string{"unknown"});
  spdlog::info("done in {:.1f} s: {} words/s, {} vectors of {} written to {}, peak RSS {}{}", s.seconds,
               human_count(s.words_per_second()), s.vocab_size, s.dim, opt->output, human_bytes(s.peak_rss_bytes),
               s.peak_rss_node.empty() ? std::string{} : " on node " + s.peak_rss_node);
  return 0;
}

} // namespace gridvec
