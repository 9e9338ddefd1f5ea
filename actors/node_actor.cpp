#include <gridvec/roles/node.hpp>

#include <caf/io/middleman.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "actors/connect.hpp"
#include "actors/peer_bounds.hpp"
#include "src/access/path_policy.hpp"
#include "src/formats/manifest_key.hpp"
#include "src/util/memory_limit.hpp"
#include <gridvec/roles/controller.hpp>
#include <gridvec/roles/exporter.hpp>
#include <gridvec/roles/lbfgs_learner.hpp>
#include <gridvec/roles/learner.hpp>
#include <gridvec/roles/shard.hpp>
#include <gridvec/tables/shard.hpp>
#include <gridvec/roles/vocabulary.hpp>
#include <filesystem>

namespace gridvec {

namespace {

/// An actor this node hosts, and the coordinator that asked for it.
struct hosted {
  caf::actor_addr actor;
  caf::actor_addr owner;
  // helper: a count worker, vocabulary or exporter; lbfgs: an L-BFGS
  // learner, which stops with the process that uses it (not an owner here)
  enum kind_t { shard, learner, helper, lbfgs } kind = helper;
};

struct node_state {
  node_setup setup;
  controller_actor controller;
  table_shard_actor tables; // if setup.table_shard
  std::vector<hosted> actors;
  std::vector<caf::actor_addr> owners; // monitored coordinators
  uint64_t earlier_peak = 0;           // the process's peak before the latest job's reset
  static inline const char* name = "node";
};

using node_ptr = node_actor::stateful_pointer<node_state>;

uint32_t count_alive(node_state& st, hosted::kind_t kind);

node_status status_of(node_state& st) {
  node_status s;
  s.name = st.setup.name;
  s.address = st.setup.address;
  s.roles = st.setup.roles;
  s.rss_bytes = current_rss_bytes();
  // Read apart from the resident set now: a peak may lag it.
  s.job_peak_rss_bytes = std::max(peak_rss_since_reset(), s.rss_bytes);
  s.peak_rss_bytes = std::max({peak_rss_bytes(), st.earlier_peak, s.job_peak_rss_bytes});
  s.memory_limit_bytes = memory_limit_bytes();
  s.shards = count_alive(st, hosted::shard);
  s.learners = count_alive(st, hosted::learner);
  return s;
}

// Hosted actors stop with the node and with the coordinator that placed
// them, whoever asked for them: a peer cannot leave actors behind that keep
// the node's process from ending.
void host(node_ptr self, const caf::actor_addr& actor, hosted::kind_t kind) {
  auto& st = self->state;
  auto owner = self->current_sender() ? self->current_sender()->address() : caf::actor_addr{};
  st.actors.push_back({actor, owner, kind});
  if (owner && std::find(st.owners.begin(), st.owners.end(), owner) == st.owners.end()) {
    st.owners.push_back(owner);
    self->monitor(caf::actor_cast<caf::actor>(owner));
  }
}

uint32_t count_alive(node_state& st, hosted::kind_t kind) {
  // An address whose actor has terminated no longer resolves.
  st.actors.erase(std::remove_if(st.actors.begin(), st.actors.end(),
                                 [](const hosted& h) { return !caf::actor_cast<caf::strong_actor_ptr>(h.actor); }),
                  st.actors.end());
  uint32_t n = 0;
  for (const auto& h : st.actors)
    n += h.kind == kind ? 1 : 0;
  return n;
}

// Whether host:port is a node of the cluster config: a node links only to
// its cluster's nodes, so that `link` cannot probe other ports (it answers
// the same for an open and a closed one: it does not try).
bool is_cluster_node(const node_state& st, const std::string& host, uint16_t port) {
  if (!st.setup.cluster)
    return true; // one process: no config, nothing to link to but its own
  for (const auto& n : st.setup.cluster->nodes)
    if (n.host == host && n.port == port)
      return true;
  return false;
}

void on_owner_down(node_ptr self, const caf::down_msg& dm) {
  auto& st = self->state;
  uint32_t stopped = 0;
  for (auto& h : st.actors)
    if (h.owner == dm.source)
      if (auto a = caf::actor_cast<caf::actor>(h.actor)) {
        self->send_exit(a, caf::exit_reason::user_shutdown);
        ++stopped;
      }
  st.owners.erase(std::remove(st.owners.begin(), st.owners.end(), dm.source), st.owners.end());
  if (stopped > 0 && dm.reason && dm.reason != caf::exit_reason::user_shutdown && dm.reason != caf::exit_reason::normal)
    spdlog::warn("node {}: the coordinator of its job is gone ({}); stopped the {} actors it had placed here",
                 st.setup.name, error_text(dm.reason), stopped);
}

node_actor::behavior_type node_behavior(node_ptr self, node_setup setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  if (st.setup.cluster) {
    // Every file this node opens, whoever asks (src/access/path_policy.hpp),
    // and the key of its checkpoints' manifests.
    access::set_process_policy(access::path_policy{*st.setup.cluster});
    if (auto key = manifest_key_of(*st.setup.cluster); !key)
      spdlog::error("node {}: {}", st.setup.name, key.error());
    else
      set_manifest_key(*key);
  }
  if (st.setup.controller) {
    controller_setup cs;
    cs.cluster = st.setup.cluster;
    cs.self_name = st.setup.name;
    cs.local_node = caf::actor_cast<node_actor>(self);
    st.controller = spawn_controller(self->system(), std::move(cs));
    // Clients (shell, submit, embedding applications) reach it; the rest of
    // a node's actors answer only to nodes (src/net/client_gate.hpp).
    net::expose_to_clients(self->system(), st.controller.id());
  }
  const node_spec* spec = st.setup.cluster ? st.setup.cluster->find(st.setup.name) : nullptr;
  if (st.setup.table_shard) {
    st.tables = spawn_table_shard(self->system(), st.setup.table_shard->index, st.setup.table_shard->count,
                                  st.setup.table_shard->dir, st.setup.table_shard->lanes);
    net::expose_to_clients(self->system(), st.tables.id());
  } else if (spec && spec->standby && spec->has(node_role::shard)) {
    // A standby shard node keeps a spare table shard, to take over one
    // whose node is lost (its slices come from the table-dir).
    st.tables = spawn_table_shard(self->system(), 0, 0, st.setup.cluster->table_dir, spec->table_lanes);
    net::expose_to_clients(self->system(), st.tables.id());
  }
  self->set_down_handler([self](const caf::down_msg& dm) { on_owner_down(self, dm); });
  // A message the node does not handle is answered with an error, not
  // printed: CAF 0.17.6 prints it by rendering every element, and its
  // rendering of a caf::duration with a unit out of range reads out of
  // bounds (found by fuzz_node_request).
  self->set_default_handler(caf::drop);
  return {
    [self](new_counter_atom) -> count_worker_actor {
      auto counter = spawn_count_worker(self->system());
      host(self, counter.address(), hosted::helper);
      return counter;
    },
    // Where and in how much memory the partition counts is the node's own
    // config, never the asker's: a peer cannot make it write elsewhere.
    [self](new_vocab_atom) -> vocabulary_partition_actor {
      const auto& setup = self->state.setup;
      const node_spec* spec = setup.cluster ? setup.cluster->find(setup.name) : nullptr;
      const uint64_t memory = spec && spec->memory > 0 ? spec->memory : memory_limit_bytes();
      const uint64_t budget = spec && spec->count_memory > 0 ? spec->count_memory : default_count_memory(memory);
      std::error_code ec;
      const std::string dir = spec && !spec->count_dir.empty()
                                ? spec->count_dir
                                : (std::filesystem::temp_directory_path(ec) / "gridvec-counts").string();
      auto vocab = spawn_vocabulary_partition(self->system(), dir, budget);
      host(self, vocab.address(), hosted::helper);
      return vocab;
    },
    [self](new_shard_atom, const shard_spec& spec) -> caf::result<shard_info> {
      return answering<shard_info>("newshard", [&]() -> caf::result<shard_info> {
        if (auto s = check_shard_spec(spec); !s)
          return make_job_error(s.error());
        // The vocabulary's counts, not its words (--init loads those).
        auto counts = load_shared_counts(spec.vocabulary);
        if (!counts)
          return make_job_error(counts.error());
        if (spec.vocab_crc != 0 && (*counts)->vocab_crc != spec.vocab_crc)
          return make_job_error("the counts beside " + spec.vocabulary + " are of another vocabulary");
        if (auto s = check_shard_size(spec, (*counts)->size()); !s)
          return make_job_error(s.error());
        // The noise sampler: spawn_shard makes it from the vocabulary's counts.
        auto info = spawn_shard(self->system(), spec, *counts, nullptr, self->state.setup.shard_lanes);
        if (!info)
          return make_job_error(info.error());
        for (auto& lane : info->lanes)
          host(self, lane.address(), hosted::shard);
        return std::move(*info);
      });
    },
    [self](new_learner_atom, const learner_config& cfg, const std::string& vocab_path,
           const std::vector<shard_actor>& lanes, const coordinator_actor& coordinator) -> caf::result<learner_actor> {
      return answering<learner_actor>("newlearner", [&]() -> caf::result<learner_actor> {
        if (auto s = check_learner_config(cfg, lanes.size()); !s)
          return make_job_error(s.error());
        // The vocabulary's counts; the learner loads its words only where
        // they are needed (--partition replicated keys its rows by word).
        auto counts = load_shared_counts(vocab_path);
        if (!counts)
          return make_job_error(counts.error());
        auto learner = spawn_learner(self->system(), cfg, *counts, vocab_path, lanes, coordinator);
        host(self, learner.address(), hosted::learner);
        return learner;
      });
    },
    [self](new_export_atom, const std::string& vocab_path, const std::vector<shard_info>& shards,
           uint32_t dim) -> caf::result<exporter_actor> {
      return answering<exporter_actor>("newexport", [&]() -> caf::result<exporter_actor> {
        if (auto s = check_export_request(shards, dim); !s)
          return make_job_error(s.error());
        auto exporter = spawn_exporter(self->system(), vocab_path, shards, dim);
        if (!exporter)
          return make_job_error(exporter.error());
        host(self, exporter->address(), hosted::helper);
        return *exporter;
      });
    },
    [](echo_atom, const wire_bytes& bytes) -> caf::result<wire_bytes> {
      if (bytes.size() > max_echo_bytes)
        return make_job_error("echo: " + std::to_string(bytes.size()) + " bytes, more than " +
                              std::to_string(max_echo_bytes));
      return bytes;
    },
    [self](status_atom) { return status_of(self->state); },
    [self](status_atom, reset_atom) {
      // A job begins: its peak is measured from here. The process's own
      // peak is kept apart for `nodes` and /metrics.
      auto& st = self->state;
      auto s = status_of(st);
      st.earlier_peak = s.peak_rss_bytes;
      reset_peak_rss();
      return s;
    },
    [self](link_atom, const std::vector<std::string>& hosts,
           const std::vector<uint16_t>& ports) -> caf::result<uint32_t> {
      auto& st = self->state;
      if (hosts.size() != ports.size())
        return make_job_error("link: hosts and ports differ in number");
      for (size_t i = 0; i < hosts.size(); ++i)
        if (!is_cluster_node(st, hosts[i], ports[i]))
          return make_job_error("link: " + hosts[i] + ":" + std::to_string(ports[i]) +
                                " is not a node of this cluster");
      if (st.setup.cluster && hosts.size() > st.setup.cluster->nodes.size())
        return make_job_error("link: more nodes than the cluster has");
      if (!self->system().has_middleman())
        return make_job_error("node " + st.setup.name + " has no network layer");
      auto rp = self->make_response_promise<uint32_t>();
      if (hosts.empty()) {
        rp.deliver(uint32_t{0});
        return rp;
      }
      auto pending = std::make_shared<size_t>(hosts.size());
      auto failed = std::make_shared<bool>(false);
      const uint32_t timeout_ms = st.setup.cluster ? st.setup.cluster->connect_timeout_ms : 5000;
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
    [self](controller_atom) -> caf::result<controller_actor> {
      auto& st = self->state;
      if (!st.controller)
        return make_job_error("node " + st.setup.name + " is not the coordinator's node; connect to that one");
      return st.controller;
    },
    [self](tables_atom) -> caf::result<table_shard_actor> {
      auto& st = self->state;
      if (!st.tables)
        return make_job_error("node " + st.setup.name + " hosts no table shard (only shard nodes do)");
      return st.tables;
    },
    [self](lbfgs_atom) -> caf::result<lbfgs_learner_actor> {
      auto& st = self->state;
      const node_spec* spec = st.setup.cluster ? st.setup.cluster->find(st.setup.name) : nullptr;
      if (!spec || !spec->has(node_role::learner))
        return make_job_error("node " + st.setup.name +
                              " is no learner node of a cluster (only those run L-BFGS learners)");
      if (count_alive(st, hosted::lbfgs) >= max_lbfgs_learners_per_node)
        return make_job_error("node " + st.setup.name + " already runs " + std::to_string(max_lbfgs_learners_per_node) +
                              " L-BFGS learners");
      // Asked for by a client (gridvec lbfgs), which then sends it requests.
      auto learner = spawn_lbfgs_learner(self->system(), *st.setup.cluster);
      st.actors.push_back({learner.address(), {}, hosted::lbfgs});
      net::expose_to_clients(self->system(), learner.id());
      return learner;
    },
    [self](stop_atom) {
      auto& st = self->state;
      // A node of `gridvec train` or an embedding application stops with
      // its job: nothing for the user to hear about.
      if (st.setup.address == "in-process")
        spdlog::debug("node {}: stopping", st.setup.name);
      else
        spdlog::info("node {}: stopping", st.setup.name);
      for (auto& h : st.actors)
        if (auto a = caf::actor_cast<caf::actor>(h.actor))
          self->send_exit(a, caf::exit_reason::user_shutdown);
      if (st.controller)
        self->send_exit(st.controller, caf::exit_reason::user_shutdown);
      if (st.tables)
        self->send_exit(st.tables, caf::exit_reason::user_shutdown);
      self->quit();
    },
  };
}

} // namespace

node_actor spawn_node(caf::actor_system& sys, node_setup setup) { return sys.spawn(node_behavior, std::move(setup)); }

} // namespace gridvec
