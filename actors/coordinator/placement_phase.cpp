// placement phase: see phases.hpp for where it stands among the others.
// Placing: every shard on a shard node (round robin over those that are not
// standbys), then every learner on its node with its lanes of every shard.
#include "actors/coordinator/phases.hpp"

#include <spdlog/spdlog.h>
#include <algorithm>

namespace gridvec {

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
    self
      ->request(node.handle, placement_timeout, new_learner_atom::value, learner_config{st.opt, i, count},
                st.vocab.path, lanes_for(st, i), caf::actor_cast<coordinator_actor>(self))
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

void place_all_shards(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  st.phase = job_phase::placing;
  if (st.before_placing) // the previous job's shards make room for these
    std::exchange(st.before_placing, {})();
  std::vector<size_t> shard_nodes;
  for (size_t i = 0; i < st.nodes.size(); ++i)
    if (st.nodes[i].shard_capacity > 0 && !st.nodes[i].standby)
      shard_nodes.push_back(i);
  st.shards.resize(st.opt.shards);
  st.shard_node.resize(st.opt.shards);
  st.shard_requests_seen.assign(st.opt.shards, 0);
  auto pending = std::make_shared<size_t>(st.opt.shards);
  for (uint32_t s = 0; s < st.opt.shards; ++s)
    place_shard(self, s, shard_nodes[s % shard_nodes.size()], [self, pending, then] {
      if (--*pending == 0)
        tell_peers(self, then);
    });
}

void tell_peers(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  if (st.shards.empty() || !st.shards.front().holds_rows) {
    then();
    return;
  }
  auto pending = std::make_shared<size_t>(st.shards.size());
  for (size_t i = 0; i < st.shards.size(); ++i) {
    // Shard i's visits to shard j go to lane i of j (modulo its lanes), so
    // that the sources spread over the lanes of every peer.
    std::vector<caf::actor> peers;
    for (const auto& peer : st.shards)
      peers.push_back(caf::actor_cast<caf::actor>(peer.lanes[i % peer.lanes.size()]));
    self->request(st.shards[i].lanes.front(), placement_timeout, peers_atom::value, peers)
      .then(
        [pending, then](bool) {
          if (--*pending == 0)
            then();
        },
        fail_with(self));
  }
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
  spec.hierarchical = st.opt.hs;
  spec.negatives_mode = st.opt.negatives_mode;
  spec.hierarchical_sampler = st.opt.partitioned_sampler();
  spec.word_partitions = st.opt.word_partitions_of(st.opt.shards);
  spec.holds_rows = st.opt.word_split() && st.opt.shards > 1;
  self->request(st.nodes[n].handle, placement_timeout, new_shard_atom::value, spec)
    .then(
      [self, s, n, then](shard_info info) {
        auto& st = self->state;
        for (auto& lane : info.lanes)
          track(self, lane);
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
