#pragma once
// A node hosts gridvec's roles inside one actor system. The coordinator of a
// job asks nodes for count workers, shards, learners, a vocabulary actor
// and an exporter, so a job is placed the same way whether its nodes share
// one process (`gridvec train`) or are processes on several machines.
#include <optional>
#include <string>

#include "actors/protocol.hpp"
#include "src/cluster_config.hpp"

namespace gridvec {

/// `name` and `roles` are for status reports; the node serves every
/// placement request (the coordinator places roles as the config says).
/// Only a node given the cluster config accepts `submit` (the
/// coordinator's node of a cluster).
node_actor spawn_node(caf::actor_system& sys, std::string name, std::string roles,
                      std::optional<cluster_config> cluster = std::nullopt);

} // namespace gridvec
