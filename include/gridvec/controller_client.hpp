#pragma once
// (Public header of actors/controller_client.cpp.)
// The one client of a cluster's controller (include/gridvec/roles/controller.hpp),
// shared by the shell, `gridvec submit` and applications (public through
// <gridvec/cluster.hpp>): one method per controller request, each of which
// blocks until the reply, an error, a timeout or an interrupt (Ctrl-C).
//
// Every request is made by a short-lived helper actor that monitors the
// controller, so a controller that goes away ends the wait at once (a dead
// peer never answers, and CAF 0.17's requests do not notice by themselves);
// the helper is also the listener of `submit`'s progress lines. Quick
// queries have a finite timeout; the commands that last as long as a job
// (submit, wait, export, checkpoint) wait while the controller is alive,
// up to a long bound, and can be interrupted.
#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>

namespace gridvec {

class controller_client {
public:
  using millis = std::chrono::milliseconds;
  using line_handler = std::function<void(const std::string&)>;

  /// A client of the controller of the node at host:port; connect() connects.
  controller_client(caf::actor_system& sys, std::string host, uint16_t port, millis connect_timeout,
                    millis query_timeout);

  /// Connects to the node and asks it for its controller, within the
  /// connect timeout. Fails with one line ("cannot reach ...", "node x is
  /// not the coordinator's node ...").
  gridvec::status connect();

  /// "host:port".
  std::string where() const { return host_ + ":" + std::to_string(port_); }

  /// While *flag is true, waiting stops with "interrupted" (set by SIGINT).
  void set_interrupt_flag(const std::atomic<bool>* flag) { interrupt_ = flag; }
  /// Whether the interrupt flag is set now.
  bool interrupted() const { return interrupt_ && interrupt_->load(); }

  expected<job_status> current_status();
  expected<std::vector<node_status>> nodes();
  expected<std::vector<shard_status>> shards();
  expected<std::vector<learner_status>> learners();
  /// Starts a job; its number.
  expected<uint64_t> start(const train_options& opt);
  /// Runs a job to its end; `on_line` gets its progress lines meanwhile.
  expected<job_summary> submit(const train_options& opt, line_handler on_line);
  /// The current job's summary once it ends; `limit` (> 0) bounds the wait.
  expected<job_summary> wait(millis limit);
  /// The current job's error if it fails within `limit`; success if it is
  /// still running then, ended well, or the wait was interrupted.
  gridvec::status failure_within(millis limit);
  expected<bool> pause();
  expected<bool> resume();
  expected<checkpoint_info> checkpoint();
  expected<bool> cancel();
  expected<uint64_t> export_vectors(const std::string& path, bool binary);
  expected<std::vector<neighbour>> nearest(const std::string& word, uint32_t k);
  expected<std::vector<neighbour>> analogy(const std::string& a, const std::string& b, const std::string& c,
                                           uint32_t k);
  /// Tells the controller to stop every node of the cluster, and waits
  /// (within the query timeout) until the controller is gone.
  gridvec::status shutdown();

private:
  // Sends one request through a helper actor and waits for its outcome.
  // `ask(self, timeout)` makes the request and returns its response handle.
  template <class Reply, class Ask>
  expected<Reply> call(millis timeout, Ask ask, line_handler on_line = {});

  template <class Reply>
  struct reply_box;

  template <class Reply>
  expected<Reply> await(const std::shared_ptr<reply_box<Reply>>& box, const caf::actor& helper, millis timeout);

  gridvec::status ensure_connected();

  // wait() and failure_within(): the summary, or nothing if the job is
  // still running when `limit` (> 0) is over.
  expected<std::optional<job_summary>> wait_for_end(millis limit);

  caf::actor_system& sys_;
  std::string host_;
  uint16_t port_;
  millis connect_timeout_;
  millis query_timeout_;
  controller_actor controller_;
  // Set by a helper (on a CAF thread) when the controller went away: the
  // next command connects again.
  std::shared_ptr<std::atomic<bool>> lost_ = std::make_shared<std::atomic<bool>>(true);
  const std::atomic<bool>* interrupt_ = nullptr;
};

} // namespace gridvec
