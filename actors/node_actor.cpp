#include "actors/node_actor.hpp"

#include <caf/io/middleman.hpp>

#include "actors/cluster_job.hpp"
#include "actors/exporter_actor.hpp"
#include "actors/learner_actor.hpp"
#include "actors/shard_actor.hpp"
#include "actors/vocabulary_actor.hpp"
#include "src/alias_sampler.hpp"

#include <spdlog/spdlog.h>

namespace gridvec {

namespace {

struct node_state {
  std::string node_name;
  std::string roles;
  // Actors hosted here, for status reports; quit ones are skipped.
  std::vector<caf::actor_addr> shard_lanes;
  std::vector<caf::actor_addr> learners;
  std::optional<cluster_config> cluster;
  cluster_job_actor job; // the running cluster job, if any
  static inline const char* name = "node";
};

uint32_t count_alive(caf::actor_system& sys, std::vector<caf::actor_addr>& addrs) {
  // An address whose actor has terminated no longer resolves.
  std::vector<caf::actor_addr> alive;
  for (auto& a : addrs)
    if (caf::actor_cast<caf::strong_actor_ptr>(a))
      alive.push_back(a);
  addrs.swap(alive);
  return static_cast<uint32_t>(addrs.size());
}

node_actor::behavior_type node_behavior(node_actor::stateful_pointer<node_state> self,
                                        std::string name, std::string roles,
                                        std::optional<cluster_config> cluster) {
  self->state.node_name = std::move(name);
  self->state.roles = std::move(roles);
  self->state.cluster = std::move(cluster);
  self->set_down_handler([self](const caf::down_msg& dm) {
    if (dm.source == self->state.job)
      self->state.job = nullptr; // the job is over: the next may start
  });
  return {
    [self](new_counter_atom) -> count_worker_actor { return spawn_count_worker(self->system()); },
    [self](new_vocab_atom) -> vocabulary_actor { return spawn_vocabulary(self->system()); },
    [self](new_shard_atom, uint32_t index, uint32_t count, uint32_t dim, const std::string& vocab_path,
           uint64_t seed, uint32_t lanes) -> caf::result<shard_info> {
      if (count == 0 || index >= count || count > dim || lanes == 0)
        return make_job_error("invalid shard layout: shard " + std::to_string(index) + " of " +
                              std::to_string(count) + " for dimension " + std::to_string(dim));
      auto vocab = load_shared_vocabulary(vocab_path);
      if (!vocab)
        return make_job_error(vocab.error());
      auto noise = std::make_shared<const alias_sampler>(alias_sampler::from_counts((*vocab)->counts()));
      auto info = spawn_shard(self->system(), index, count, dim, **vocab, seed, noise, lanes);
      for (auto& lane : info.lanes)
        self->state.shard_lanes.push_back(lane.address());
      return info;
    },
    [self](new_learner_atom, const learner_config& cfg, const std::string& vocab_path,
           const std::vector<shard_actor>& lanes,
           const coordinator_actor& coordinator) -> caf::result<learner_actor> {
      auto vocab = load_shared_vocabulary(vocab_path);
      if (!vocab)
        return make_job_error(vocab.error());
      auto learner = spawn_learner(self->system(), cfg, *vocab, lanes, coordinator);
      self->state.learners.push_back(learner.address());
      return learner;
    },
    [self](new_export_atom, const std::string& vocab_path, const std::vector<shard_info>& shards,
           uint32_t dim) -> caf::result<exporter_actor> {
      auto vocab = load_shared_vocabulary(vocab_path);
      if (!vocab)
        return make_job_error(vocab.error());
      return spawn_exporter(self->system(), *vocab, shards, dim);
    },
    [self](status_atom) -> node_status {
      auto& st = self->state;
      node_status s;
      s.name = st.node_name;
      s.roles = st.roles;
      s.rss_bytes = peak_rss_bytes();
      s.shards = count_alive(self->system(), st.shard_lanes);
      s.learners = count_alive(self->system(), st.learners);
      return s;
    },
    [self](link_atom, const std::vector<std::string>& hosts,
           const std::vector<uint16_t>& ports) -> caf::result<uint32_t> {
      if (!self->system().has_middleman())
        return make_job_error("node " + self->state.node_name + " has no network layer");
      if (hosts.size() != ports.size())
        return make_job_error("link: hosts and ports differ in number");
      auto rp = self->make_response_promise<uint32_t>();
      if (hosts.empty()) {
        rp.deliver(uint32_t{0});
        return rp;
      }
      auto pending = std::make_shared<size_t>(hosts.size());
      auto failed = std::make_shared<bool>(false);
      uint32_t timeout_ms = self->state.cluster ? self->state.cluster->connect_timeout_ms : 5000;
      if (!self->state.cluster)
        timeout_ms = 5000;
      for (size_t i = 0; i < hosts.size(); ++i)
        connect_to_node(self, hosts[i], ports[i], std::chrono::milliseconds(timeout_ms),
                        [rp, pending, failed, n = hosts.size()](expected<caf::strong_actor_ptr> ptr) mutable {
                          if (*failed)
                            return;
                          if (!ptr) {
                            *failed = true;
                            rp.deliver(make_job_error(ptr.error()));
                          } else if (--*pending == 0) {
                            rp.deliver(static_cast<uint32_t>(n));
                          }
                        });
      return rp;
    },
    [self](submit_atom, const train_options& opt, const caf::actor& listener) -> caf::result<job_summary> {
      auto& st = self->state;
      if (!st.cluster)
        return make_job_error("node " + st.node_name + " does not coordinate jobs");
      if (st.job)
        return make_job_error("a job is already running on this cluster; wait for it or cancel it");
      st.job = spawn_cluster_job(self->system(), *st.cluster, st.node_name,
                                 caf::actor_cast<node_actor>(self));
      self->monitor(st.job);
      return self->delegate(st.job, submit_atom::value, opt, listener);
    },
    [self](stop_atom) {
      auto& st = self->state;
      spdlog::info("node {}: stopping", st.node_name);
      // Whatever this node hosts goes with it.
      for (auto* addrs : {&st.shard_lanes, &st.learners})
        for (auto& a : *addrs)
          if (auto h = caf::actor_cast<caf::actor>(a))
            self->send_exit(h, caf::exit_reason::user_shutdown);
      if (st.job)
        self->send_exit(st.job, caf::exit_reason::user_shutdown);
      self->quit();
    },
  };
}

} // namespace

node_actor spawn_node(caf::actor_system& sys, std::string name, std::string roles,
                      std::optional<cluster_config> cluster) {
  return sys.spawn(node_behavior, std::move(name), std::move(roles), std::move(cluster));
}

} // namespace gridvec
