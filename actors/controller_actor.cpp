#include <gridvec/roles/controller.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "actors/connect.hpp"
#include <gridvec/roles/coordinator.hpp>
#include "actors/audit_log.hpp"
#include "src/access/path_policy.hpp"
#include "src/model/shard_placement.hpp"

namespace gridvec {

namespace {

constexpr auto query_timeout = std::chrono::seconds(60);
constexpr auto command_timeout = std::chrono::seconds(3600);

struct controller_state {
  controller_setup setup;
  std::vector<node_actor> handles; // by config node index; null: not connected
  std::vector<bool> node_down;     // seen going away

  uint64_t jobs = 0;
  coordinator_actor job; // the current or last job
  // The last job that wrote its vectors, while a newer one has not placed
  // shards of its own: queries go there if the newer one has no vectors
  // (it failed early, or is still counting), so a failed job hides nothing.
  coordinator_actor previous_job;
  bool running = false;
  train_options job_options;
  bool choose_shards = false;                   // the job gave no --shards: placement picks S
  std::optional<expected<job_summary>> outcome; // of the last job, once over
  std::vector<caf::typed_response_promise<job_summary>> waiters;
  // Stopping the cluster: the nodes (config indices) not yet known to have
  // their stop.
  bool stopping = false;
  std::vector<size_t> stop_unconfirmed;
  static inline const char* name = "controller";
};

using controller_ptr = controller_actor::stateful_pointer<controller_state>;

// This node goes last, and only once every other node has its stop: this
// node's stop ends the process that sends them, and a stop still queued
// for the network when the process ends is never sent (that node would
// then stay up). A node counts as stopped when it answers, or when nothing
// listens at its address any more; one that does neither (frozen) is given
// up after a second try (on a new connection, if the old one is gone), each
// with stop_ack_timeout.
//
// A lost connection alone does not count: CAF 0.17 drops a connection
// whose heartbeat comes late on a loaded machine, and the node behind it
// is still running. So a node seen going away, or never connected, is
// connected to again and sent its stop there.
constexpr auto stop_ack_timeout = std::chrono::seconds(3);

void stop_this_node(controller_ptr self) {
  if (self->state.setup.local_node)
    self->send(self->state.setup.local_node, stop_atom::value);
  self->quit();
}

// Node i has its stop; once every other node has, this one stops too.
void confirm_stopped(controller_ptr self, size_t i) {
  auto& left = self->state.stop_unconfirmed;
  auto it = std::find(left.begin(), left.end(), i);
  if (it == left.end())
    return;
  left.erase(it);
  if (left.empty())
    stop_this_node(self);
}

void send_stop(controller_ptr self, size_t i, int reconnects_left);

// Connects to node i (again: CAF reuses a connection that is still up)
// and sends it its stop there; a node that no longer listens has stopped.
void reconnect_and_stop(controller_ptr self, size_t i, int reconnects_left) {
  if (reconnects_left == 0)
    return confirm_stopped(self, i);
  const auto& cluster = *self->state.setup.cluster;
  const auto& spec = cluster.nodes[i];
  connect_to_node(self, spec.host, spec.port, std::chrono::milliseconds(cluster.connect_timeout_ms),
                  [self, i, reconnects_left](expected<caf::strong_actor_ptr> ptr) {
                    if (!ptr)
                      return confirm_stopped(self, i);
                    auto& st = self->state;
                    st.handles[i] = caf::actor_cast<node_actor>(std::move(*ptr));
                    st.node_down[i] = false;
                    send_stop(self, i, reconnects_left - 1);
                  });
}

void send_stop(controller_ptr self, size_t i, int reconnects_left) {
  auto& st = self->state;
  if (!st.handles[i] || st.node_down[i])
    return reconnect_and_stop(self, i, reconnects_left);
  self->request(st.handles[i], stop_ack_timeout, stop_atom::value)
    .then([self, i] { confirm_stopped(self, i); },
          // No answer: the stop may have been lost with its connection.
          [self, i, reconnects_left](caf::error&) { reconnect_and_stop(self, i, reconnects_left); });
}

void stop_cluster(controller_ptr self) {
  auto& st = self->state;
  if (st.stopping)
    return;
  st.stopping = true;
  if (st.job)
    self->send(st.job, stop_atom::value);
  if (st.previous_job)
    self->send(st.previous_job, stop_atom::value);
  st.stop_unconfirmed.clear();
  if (st.setup.cluster) {
    st.handles.resize(st.setup.cluster->nodes.size());
    st.node_down.resize(st.setup.cluster->nodes.size(), false);
    for (size_t i = 0; i < st.handles.size(); ++i)
      if (st.setup.cluster->nodes[i].name != st.setup.self_name)
        st.stop_unconfirmed.push_back(i);
  }
  if (st.stop_unconfirmed.empty())
    return stop_this_node(self);
  for (size_t i : std::vector<size_t>(st.stop_unconfirmed))
    send_stop(self, i, 1);
}

// `started`: false for a job that failed before it began (a node not
// reachable): the cluster then stays up even if the job asked to stop it,
// so that the user can start the missing node and submit again.
void job_over(controller_ptr self, uint64_t job, expected<job_summary> result, bool started = true) {
  auto& st = self->state;
  if (job != st.jobs)
    return;
  st.running = false;
  if (result && st.previous_job) { // this job's vectors take the place of the previous one's
    self->send(st.previous_job, stop_atom::value);
    st.previous_job = nullptr;
  }
  st.outcome.emplace(result);
  for (auto& rp : st.waiters) {
    if (result)
      rp.deliver(*result);
    else
      rp.deliver(make_job_error(result.why()));
  }
  st.waiters.clear();
  if (st.job_options.stop_cluster && started)
    stop_cluster(self);
}

std::vector<job_node> job_nodes(controller_state& st, const train_options& opt) {
  std::vector<job_node> nodes;
  if (!st.setup.cluster) {
    job_node local{st.setup.self_name, st.setup.local_node, true, true, opt.shards, opt.threads, false};
    nodes.push_back(local);
    return nodes;
  }
  for (size_t i = 0; i < st.setup.cluster->nodes.size(); ++i) {
    const auto& spec = st.setup.cluster->nodes[i];
    job_node n;
    n.name = spec.name;
    n.handle = st.handles[i];
    n.vocabulary = spec.has(node_role::vocabulary);
    n.exporter = spec.has(node_role::exporter);
    n.shard_capacity = spec.has(node_role::shard) ? spec.shards : 0;
    n.learners = spec.has(node_role::learner) && !spec.standby ? spec.learners : 0;
    n.standby = spec.standby;
    n.memory_budget = spec.memory;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

void run_job(controller_ptr self, uint64_t job, caf::actor listener) {
  auto& st = self->state;
  progress_sink sink;
  if (listener)
    sink = [listener](const std::string& line) { caf::anon_send(listener, line_atom::value, line); };
  const bool keep = !st.job_options.stop_cluster;
  // The previous job's shards go when this one places its own.
  placing_hook before_placing;
  if (st.previous_job)
    before_placing = [previous = st.previous_job] { caf::anon_send(previous, stop_atom::value); };
  st.job = spawn_coordinator(self->system(), job, st.job_options, job_nodes(st, st.job_options), sink, keep,
                             std::move(before_placing), st.choose_shards);
  self->request(st.job, caf::infinite, run_atom::value)
    .then([self, job](job_summary& s) { job_over(self, job, std::move(s)); },
          [self, job](caf::error& err) { job_over(self, job, failure_of(err)); });
}

// Learner nodes connect to every shard node themselves, so that minibatch
// traffic goes straight from learner to shard, never through a third node
// (and with --partition words, shard nodes to each other). Learner and
// vocabulary nodes connect to every other vocabulary node too: the count
// workers and the learners' word lookups talk to every vocabulary
// partition, and CAF would otherwise route those words through the
// coordinator's node, the one node they all know.
void link_nodes_directly(controller_ptr self, uint64_t job, caf::actor listener) {
  auto& st = self->state;
  const auto& cluster = *st.setup.cluster;
  // --partition words (or auto, which may choose it once the vocabulary
  // is known): the shards send each other input vectors, so shard nodes
  // connect to each other as well.
  const bool shards_talk = st.job_options.word_split() || st.job_options.partition_auto;
  // Whether node `from` should open a connection to node `to`. (A learner
  // node that is also a shard node links to itself, as it always has; the
  // coordinator's node already has a connection to every node.)
  auto links = [&](const node_spec& from, const node_spec& to) {
    const bool same = from.host == to.host && from.port == to.port;
    const bool learner = from.has(node_role::learner);
    if (to.has(node_role::shard) && (learner || (shards_talk && from.has(node_role::shard) && !same)))
      return true;
    return to.has(node_role::vocabulary) && !to.has(node_role::coordinator) && !same &&
           (learner || from.has(node_role::vocabulary));
  };
  auto pending = std::make_shared<size_t>(1);
  for (size_t i = 0; i < cluster.nodes.size(); ++i) {
    std::vector<std::string> to_hosts;
    std::vector<uint16_t> to_ports;
    for (const auto& to : cluster.nodes)
      if (links(cluster.nodes[i], to)) {
        to_hosts.push_back(to.host);
        to_ports.push_back(to.port);
      }
    if (to_hosts.empty())
      continue;
    const auto timeout = std::chrono::milliseconds(cluster.connect_timeout_ms * (to_hosts.size() + 1));
    ++*pending;
    auto name = cluster.nodes[i].name;
    self->request(st.handles[i], timeout, link_atom::value, to_hosts, to_ports)
      .then(
        [self, pending, job, listener](uint32_t) {
          if (--*pending == 0)
            run_job(self, job, listener);
        },
        [self, job, name](caf::error& err) {
          job_over(self, job,
                   failure{"node " + name + " cannot connect to the shard or vocabulary nodes: " + error_text(err)},
                   false);
        });
  }
  if (--*pending == 0)
    run_job(self, job, listener);
}

// Connects to every node of the config that is not connected yet (each
// within the config's connect timeout) and calls then(error or "").
void connect_all(controller_ptr self, std::function<void(std::string)> then) {
  auto& st = self->state;
  const auto& cluster = *st.setup.cluster;
  st.handles.resize(cluster.nodes.size());
  st.node_down.resize(cluster.nodes.size(), false);
  auto pending = std::make_shared<size_t>(1);
  auto first_error = std::make_shared<std::string>();
  auto one_done = [pending, first_error, then] {
    if (--*pending == 0)
      then(*first_error);
  };
  for (size_t i = 0; i < cluster.nodes.size(); ++i) {
    const auto& spec = cluster.nodes[i];
    if (spec.name == st.setup.self_name) {
      st.handles[i] = st.setup.local_node;
      continue;
    }
    if (st.handles[i] && !st.node_down[i])
      continue;
    ++*pending;
    auto name = spec.name;
    connect_to_node(self, spec.host, spec.port, std::chrono::milliseconds(cluster.connect_timeout_ms),
                    [self, i, name, first_error, one_done](expected<caf::strong_actor_ptr> ptr) {
                      auto& st = self->state;
                      if (!ptr) {
                        if (first_error->empty())
                          *first_error = "node " + name + " is not reachable: " + ptr.error();
                        st.handles[i] = nullptr;
                      } else {
                        st.handles[i] = caf::actor_cast<node_actor>(std::move(*ptr));
                        st.node_down[i] = false;
                        self->monitor(st.handles[i]);
                      }
                      one_done();
                    });
  }
  one_done();
}

// A job of more shards than the config's shard nodes declare is refused
// here, before counting, by the rule placement and recovery share.
caf::error check_job_shards(const controller_state& st, const train_options& opt) {
  if (!st.setup.cluster || opt.shards == 0 || !opt.resume.empty())
    return {};
  std::vector<shard_host> hosts;
  for (const auto& n : st.setup.cluster->nodes)
    hosts.push_back({n.name, n.has(node_role::shard) ? n.shards : 0, n.standby});
  if (auto placed = place_shards(hosts, opt.shards); !placed)
    return make_job_error(placed.error());
  return {};
}

caf::error check_can_start(const controller_state& st) {
  if (st.running)
    return make_job_error(error_code::busy, "job " + std::to_string(st.jobs) +
                                              " is still running on this cluster; wait for it or cancel it");
  return {};
}

uint64_t begin_job(controller_ptr self, const train_options& opt, caf::actor listener) {
  auto& st = self->state;
  // A job that wrote its vectors keeps its shards until this one places
  // its own (run_job), so that its vectors stay queryable if this one fails
  // first; any other previous job goes now.
  const bool last_good = st.job && st.outcome && *st.outcome;
  if (last_good) {
    if (st.previous_job)
      self->send(st.previous_job, stop_atom::value);
    st.previous_job = st.job;
    self->monitor(st.previous_job);
  } else if (st.job) {
    self->send(st.job, stop_atom::value);
  }
  st.job = nullptr;
  const uint64_t job = ++st.jobs;
  st.running = true;
  st.outcome.reset();
  st.job_options = opt;
  // The default: as many as the cluster config lists, or fewer where the
  // nodes' memory holds fewer (placement chooses, src/model/memory_plan.hpp).
  st.choose_shards = opt.shards == 0 && st.setup.cluster && opt.resume.empty();
  if (opt.shards == 0)
    st.job_options.shards = st.setup.cluster ? st.setup.cluster->total_shards() : 1;
  // Options built in code rather than by parse_train_options may leave
  // -threads at 0 ("all cores"): a local gridvec would get no learner.
  if (st.job_options.threads == 0)
    st.job_options.threads = std::max(1u, std::thread::hardware_concurrency());
  if (st.job_options.shards > st.job_options.size)
    st.job_options.shards = st.job_options.size;
  if (!st.setup.cluster) {
    run_job(self, job, listener);
    return job;
  }
  connect_all(self, [self, job, listener](std::string error) {
    if (!error.empty()) {
      job_over(self, job, failure{error}, false);
      return;
    }
    link_nodes_directly(self, job, listener);
  });
  return job;
}

// Every client checks its outputs before it submits; the node checks again,
// for the clients that do not (the API, an older gridvec). A resumed job's
// paths come from its checkpoint.
// Then every path must lie in the directories the cluster config allows
// (src/access/path_policy.hpp): checked here, on the node, whatever the
// client checked.
caf::error check_job_outputs(const controller_state& st, const train_options& opt) {
  if (opt.word_split()) {
    // The word partitions are the shards, or one shard's rows viewed as P.
    const uint32_t shards = opt.shards > 0 ? opt.shards : st.setup.cluster ? st.setup.cluster->total_shards() : 1;
    if (shards > 1 && opt.word_partitions > 0 && opt.word_partitions != shards)
      return make_job_error("--partition words over " + std::to_string(shards) +
                            " shards: the shards are the word partitions (drop --word-partitions " +
                            std::to_string(opt.word_partitions) + ")");
    if (shards == 1 && opt.word_partitions < 2)
      return make_job_error("--partition words on one shard needs --word-partitions P, 2 or more");
  }
  if (st.setup.cluster)
    if (auto s = access::path_policy{*st.setup.cluster}.check_job(opt); !s)
      return make_job_error(s.error());
  if (!opt.resume.empty())
    return {};
  if (auto s = check_outputs(opt); !s)
    return make_job_error(s.error());
  return {};
}

// Forwards a query or command to a job: the current one, or says there is none.
template <class Reply, class... Ts>
caf::result<Reply> forward_to(controller_ptr self, const coordinator_actor& target, Ts... xs) {
  if (!target)
    return make_job_error(error_code::not_found, "no job has been run yet (start one with `train` or `submit`)");
  auto rp = self->template make_response_promise<Reply>();
  self->request(target, command_timeout, xs...)
    .then([rp](Reply& r) mutable { rp.deliver(std::move(r)); }, [rp](caf::error& err) mutable { rp.deliver(err); });
  return rp;
}

template <class Reply, class... Ts>
caf::result<Reply> forward(controller_ptr self, Ts... xs) {
  return forward_to<Reply>(self, self->state.job, xs...);
}

// Queries of trained vectors (nearest, analogy, export, vector): the
// current job's once it wrote them; before that, or if it failed, the last
// job that did, while its shards are still up.
template <class Reply, class... Ts>
caf::result<Reply> forward_query(controller_ptr self, Ts... xs) {
  auto& st = self->state;
  const bool current_has_vectors = st.outcome && *st.outcome;
  const auto& target = !current_has_vectors && st.previous_job ? st.previous_job : st.job;
  return forward_to<Reply>(self, target, xs...);
}

// " of job N" (the current one), for the audit log.
std::string current_job(const controller_state& st) {
  return st.jobs > 0 ? " of job " + std::to_string(st.jobs) : " (no job)";
}

// The paths a job names, for the audit log.
std::string job_paths(const train_options& o) {
  std::string out;
  const std::pair<const char*, const std::string*> paths[] = {{"corpus", &o.train},
                                                              {"output", &o.output},
                                                              {"report", &o.report},
                                                              {"save-vocab", &o.save_vocab},
                                                              {"read-vocab", &o.read_vocab},
                                                              {"save-model", &o.save_model},
                                                              {"init", &o.init},
                                                              {"work-dir", &o.work_dir},
                                                              {"checkpoint-dir", &o.checkpoint_dir},
                                                              {"resume", &o.resume}};
  for (const auto& [name, path] : paths)
    if (!path->empty())
      out += (out.empty() ? "" : ", ") + std::string(name) + " " + *path;
  return out;
}

// Checks a job before it starts, and writes its audit line either way. A
// refused job's error is answered only once its line is written (the
// promise `refuse` delivers it then): a refused client disconnects at once,
// and its address is no longer known to the middleman after that.
template <class T>
caf::error admit_job(controller_ptr self, const train_options& opt, caf::typed_response_promise<T>& refuse) {
  auto& st = self->state;
  caf::error err = check_can_start(st);
  if (!err)
    err = check_job_shards(st, opt);
  if (!err)
    err = check_job_outputs(st, opt);
  const char* what = opt.resume.empty() ? "start" : "resume from a checkpoint";
  if (err) {
    auto sender = self->current_sender(); // before the promise takes the request over
    refuse = self->template make_response_promise<T>();
    audit_from(self, sender, std::string("refused to ") + what + " a job (" + job_paths(opt) + "): " + error_text(err),
               [refuse, err]() mutable { refuse.deliver(err); });
  } else {
    audit(self, std::string(what) + " job " + std::to_string(st.jobs + 1) + " (" + job_paths(opt) + ")");
  }
  return err;
}

controller_actor::behavior_type controller_behavior(controller_ptr self, controller_setup setup) {
  self->state.setup = std::move(setup);
  // Stopping this node stops the job it coordinates (not the other nodes).
  self->set_exit_handler([self](const caf::exit_msg& em) {
    if (self->state.job)
      self->send(self->state.job, stop_atom::value);
    if (self->state.previous_job)
      self->send(self->state.previous_job, stop_atom::value);
    self->quit(em.reason);
  });
  self->set_down_handler([self](const caf::down_msg& dm) {
    auto& st = self->state;
    if (st.previous_job && dm.source == st.previous_job.address())
      st.previous_job = nullptr; // its shards are gone (a newer job placed its own)
    for (size_t i = 0; i < st.handles.size(); ++i)
      if (st.handles[i] && dm.source == st.handles[i].address()) {
        st.node_down[i] = true;
        // Gone for good, or only its connection (see stop_ack_timeout):
        // asked again on a new one.
        if (st.stopping &&
            std::find(st.stop_unconfirmed.begin(), st.stop_unconfirmed.end(), i) != st.stop_unconfirmed.end())
          reconnect_and_stop(self, i, 1);
      }
  });
  return {
    [self](submit_atom, const train_options& opt, const caf::actor& listener) -> caf::result<job_summary> {
      auto& st = self->state;
      caf::typed_response_promise<job_summary> refused;
      if (admit_job(self, opt, refused))
        return refused;
      auto rp = self->make_response_promise<job_summary>();
      st.waiters.push_back(rp);
      begin_job(self, opt, listener);
      return rp;
    },
    [self](start_atom, const train_options& opt) -> caf::result<uint64_t> {
      caf::typed_response_promise<uint64_t> refused;
      if (admit_job(self, opt, refused))
        return refused;
      return begin_job(self, opt, nullptr);
    },
    [self](wait_atom) -> caf::result<job_summary> {
      auto& st = self->state;
      if (st.running) {
        auto rp = self->make_response_promise<job_summary>();
        st.waiters.push_back(rp);
        return rp;
      }
      if (!st.outcome)
        return make_job_error(error_code::not_found, "no job has been run yet");
      if (!*st.outcome)
        return make_job_error(st.outcome->why());
      return **st.outcome;
    },
    [self](status_atom) -> caf::result<job_status> {
      auto& st = self->state;
      if (!st.job) {
        job_status s;
        s.job = st.jobs;
        s.phase = st.running ? "connecting" : "idle";
        if (st.outcome && !*st.outcome) {
          s.phase = "failed";
          s.message = st.outcome->error();
        }
        return s;
      }
      return forward<job_status>(self, status_atom::value);
    },
    [self](shards_atom) { return forward<std::vector<shard_status>>(self, shards_atom::value); },
    [self](history_atom) -> caf::result<job_history> {
      if (!self->state.job) // none yet, or one that could not start: no history
        return job_history{};
      return forward<job_history>(self, history_atom::value);
    },
    [self](learners_atom) { return forward<std::vector<learner_status>>(self, learners_atom::value); },
    [self](nodes_atom) -> caf::result<std::vector<node_status>> {
      auto& st = self->state;
      auto rp = self->make_response_promise<std::vector<node_status>>();
      if (!st.setup.cluster) {
        self->request(st.setup.local_node, query_timeout, status_atom::value)
          .then([rp](node_status s) mutable { rp.deliver(std::vector<node_status>{s}); },
                [rp](caf::error& err) mutable { rp.deliver(err); });
        return rp;
      }
      connect_all(self, [self, rp](std::string) mutable {
        auto& st = self->state;
        const auto& cluster = *st.setup.cluster;
        auto out = std::make_shared<std::vector<node_status>>(cluster.nodes.size());
        auto pending = std::make_shared<size_t>(cluster.nodes.size());
        for (size_t i = 0; i < cluster.nodes.size(); ++i) {
          const auto& spec = cluster.nodes[i];
          auto& row = (*out)[i];
          row.name = spec.name;
          row.address = spec.host + ":" + std::to_string(spec.port);
          row.roles = spec.roles_text() + (spec.standby ? " (standby)" : "");
          row.up = false;
          row.standby = spec.standby;
          auto one_done = [rp, out, pending]() mutable {
            if (--*pending == 0)
              rp.deliver(*out);
          };
          if (!st.handles[i] || st.node_down[i]) {
            one_done();
            continue;
          }
          self->request(st.handles[i], std::chrono::seconds(5), status_atom::value)
            .then(
              [out, i, one_done](const node_status& s) mutable {
                auto& row = (*out)[i];
                row.up = true;
                row.rss_bytes = s.rss_bytes;
                row.shards = s.shards;
                row.learners = s.learners;
                row.peak_rss_bytes = s.peak_rss_bytes;
                row.job_peak_rss_bytes = s.job_peak_rss_bytes;
                row.memory_limit_bytes = s.memory_limit_bytes;
                one_done();
              },
              [one_done](caf::error&) mutable { one_done(); });
        }
      });
      return rp;
    },
    [self](pause_atom) {
      audit(self, "pause" + current_job(self->state));
      return forward<bool>(self, pause_atom::value);
    },
    [self](resume_atom) {
      audit(self, "resume" + current_job(self->state));
      return forward<bool>(self, resume_atom::value);
    },
    [self](checkpoint_atom) {
      audit(self, "checkpoint" + current_job(self->state));
      return forward<checkpoint_info>(self, checkpoint_atom::value);
    },
    [self](cancel_atom) {
      audit(self, "cancel" + current_job(self->state));
      return forward<bool>(self, cancel_atom::value);
    },
    [self](export_atom, const std::string& path, bool binary) -> caf::result<uint64_t> {
      auto& cluster = self->state.setup.cluster;
      if (cluster)
        if (auto s = access::path_policy{*cluster}.may_write(path, "the export"); !s) {
          audit(self, "refused to export" + current_job(self->state) + " to " + path + ": " + s.error());
          return make_job_error(s.error());
        }
      audit(self, "export" + current_job(self->state) + " to " + path);
      return forward_query<uint64_t>(self, export_atom::value, path, binary);
    },
    [self](nearest_atom, const std::string& word, uint32_t k) {
      return forward_query<std::vector<neighbour>>(self, nearest_atom::value, word, k);
    },
    [self](analogy_atom, const std::string& a, const std::string& b, const std::string& c, uint32_t k) {
      return forward_query<std::vector<neighbour>>(self, analogy_atom::value, a, b, c, k);
    },
    [self](vector_atom, const std::string& word) { return forward_query<wire_bytes>(self, vector_atom::value, word); },
    [self](stop_atom) {
      spdlog::info("controller: stopping the cluster");
      stop_cluster(self);
    },
  };
}

} // namespace

controller_actor spawn_controller(caf::actor_system& sys, controller_setup setup) {
  return sys.spawn(controller_behavior, std::move(setup));
}

} // namespace gridvec
