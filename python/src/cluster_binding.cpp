// _gridvec.Cluster: a running cluster's controller, through the client the
// shell and `gridvec submit` use (controller_client), in an actor system
// set up from the cluster config as theirs are (its secret, TLS, bounds).
#include "python/src/cluster_session.hpp"

#include <pybind11/stl.h>

#include <optional>

#include <gridvec/core/options.hpp>
#include <gridvec/core/report.hpp>

#include "apps/cli/staged_corpus.hpp"

namespace gridvec::python {

namespace {

using millis = std::chrono::milliseconds;

// A job's options as `gridvec submit` prepares them: parsed by the train
// parser, paths absolute (the nodes open them), outputs checked now rather
// than after the training, the corpus staged into --work-dir if it is not
// one plain file.
train_options job_options(const std::vector<std::string>& args, bool shutdown) {
  auto opt = parse_train_options(args);
  if (!opt)
    throw py::value_error(opt.error());
  make_paths_absolute(*opt);
  check(check_outputs(*opt));
  opt->stop_cluster = shutdown;
  return std::move(*opt);
}

void stage(train_options& opt) {
  py::gil_scoped_release unlocked;
  take(staged_corpus::prepare(opt, true));
}

// A quick request: the GIL released while it waits; the client's query
// timeout bounds it.
template <class F>
auto blocking(cluster_session& session, F&& request) {
  py::gil_scoped_release unlocked;
  std::lock_guard<std::mutex> one_at_a_time{session.client_mutex};
  return request();
}

// A request that lasts as long as a job: Ctrl-C ends the wait (the
// client's interrupt flag).
template <class F>
auto interruptible(cluster_session& session, F&& request) {
  auto one_at_a_time = session.lock_client();
  session.interrupt.store(false);
  std::optional<decltype(request())> result;
  run_interruptibly([&] { result.emplace(request()); }, [&] { session.interrupt.store(true); });
  return std::move(*result);
}

class cluster {
public:
  cluster(const std::string& config, double query_timeout) : session_(std::make_shared<cluster_session>()) {
    auto loaded = load_cluster_config(config);
    if (!loaded)
      throw py::value_error(loaded.error());
    session_->config = std::move(*loaded);
    session_->cfg = std::make_unique<caf::actor_system_config>();
    check(configure_cluster_system(*session_->cfg, session_->config));
    session_->sys = std::make_unique<caf::actor_system>(*session_->cfg);
    const auto& coordinator = session_->config.coordinator();
    session_->client = std::make_unique<controller_client>(*session_->sys, coordinator.host, coordinator.port,
                                                           millis(session_->config.connect_timeout_ms),
                                                           millis(static_cast<int64_t>(query_timeout * 1000)));
    session_->client->set_interrupt_flag(&session_->interrupt);
    auto connected = blocking(*session_, [&] { return session_->client->connect(); });
    if (!connected)
      throw gridvec_error("the coordinator's node " + coordinator.name + " is not reachable: " + connected.error());
  }

  std::string where() const { return session_->client->where(); }
  std::shared_ptr<cluster_session> session() const { return session_; }

  uint64_t start(const std::vector<std::string>& args, bool shutdown) {
    auto opt = job_options(args, shutdown);
    stage(opt);
    return take(blocking(*session_, [&] { return session_->client->start(opt); }));
  }

  py::dict submit(const std::vector<std::string>& args, bool shutdown, py::object on_line) {
    auto opt = job_options(args, shutdown);
    stage(opt);
    // Written here from the summary, with every node's traffic, as `gridvec submit` does.
    std::string report = opt.report;
    opt.report.clear();
    controller_client::line_handler handler;
    if (!on_line.is_none()) {
      // The handler is copied and dropped on CAF's threads: the callable's
      // last reference goes with the GIL held.
      std::shared_ptr<py::object> callback{new py::object(std::move(on_line)), [](py::object* o) {
                                             py::gil_scoped_acquire locked;
                                             delete o;
                                           }};
      handler = [callback](const std::string& line) {
        py::gil_scoped_acquire locked; // a CAF thread delivers the lines
        try {
          (*callback)(line);
        } catch (py::error_already_set& e) {
          e.discard_as_unraisable("gridvec progress callback");
        }
      };
    }
    auto summary = interruptible(*session_, [&] {
      auto s = session_->client->submit(opt, handler);
      // Ctrl-C: the job would go on with no one waiting for it.
      if (!s && session_->interrupt.exchange(false))
        if (auto cancelled = session_->client->cancel(); !cancelled)
          return expected<job_summary>{
            failure{"interrupted; cancelling the job failed (" + cancelled.error() + "): it may still be running"}};
      return s;
    });
    handler = nullptr;
    if (!summary) {
      if (!report.empty() && is_divergence(summary.error()))
        check(write_failure_report(report, job_summary{}, summary.error()));
      throw gridvec_error(summary.error());
    }
    if (!report.empty() && !opt.explain)
      check(write_report(report, *summary));
    return to_dict(*summary);
  }

  py::dict wait(double timeout) {
    auto limit = millis(timeout > 0 ? static_cast<int64_t>(timeout * 1000) : 0);
    return to_dict(take(interruptible(*session_, [&] { return session_->client->wait(limit); })));
  }

  py::dict status() {
    return to_dict(take(blocking(*session_, [&] { return session_->client->current_status(); })));
  }

  py::list nodes() {
    py::list out;
    for (const auto& n : take(blocking(*session_, [&] { return session_->client->nodes(); }))) {
      py::dict d;
      d["name"] = n.name;
      d["address"] = n.address;
      d["roles"] = n.roles;
      d["up"] = n.up;
      d["rss_bytes"] = n.rss_bytes;
      d["shards"] = n.shards;
      d["learners"] = n.learners;
      out.append(d);
    }
    return out;
  }

  bool pause() {
    return take(blocking(*session_, [&] { return session_->client->pause(); }));
  }
  bool resume() {
    return take(blocking(*session_, [&] { return session_->client->resume(); }));
  }
  bool cancel() {
    return take(blocking(*session_, [&] { return session_->client->cancel(); }));
  }

  py::dict checkpoint() {
    auto info = take(interruptible(*session_, [&] { return session_->client->checkpoint(); }));
    py::dict d;
    d["sequence"] = info.sequence;
    d["path"] = info.path;
    d["seconds"] = info.seconds;
    return d;
  }

  uint64_t export_vectors(const std::string& path, bool binary) {
    const std::string absolute = absolute_path(path);
    return take(interruptible(*session_, [&] { return session_->client->export_vectors(absolute, binary); }));
  }

  py::list nearest(const std::string& word, uint32_t k) {
    return to_list(take(blocking(*session_, [&] { return session_->client->nearest(word, k); })));
  }

  py::list analogy(const std::string& a, const std::string& b, const std::string& c, uint32_t k) {
    return to_list(take(blocking(*session_, [&] { return session_->client->analogy(a, b, c, k); })));
  }

  void shutdown() {
    check(blocking(*session_, [&] { return session_->client->shutdown(); }));
  }

private:
  std::shared_ptr<cluster_session> session_;
};

} // namespace

void bind_cluster(py::module_& m) {
  py::class_<cluster>(m, "Cluster")
    .def(py::init<const std::string&, double>(), py::arg("config"), py::arg("query_timeout") = 30.0)
    .def_property_readonly("address", &cluster::where)
    .def("start", &cluster::start, py::arg("args"), py::arg("shutdown") = false)
    .def("submit", &cluster::submit, py::arg("args"), py::arg("shutdown") = false, py::arg("on_line") = py::none())
    .def("wait", &cluster::wait, py::arg("timeout") = 0.0)
    .def("status", &cluster::status)
    .def("nodes", &cluster::nodes)
    .def("pause", &cluster::pause)
    .def("resume", &cluster::resume)
    .def("cancel", &cluster::cancel)
    .def("checkpoint", &cluster::checkpoint)
    .def("export", &cluster::export_vectors, py::arg("path"), py::arg("binary") = false)
    .def("nearest", &cluster::nearest, py::arg("word"), py::arg("k") = 10)
    .def("analogy", &cluster::analogy, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("k") = 10)
    .def("shutdown", &cluster::shutdown)
    .def(
      "tables", [](const cluster& c, double timeout) { return open_tables(c.session(), timeout); },
      py::arg("timeout") = 60.0);
}

} // namespace gridvec::python
