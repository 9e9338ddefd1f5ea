// gridvec submit: runs a training job on a cluster. Connects to the
// coordinator's node named in the cluster config, submits the job with the
// same flags as `gridvec train`, streams its progress and exits 0 once the
// vectors are written.
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>


#include <gridvec/cluster.hpp> // configure_cluster_system

#include "actors/connect.hpp"
#include "actors/message_types.hpp"
#include "src/util/atomic_file.hpp"
#include "apps/cli/cli.hpp"
#include "src/config/cluster_config.hpp"

namespace gridvec {

namespace {

struct submit_outcome {
  std::optional<expected<job_summary>> result;
};

// Connects, submits, prints progress lines; ends when the job does or the
// coordinator's node goes away.
caf::behavior submit_client(caf::event_based_actor* self, node_spec coordinator,
                            uint32_t connect_timeout_ms, train_options opt,
                            std::shared_ptr<submit_outcome> out) {
  auto done = [self, out](expected<job_summary> r) {
    if (!out->result)
      out->result.emplace(std::move(r));
    self->quit();
  };
  connect_to_node(self, coordinator.host, coordinator.port, std::chrono::milliseconds(connect_timeout_ms),
                  [self, opt, done, name = coordinator.name](expected<caf::strong_actor_ptr> ptr) {
                    if (!ptr) {
                      done(failure{"the coordinator's node " + name + " is not reachable: " + ptr.error()});
                      return;
                    }
                    auto node = caf::actor_cast<node_actor>(std::move(*ptr));
                    self->monitor(node);
                    self->request(node, std::chrono::seconds(30), controller_atom::value)
                      .then(
                        [self, opt, done](const controller_actor& controller) {
                          self->request(controller, caf::infinite, submit_atom::value, opt,
                                        caf::actor_cast<caf::actor>(self))
                            .then([done](job_summary& s) { done(std::move(s)); },
                                  [done](caf::error& err) { done(failure{error_text(err)}); });
                        },
                        [done](caf::error& err) { done(failure{error_text(err)}); });
                  });
  self->set_down_handler([done](const caf::down_msg&) {
    done(failure{"the coordinator's node went down before the job finished"});
  });
  return {
    [](line_atom, const std::string& line) { spdlog::info("{}", line); },
  };
}

} // namespace

int cli_submit(const std::vector<std::string>& args) {
  std::string config_path;
  bool keep_running = false;
  std::vector<std::string> train_args;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::puts("usage: gridvec submit --config CLUSTER.conf [--keep-running] -train CORPUS -output VECTORS [train options]\n"
                "       gridvec submit --config CLUSTER.conf [--keep-running] --resume CHECKPOINT_DIR [-output FILE]\n"
                "Runs a training job on the cluster; the training options are those of\n"
                "`gridvec train --help` (-threads is ignored: the config places the learners;\n"
                "--shards defaults to the config's total). --resume continues a job from its\n"
                "checkpoints. The cluster's nodes stop when the job ends, unless --keep-running.");
      return 0;
    }
    if ((args[i] == "--config" || args[i] == "-config") && i + 1 < args.size())
      config_path = args[++i];
    else if (args[i] == "--keep-running")
      keep_running = true;
    else
      train_args.push_back(args[i]);
  }
  if (config_path.empty()) {
    std::fprintf(stderr, "gridvec submit: missing --config FILE (the cluster config)\n");
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
  opt->stop_cluster = !keep_running;
  {
    train_options checked = *opt;
    checked.report = report;
    if (auto s = check_outputs(checked); !s) {
      std::fprintf(stderr, "gridvec submit: %s\n", s.error().c_str());
      return 1;
    }
  }
  setup_logging();
  auto out = std::make_shared<submit_outcome>();
  {
    caf::actor_system_config cfg;
    if (auto ok = configure_cluster_system(cfg, *cluster); !ok) {
      std::fprintf(stderr, "gridvec submit: %s\n", ok.error().c_str());
      return 2;
    }
    caf::actor_system sys{cfg};
    sys.spawn(submit_client, cluster->coordinator(), cluster->connect_timeout_ms, *opt, out);
    sys.await_all_actors_done();
  }
  if (!out->result || !*out->result) {
    const std::string error = out->result ? out->result->error() : "the job ended without an answer";
    std::fprintf(stderr, "gridvec submit: %s\n", error.c_str());
    if (!report.empty() && is_divergence(error))
      if (auto st = write_failure_report(report, job_summary{}, error); !st)
        std::fprintf(stderr, "gridvec submit: %s\n", st.error().c_str());
    return 1;
  }
  const job_summary& s = **out->result;
  if (!report.empty())
    if (auto st = write_report(report, s); !st) {
      std::fprintf(stderr, "gridvec submit: %s\n", st.error().c_str());
      return 1;
    }
  spdlog::info("done in {:.1f} s: {:.0f} words/s, {} vectors of {} written to {}", s.seconds,
               s.words_per_second(), s.vocab_size, s.dim, opt->output);
  return 0;
}

} // namespace gridvec
