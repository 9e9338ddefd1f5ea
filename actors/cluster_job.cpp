#include "actors/cluster_job.hpp"

#include <caf/io/middleman.hpp>
#include <spdlog/spdlog.h>

#include "actors/coordinator_actor.hpp"

namespace gridvec {

namespace {

struct job_state {
  cluster_config config;
  std::string self_name;
  node_actor self_node;
  train_options opt;
  caf::actor listener;
  std::vector<node_actor> handles; // by config node index
  caf::typed_response_promise<job_summary> done;
  coordinator_actor coordinator;
  bool finished = false;
  static inline const char* name = "cluster-job";
};

using job_ptr = cluster_job_actor::stateful_pointer<job_state>;

void stop_cluster(job_ptr self) {
  auto& st = self->state;
  // Other nodes first: this node's stop ends the process that sends.
  for (size_t i = 0; i < st.handles.size(); ++i)
    if (st.config.nodes[i].name != st.self_name && st.handles[i])
      self->send(st.handles[i], stop_atom::value);
  self->send(st.self_node, stop_atom::value);
}

void finish(job_ptr self, expected<job_summary> result) {
  auto& st = self->state;
  if (st.finished)
    return;
  st.finished = true;
  if (result)
    st.done.deliver(*result);
  else
    st.done.deliver(make_job_error(result.error()));
  if (st.coordinator)
    self->send_exit(st.coordinator, caf::exit_reason::user_shutdown);
  if (st.opt.stop_cluster)
    stop_cluster(self);
  self->quit();
}

void run_coordinator(job_ptr self) {
  auto& st = self->state;
  std::vector<job_node> nodes;
  for (size_t i = 0; i < st.config.nodes.size(); ++i) {
    const auto& spec = st.config.nodes[i];
    if (spec.standby)
      continue;
    job_node n;
    n.name = spec.name;
    n.handle = st.handles[i];
    n.vocabulary = spec.has(node_role::vocabulary);
    n.exporter = spec.has(node_role::exporter);
    n.shard = spec.has(node_role::shard);
    n.learners = spec.has(node_role::learner) ? spec.learners : 0;
    nodes.push_back(std::move(n));
  }
  auto listener = st.listener;
  progress_sink sink = [listener](const std::string& line) {
    caf::anon_send(listener, line_atom::value, line);
  };
  st.coordinator = spawn_coordinator(self->system(), st.opt, std::move(nodes), sink);
  self->request(st.coordinator, caf::infinite, run_atom::value)
    .then([self](job_summary& s) { finish(self, std::move(s)); },
          [self](caf::error& err) { finish(self, failure{error_text(err)}); });
}

// Learner nodes connect to every shard node themselves, so that minibatch
// traffic goes straight from learner to shard, never through a third node.
void link_learners_to_shards(job_ptr self) {
  auto& st = self->state;
  std::vector<std::string> hosts;
  std::vector<uint16_t> ports;
  for (const auto& spec : st.config.nodes)
    if (spec.has(node_role::shard) && !spec.standby) {
      hosts.push_back(spec.host);
      ports.push_back(spec.port);
    }
  auto pending = std::make_shared<size_t>(0);
  for (size_t i = 0; i < st.config.nodes.size(); ++i)
    if (st.config.nodes[i].has(node_role::learner))
      ++*pending;
  auto timeout = std::chrono::milliseconds(st.config.connect_timeout_ms * (hosts.size() + 1));
  for (size_t i = 0; i < st.config.nodes.size(); ++i) {
    if (!st.config.nodes[i].has(node_role::learner))
      continue;
    auto name = st.config.nodes[i].name;
    self->request(st.handles[i], timeout, link_atom::value, hosts, ports)
      .then(
        [self, pending](uint32_t) {
          if (--*pending == 0)
            run_coordinator(self);
        },
        [self, name](caf::error& err) {
          finish(self, failure{"node " + name + " cannot connect to the shard nodes: " + error_text(err)});
        });
  }
}

void connect_all(job_ptr self) {
  auto& st = self->state;
  st.handles.resize(st.config.nodes.size());
  auto pending = std::make_shared<size_t>(st.config.nodes.size());
  auto timeout = std::chrono::milliseconds(st.config.connect_timeout_ms);
  for (size_t i = 0; i < st.config.nodes.size(); ++i) {
    const auto& spec = st.config.nodes[i];
    if (spec.name == st.self_name) {
      st.handles[i] = st.self_node;
      if (--*pending == 0)
        link_learners_to_shards(self);
      continue;
    }
    auto name = spec.name;
    connect_to_node(self, spec.host, spec.port, timeout,
                    [self, pending, i, name](expected<caf::strong_actor_ptr> ptr) {
                      if (self->state.finished)
                        return;
                      if (!ptr) {
                        finish(self, failure{"node " + name + " is not reachable: " + ptr.error()});
                        return;
                      }
                      self->state.handles[i] = caf::actor_cast<node_actor>(std::move(*ptr));
                      if (--*pending == 0)
                        link_learners_to_shards(self);
                    });
  }
}

cluster_job_actor::behavior_type job_behavior(job_ptr self, cluster_config config,
                                              std::string self_name, node_actor self_node) {
  self->state.config = std::move(config);
  self->state.self_name = std::move(self_name);
  self->state.self_node = std::move(self_node);
  return {
    [self](submit_atom, const train_options& opt, const caf::actor& listener) -> caf::result<job_summary> {
      auto& st = self->state;
      st.opt = opt;
      st.listener = listener;
      st.done = self->make_response_promise<job_summary>();
      connect_all(self);
      return st.done;
    },
  };
}

} // namespace

cluster_job_actor spawn_cluster_job(caf::actor_system& sys, cluster_config config,
                                    std::string self_name, node_actor self_node) {
  return sys.spawn(job_behavior, std::move(config), std::move(self_name), std::move(self_node));
}

} // namespace gridvec
