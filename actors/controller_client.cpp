#include <gridvec/controller_client.hpp>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>

#include <gridvec/cluster.hpp> // connect_to_controller

namespace gridvec {

namespace {

using clock = std::chrono::steady_clock;

// Bounds of the requests that last as long as a job: a job's run, and a
// checkpoint or export (the controller gives those an hour).
constexpr auto job_timeout = std::chrono::hours(24 * 7);
constexpr auto write_timeout = std::chrono::hours(2);

std::string seconds_text(std::chrono::milliseconds t) {
  const auto ms = t.count();
  if (ms % 1000 != 0) { // a `wait 0.5`
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f seconds", static_cast<double>(ms) / 1000);
    return buf;
  }
  return std::to_string(ms / 1000) + (ms == 1000 ? " second" : " seconds");
}

// What a wait ended by SIGINT fails with.
constexpr const char* interrupted_text = "interrupted";

// One line for an error of a request to the controller.
std::string describe(const caf::error& err, std::chrono::milliseconds timeout) {
  if (err == caf::sec::request_timeout)
    return "no answer from the controller within " + seconds_text(timeout);
  if (err == caf::sec::request_receiver_down)
    return "the controller is gone";
  return error_text(err);
}

} // namespace

// Where a helper actor leaves its outcome for the waiting shell thread.
template <class Reply>
struct controller_client::reply_box {
  std::mutex mutex;
  std::condition_variable ready;
  std::optional<expected<Reply>> value;

  void set(expected<Reply> v) {
    {
      std::lock_guard<std::mutex> guard{mutex};
      if (value)
        return; // the first outcome wins (a reply, then the peer's end)
      value.emplace(std::move(v));
    }
    ready.notify_all();
  }
};

controller_client::controller_client(caf::actor_system& sys, std::string host, uint16_t port, millis connect_timeout,
                                     millis query_timeout)
  : sys_(sys), host_(std::move(host)), port_(port), connect_timeout_(connect_timeout), query_timeout_(query_timeout) {}

template <class Reply>
expected<Reply> controller_client::await(const std::shared_ptr<reply_box<Reply>>& box, const caf::actor& helper,
                                         millis timeout) {
  // The helper's request has its own timeout; this later deadline only
  // guards against a helper that never reports.
  const auto deadline = clock::now() + timeout + std::chrono::seconds(5);
  std::unique_lock<std::mutex> lock{box->mutex};
  while (!box->value) {
    if (interrupt_ && interrupt_->load()) {
      lock.unlock();
      caf::anon_send_exit(helper, caf::exit_reason::user_shutdown);
      return failure{interrupted_text, error_code::interrupted};
    }
    if (clock::now() > deadline) {
      lock.unlock();
      caf::anon_send_exit(helper, caf::exit_reason::user_shutdown);
      return failure{"no answer from the controller within " + seconds_text(timeout), error_code::timeout};
    }
    box->ready.wait_for(lock, std::chrono::milliseconds(100));
  }
  return std::move(*box->value);
}

status controller_client::connect() {
  auto box = std::make_shared<reply_box<controller_actor>>();
  const auto host = host_;
  const auto port = port_;
  const auto timeout = connect_timeout_;
  auto helper = sys_.spawn([=](caf::event_based_actor* self) -> caf::behavior {
    connect_to_controller(self, host, port, timeout, [=](expected<controller_actor> controller) {
      box->set(std::move(controller));
      self->quit();
    });
    return {[](stop_atom) {}}; // the helper lives on its requests' replies
  });
  // Connecting, then asking for the controller: two timeouts at most.
  auto controller = await(box, helper, 2 * connect_timeout_);
  if (!controller)
    return failure{controller.error()};
  controller_ = std::move(*controller);
  lost_->store(false);
  return {};
}

status controller_client::ensure_connected() {
  if (!lost_->load())
    return {};
  if (auto st = connect(); !st)
    return failure{"not connected to the controller: " + st.error(), st.code()};
  return {};
}

template <class Reply, class Ask>
expected<Reply> controller_client::call(millis timeout, Ask ask, line_handler on_line) {
  if (auto st = ensure_connected(); !st)
    return st.why();
  auto box = std::make_shared<reply_box<Reply>>();
  auto lost = lost_;
  auto controller = controller_;
  const auto where = this->where();
  auto helper = sys_.spawn([=](caf::event_based_actor* self) -> caf::behavior {
    self->monitor(controller);
    self->set_down_handler([=](const caf::down_msg&) {
      lost->store(true);
      box->set(failure{"the coordinator's node went down: lost the connection to the controller at " + where,
                       error_code::unavailable});
      self->quit();
    });
    ask(self, controller, timeout)
      .then(
        [=](Reply& reply) {
          box->set(std::move(reply));
          self->quit();
        },
        [=](caf::error& err) {
          box->set(failure{describe(err, timeout), error_code_of(err)});
          self->quit();
        });
    return {[on_line](line_atom, const std::string& line) {
      if (on_line)
        on_line(line);
    }};
  });
  return await(box, helper, timeout);
}

// The requests. Each `ask` runs inside the helper actor.

expected<job_status> controller_client::current_status() {
  return call<job_status>(query_timeout_, [](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, status_atom::value);
  });
}

expected<std::vector<node_status>> controller_client::nodes() {
  return call<std::vector<node_status>>(query_timeout_, [](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, nodes_atom::value);
  });
}

expected<std::vector<shard_status>> controller_client::shards() {
  return call<std::vector<shard_status>>(query_timeout_, [](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, shards_atom::value);
  });
}

expected<std::vector<learner_status>> controller_client::learners() {
  return call<std::vector<learner_status>>(query_timeout_, [](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, learners_atom::value);
  });
}

expected<uint64_t> controller_client::start(const train_options& opt) {
  return call<uint64_t>(query_timeout_, [opt](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, start_atom::value, opt);
  });
}

expected<job_summary> controller_client::submit(const train_options& opt, line_handler on_line) {
  return call<job_summary>(
    job_timeout,
    [opt](auto* self, const controller_actor& c, millis t) {
      // The helper itself listens to the job's progress lines.
      return self->request(c, t, submit_atom::value, opt, caf::actor_cast<caf::actor>(self));
    },
    std::move(on_line));
}

expected<std::optional<job_summary>> controller_client::wait_for_end(millis limit) {
  const millis timeout = limit.count() > 0 ? limit : millis{job_timeout};
  auto r = call<job_summary>(
    timeout, [](auto* self, const controller_actor& c, millis t) { return self->request(c, t, wait_atom::value); });
  if (r)
    return std::optional<job_summary>{std::move(*r)};
  // The request's own timeout is the limit running out.
  if (limit.count() > 0 && r.code() == error_code::timeout)
    return std::optional<job_summary>{};
  return r.why();
}

expected<job_summary> controller_client::wait(millis limit) {
  auto r = wait_for_end(limit);
  if (!r)
    return r.why();
  if (!*r)
    return failure{"the job is still running after " + seconds_text(limit), error_code::timeout};
  return std::move(**r);
}

status controller_client::failure_within(millis limit) {
  auto r = wait_for_end(limit);
  if (!r && r.code() != error_code::interrupted)
    return r.why();
  return {};
}

expected<bool> controller_client::pause() {
  return call<bool>(query_timeout_, [](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, pause_atom::value);
  });
}

expected<bool> controller_client::resume() {
  return call<bool>(query_timeout_, [](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, resume_atom::value);
  });
}

expected<checkpoint_info> controller_client::checkpoint() {
  return call<checkpoint_info>(write_timeout, [](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, checkpoint_atom::value);
  });
}

expected<bool> controller_client::cancel() {
  return call<bool>(query_timeout_, [](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, cancel_atom::value);
  });
}

expected<uint64_t> controller_client::export_vectors(const std::string& path, bool binary) {
  return call<uint64_t>(write_timeout, [path, binary](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, export_atom::value, path, binary);
  });
}

expected<std::vector<neighbour>> controller_client::nearest(const std::string& word, uint32_t k) {
  return call<std::vector<neighbour>>(query_timeout_, [word, k](auto* self, const controller_actor& c, millis t) {
    return self->request(c, t, nearest_atom::value, word, k);
  });
}

expected<std::vector<neighbour>> controller_client::analogy(const std::string& a, const std::string& b,
                                                            const std::string& c, uint32_t k) {
  return call<std::vector<neighbour>>(query_timeout_, [a, b, c, k](auto* self, const controller_actor& ctl, millis t) {
    return self->request(ctl, t, analogy_atom::value, a, b, c, k);
  });
}

status controller_client::shutdown() {
  if (auto st = ensure_connected(); !st)
    return st;
  auto box = std::make_shared<reply_box<bool>>();
  auto lost = lost_;
  auto controller = controller_;
  const auto timeout = query_timeout_;
  auto helper = sys_.spawn([=](caf::event_based_actor* self) -> caf::behavior {
    // `stop` has no reply: the controller's end is the answer.
    self->monitor(controller);
    self->set_down_handler([=](const caf::down_msg&) {
      lost->store(true);
      box->set(true);
      self->quit();
    });
    self->send(controller, stop_atom::value);
    return {caf::after(timeout) >> [=] {
      box->set(failure{"the controller did not stop within " + seconds_text(timeout)});
      self->quit();
    }};
  });
  auto r = await(box, helper, timeout);
  if (!r)
    return failure{r.error()};
  return {};
}

} // namespace gridvec
