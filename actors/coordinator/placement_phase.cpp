// placement phase: see phases.hpp for where it stands among the others.
// Placing: every shard on a shard node (round robin over those that are not
// standbys), then every learner on its node with its lanes of every shard.
#include "actors/coordinator/phases.hpp"

#include <spdlog/spdlog.h>
#include <algorithm>
#include <filesystem>

#include "actors/layouts/layouts.hpp"
#include "src/corpus/vocabulary_lookup.hpp"
#include "src/model/memory_plan.hpp"
#include "src/model/shard_placement.hpp"

namespace gridvec {

namespace {

std::vector<memory_node> memory_nodes(const coordinator_state& st, const caf::node_id& here) {
  std::vector<size_t> exporting{node_with(st, &job_node::exporter)};
  if (st.opt.output_parts && st.opt.classes == 0)
    exporting = part_writers(st);
  std::vector<memory_node> out;
  for (size_t i = 0; i < st.nodes.size(); ++i) {
    const auto& n = st.nodes[i];
    memory_node m;
    m.name = n.name;
    m.budget_configured = n.memory_budget > 0;
    m.budget = m.budget_configured ? n.memory_budget : i < st.os_memory.size() ? st.os_memory[i] : 0;
    m.shard_capacity = n.shard_capacity;
    m.standby = n.standby;
    m.learners = st.opt.replicated() ? st.opt.hosts_on_node(n.learners) : n.learners; // replicated: copies
    // (The coordinator keeps the words for its queries only while they are few.)
    m.coordinates = n.handle && n.handle.node() == here;
    m.holds_words = m.coordinates && st.vocab.size <= whole_query_vocabulary;
    m.vocabulary_partition = n.vocabulary && !n.standby; // as spawn_vocab_partitions places them
    m.exports = std::find(exporting.begin(), exporting.end(), i) != exporting.end();
    out.push_back(std::move(m));
  }
  return out;
}

memory_job job_of(const coordinator_state& st) {
  std::error_code ec;
  const auto file = std::filesystem::file_size(st.vocab.path, ec);
  auto job = memory_job_of(st.opt, st.vocab.size, ec ? 0 : file);
  job.vocab_partitions = 0;
  for (const auto& n : st.nodes)
    job.vocab_partitions += n.vocabulary && !n.standby ? 1 : 0;
  job.vocab_partitions = std::max(1u, job.vocab_partitions);
  return job;
}

} // namespace

void fetch_budgets(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  if (st.budgets_known) {
    then();
    return;
  }
  st.os_memory.assign(st.nodes.size(), 0);
  auto pending = std::make_shared<size_t>(1);
  auto one_done = [self, pending, then] {
    if (--*pending == 0) {
      self->state.budgets_known = true;
      then();
    }
  };
  // Every node: what its OS lets it take, and its peak memory starts over
  // with this job (the report shows each node's).
  for (size_t i = 0; i < st.nodes.size(); ++i) {
    auto& node = st.nodes[i];
    if (!node.handle)
      continue;
    ++*pending;
    self->request(node.handle, placement_timeout, status_atom::value, reset_atom::value)
      .then(
        [self, i, one_done](const node_status& s) {
          self->state.os_memory[i] = s.memory_limit_bytes;
          one_done();
        },
        [self, i, one_done](caf::error& err) { // its budget stays unknown; placing on it will say why
          if (!self->state.nodes[i].standby)
            warn(self, "node " + self->state.nodes[i].name + " did not say how much memory it has: " + error_text(err));
          one_done();
        });
  }
  one_done();
}

void collect_node_memory(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  st.summary.memory.assign(st.nodes.size(), node_memory{});
  for (size_t i = 0; i < st.nodes.size(); ++i) {
    auto& m = st.summary.memory[i];
    m.node = st.nodes[i].name;
    m.planned_bytes = i < st.planned_need.size() ? st.planned_need[i] : 0;
    m.budget_bytes = st.nodes[i].memory_budget > 0 ? st.nodes[i].memory_budget
                     : i < st.os_memory.size()     ? st.os_memory[i]
                                                   : 0;
  }
  auto pending = std::make_shared<size_t>(1);
  auto one_done = [self, pending, then] {
    if (--*pending > 0)
      return;
    auto& st = self->state;
    // The largest node's peak is the job's (one process: its own).
    for (const auto& m : st.summary.memory)
      if (m.peak_rss_bytes > st.summary.peak_rss_bytes || st.summary.peak_rss_node.empty()) {
        st.summary.peak_rss_bytes = std::max(st.summary.peak_rss_bytes, m.peak_rss_bytes);
        st.summary.peak_rss_node = m.node;
      }
    then();
  };
  for (size_t i = 0; i < st.nodes.size(); ++i) {
    // A node lost during the job would only make the summary wait for the
    // request's timeout; its peak stays unknown (0).
    if (!st.nodes[i].handle || st.lost_nodes.count(i))
      continue;
    ++*pending;
    self->request(st.nodes[i].handle, std::chrono::seconds(10), status_atom::value)
      .then(
        [self, i, one_done](const node_status& s) {
          self->state.summary.memory[i].peak_rss_bytes = s.job_peak_rss_bytes;
          one_done();
        },
        [one_done](caf::error&) { one_done(); }); // a node gone by now: no figure
  }
  one_done();
}

void choose_shard_count(coordinator_ptr self) {
  auto& st = self->state;
  if (!st.choose_shards)
    return;
  st.choose_shards = false;
  const uint32_t most = std::min(st.opt.shards, st.opt.size);
  const uint32_t least = st.opt.word_split() ? std::min(2u, most) : 1;
  const auto nodes = memory_nodes(st, self->node());
  auto plan = choose_shards(nodes, job_of(st), least, most);
  if (plan.shards != st.opt.shards) {
    say(self, "shards: " + std::to_string(plan.shards) + " of the " + std::to_string(most) +
                " the nodes declare, the most that fit their memory");
    st.opt.shards = plan.shards;
    st.summary.shards = plan.shards;
  }
}

std::string explain_memory_plan(coordinator_ptr self) {
  const auto nodes = memory_nodes(self->state, self->node());
  return explain_memory(nodes, plan_memory(nodes, job_of(self->state)));
}

void place_learners(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  const auto count = static_cast<uint32_t>(st.learner_node.size());
  st.learners.resize(count);
  st.learner_alive.assign(count, true);
  st.learner_idle.assign(count, false);
  st.learner_wire.assign(count, traffic{});
  st.learner_rounds.assign(count, 0);
  auto pending = std::make_shared<size_t>(count);
  for (uint32_t i = 0; i < count; ++i) {
    auto& node = st.nodes[st.learner_node[i]];
    learner_config cfg{st.opt, i, count};
    cfg.threads = st.learner_threads[i];                                         // built beside learner_node, at start
    cfg.sync_rounds = st.opt.sync_rounds_per_epoch(st.learner_threads_in_all()); // auto: by threads, not hosts
    self
      ->request(node.handle, placement_timeout, new_learner_atom::value, cfg, st.vocab.path, lanes_for(st, i),
                caf::actor_cast<coordinator_actor>(self))
      .then(
        [self, pending, i, then](learner_actor learner) {
          auto& st = self->state;
          track(self, learner);
          st.learners[i] = learner;
          self->send(st.supervisor, watch_atom::value, i, learner);
          if (--*pending == 0)
            then();
        },
        fail_with(self));
  }
}

namespace {

void place_planned_shards(coordinator_ptr self, const std::vector<uint32_t>& shard_nodes, std::function<void()> then);

} // namespace

void place_all_shards(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  st.phase = job_phase::placing;
  fetch_budgets(self, [self, then] {
    auto& st = self->state;
    if (st.finished)
      return;
    const auto plan = plan_memory(memory_nodes(st, self->node()), job_of(st));
    if (!plan.fits()) {
      fail(self, make_job_error(plan.refusal));
      return;
    }
    if (!plan.standby_warning.empty())
      warn(self, plan.standby_warning);
    st.planned_need.clear();
    for (const auto& n : plan.need)
      st.planned_need.push_back(n.total());
    if (st.before_placing) // the previous job's shards make room for these
      std::exchange(st.before_placing, {})();
    place_planned_shards(self, plan.shard_node, then);
  });
}

namespace {

void place_planned_shards(coordinator_ptr self, const std::vector<uint32_t>& shard_nodes, std::function<void()> then) {
  auto& st = self->state;
  st.shards.resize(st.opt.shards);
  st.shard_node.resize(st.opt.shards);
  st.shard_requests_seen.assign(st.opt.shards, 0);
  auto pending = std::make_shared<size_t>(st.opt.shards);
  for (uint32_t s = 0; s < st.opt.shards; ++s)
    place_shard(self, s, shard_nodes[s], [self, pending, then] {
      if (--*pending == 0)
        connect_shards(self, then);
    });
}

} // namespace

void connect_shards(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  if (st.shards.empty() || !layout_entry_of(st.shards.front().layout).connect_shards) {
    then();
    return;
  }
  layout_entry_of(st.shards.front().layout).connect_shards(self, std::move(then));
}

void place_shard(coordinator_ptr self, uint32_t s, size_t n, std::function<void()> then) {
  auto& st = self->state;
  shard_spec spec;
  spec.index = s;
  spec.count = st.opt.shards;
  spec.dim = st.opt.size;
  spec.vocabulary = st.vocab.path;
  spec.seed = st.opt.seed;
  spec.lanes = std::max<uint32_t>(1, static_cast<uint32_t>(st.learner_node.size()));
  spec.vocab_crc = st.vocab_crc;
  spec.init_model = st.opt.init;
  spec.init_rows = st.init_rows;
  spec.hierarchical = st.opt.hs;
  spec.negatives_mode = st.opt.negatives_mode;
  spec.hierarchical_sampler = st.opt.partitioned_sampler();
  spec.word_partitions = st.opt.word_partitions_of(st.opt.shards);
  spec.layout = st.opt.layout_of_shards();
  self->request(st.nodes[n].handle, placement_timeout, new_shard_atom::value, spec)
    .then(
      [self, s, n, then, spec](shard_info info) {
        auto& st = self->state;
        for (auto& lane : info.lanes)
          track(self, lane);
        // Every reader of rows trusts the geometry: the node must have made
        // the shard it was asked for.
        if (info.index != s || info.layout != spec.layout || info.lanes.empty() ||
            info.geometry() != shard_geometry::of(spec.layout, s, spec.count, spec.dim)) {
          fail(self, make_job_error("node " + st.nodes[n].name + " answered with another shard than shard " +
                                    std::to_string(s) + " of " + std::to_string(spec.count)));
          return;
        }
        st.shards[s] = std::move(info);
        st.shard_node[s] = n;
        self->send(st.supervisor, watch_atom::value, s, static_cast<uint32_t>(n), st.shards[s].lanes);
        then();
      },
      [self, s, n](caf::error& err) {
        fail(self, make_job_error("cannot place shard " + std::to_string(s) + " on node " + self->state.nodes[n].name +
                                  ": " + error_text(err)));
      });
}

} // namespace gridvec
