#include <gridvec/roles/supervisor.hpp>

#include <spdlog/spdlog.h>

#include <map>

#include "src/model/shard_placement.hpp"

namespace gridvec {

namespace {

struct watched_shard {
  uint32_t node = 0;
  std::vector<caf::actor_addr> lanes;
  bool lost = false;
  uint32_t restoring_on = no_node; // once lost: the node chosen to restore it
};

struct supervisor_state {
  // Not an aggregate: CAF would try to build it from the actor pointer.
  supervisor_state() = default;
  coordinator_actor coordinator;
  std::vector<supervised_node> nodes;
  std::vector<bool> node_alive;
  std::map<uint32_t, watched_shard> shards;
  std::map<uint32_t, caf::actor_addr> learners;
  static inline const char* name = "supervisor";
};

using supervisor_ptr = supervisor_actor::stateful_pointer<supervisor_state>;

// Where a lost shard goes, by the rule placement used
// (src/model/shard_placement.hpp): a surviving shard node with room left
// (its config `shards` minus the shards it hosts now or will host once
// restored), else a standby node with room; never the node the shard was
// lost on. Counting the shards on their way matters when several are lost
// at once: each needs its own room.
uint32_t pick_node(const supervisor_state& st, uint32_t lost_from) {
  std::vector<uint32_t> hosted(st.nodes.size(), 0);
  for (const auto& [index, shard] : st.shards)
    if (!shard.lost)
      ++hosted[shard.node];
    else if (shard.restoring_on != no_node)
      ++hosted[shard.restoring_on];
  std::vector<shard_host> hosts;
  for (const auto& n : st.nodes)
    hosts.push_back({n.name, n.shard_capacity, n.standby});
  return restore_target(hosts, hosted, st.node_alive, lost_from);
}

std::string reason_text(const caf::error& reason) {
  if (!reason)
    return "it stopped";
  return error_text(reason);
}

void on_down(supervisor_ptr self, const caf::down_msg& dm) {
  auto& st = self->state;
  for (uint32_t n = 0; n < st.nodes.size(); ++n)
    if (st.nodes[n].handle && dm.source == st.nodes[n].handle.address() && st.node_alive[n]) {
      st.node_alive[n] = false;
      spdlog::warn("supervisor: node {} is down ({})", st.nodes[n].name, reason_text(dm.reason));
    }
  for (auto& [index, shard] : st.shards) {
    if (shard.lost)
      continue;
    for (const auto& lane : shard.lanes)
      if (dm.source == lane) {
        shard.lost = true;
        uint32_t target = pick_node(st, shard.node);
        shard.restoring_on = target;
        spdlog::warn("supervisor: shard {} on node {} is lost ({}); {}", index, st.nodes[shard.node].name,
                     reason_text(dm.reason),
                     target == no_node ? std::string{"no node has room to restore it"}
                                       : "restoring it on node " + st.nodes[target].name);
        self->send(st.coordinator, shard_lost_atom::value, index, target);
        break;
      }
  }
  for (auto it = st.learners.begin(); it != st.learners.end(); ++it)
    if (dm.source == it->second) {
      // A learner that failed on its own carries the reason as a job error;
      // one whose process vanished shows a CAF exit reason.
      std::string why;
      if (is_job_error(dm.reason))
        why = reason_text(dm.reason);
      else
        spdlog::warn("supervisor: learner {} is lost ({})", it->first, reason_text(dm.reason));
      self->send(st.coordinator, learner_lost_atom::value, it->first, why);
      st.learners.erase(it);
      break;
    }
}

supervisor_actor::behavior_type supervisor_behavior(supervisor_ptr self, coordinator_actor coordinator,
                                                    std::vector<supervised_node> nodes) {
  auto& st = self->state;
  st.coordinator = std::move(coordinator);
  st.nodes = std::move(nodes);
  st.node_alive.assign(st.nodes.size(), true);
  for (auto& n : st.nodes)
    if (n.handle)
      self->monitor(n.handle);
  self->set_down_handler([self](caf::down_msg& dm) { on_down(self, dm); });
  return {
    [self](watch_atom, uint32_t index, uint32_t node, const std::vector<shard_actor>& lanes) {
      auto& shard = self->state.shards[index];
      shard = watched_shard{node, {}, false};
      for (const auto& lane : lanes) {
        shard.lanes.push_back(lane.address());
        self->monitor(lane);
      }
    },
    [self](watch_atom, uint32_t id, const learner_actor& learner) {
      self->state.learners[id] = learner.address();
      self->monitor(learner);
    },
  };
}

} // namespace

supervisor_actor spawn_supervisor(caf::actor_system& sys, coordinator_actor coordinator,
                                  std::vector<supervised_node> nodes) {
  return sys.spawn(supervisor_behavior, std::move(coordinator), std::move(nodes));
}

} // namespace gridvec
