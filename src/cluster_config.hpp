#pragma once
// The cluster config file: one file lists every node of a cluster, and
// every process of it (`gridvec node`, `gridvec submit`, `gridvec shell`)
// reads the same file. Format (docs/cluster-config.md):
//
//   # comments start with '#', also after a value
//   [cluster]
//   heartbeat-ms = 1000          # optional (default 1000)
//   connect-timeout-ms = 5000    # optional (default 5000)
//
//   [node coord]                 # NAME: letters, digits, '_', '.', '-'
//   host = 127.0.0.1
//   port = 7700                  # 1..65535
//   roles = coordinator, vocabulary, exporter
//
//   [node shard-a]
//   host = 127.0.0.1
//   port = 7701
//   roles = shard
//   shards = 1                   # shard actors here (role shard only)
//
//   [node learn-a]
//   ...
//   roles = learner
//   learners = 2                 # learner actors here (role learner only)
//   standby = false              # a spare used only when a node fails
//
// Parsing is strict: an unknown key, a duplicate node, a missing role or a
// bad port is one error line "FILE:LINE: what is wrong".
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/expected.hpp"

namespace gridvec {

enum class node_role { coordinator, vocabulary, shard, learner, exporter };

std::string to_string(node_role r);

struct node_spec {
  std::string name;
  std::string host;
  uint16_t port = 0;
  std::vector<node_role> roles;
  uint32_t shards = 0;
  uint32_t learners = 0;
  bool standby = false;
  int line = 0; // of its [node NAME] header

  bool has(node_role r) const;
};

struct cluster_config {
  uint32_t heartbeat_ms = 1000;
  uint32_t connect_timeout_ms = 5000;
  std::vector<node_spec> nodes;
  std::string source;

  const node_spec* find(std::string_view name) const;
  const node_spec& coordinator() const;
  uint32_t total_shards() const;   // of non-standby nodes
  uint32_t total_learners() const;
  std::vector<const node_spec*> with_role(node_role r) const;
};

expected<cluster_config> parse_cluster_config(std::string_view text, const std::string& source_name);
expected<cluster_config> load_cluster_config(const std::string& path);

} // namespace gridvec
