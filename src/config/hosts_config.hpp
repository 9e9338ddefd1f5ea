#pragma once
// A cluster config written from a list of hosts (`gridvec config
// from-hosts`, deploy/slurm/gridvec.sbatch): one node per host line, the
// first also the coordinator, vocabulary and exporter; every node a shard
// and learner node. Ports count up from a base, so several nodes on one
// host never collide. The text is checked with the config parser before it
// is returned.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

struct hosts_layout {
  uint16_t port_base = 7700;                        // node i (from 0, file order) listens on port_base + i
  uint32_t shards = 1;                              // shard actors per node
  uint32_t learners = 1;                            // learner actors per node
  uint32_t standby = 0;                             // the last `standby` hosts become spare shard nodes
  std::string state_dir;                            // the secret (cluster.key) and tables (tables/) live here; absolute
  std::vector<std::string> allow_read, allow_write; // besides state_dir
  uint32_t heartbeat_ms = 1000;
};

/// Host names from the text of a host list: one per line (or several
/// separated by spaces or commas), '#' starts a comment; a host may appear
/// more than once (several nodes on one machine). Fails on a host name with
/// characters no host name has.
expected<std::vector<std::string>> parse_host_list(std::string_view text);

/// The config text for `hosts` laid out as `layout` says.
expected<std::string> cluster_config_from_hosts(const std::vector<std::string>& hosts, const hosts_layout& layout);

} // namespace gridvec
