#pragma once
// (Public header of src/config/cluster_config.cpp.)
// The cluster config file: one file lists every node (OS process) of a
// cluster, and every process of it (`gridvec node`, `gridvec submit`) reads
// the same file, so they all agree on who is where and does what.
// Full description: docs/cluster-config.md. Format:
//
//   # comment lines start with '#'; blank lines are ignored;
//   # a '#' after a value starts a comment too
//   [cluster]
//   heartbeat-ms = 1000          # optional; how often nodes check each other (default 1000)
//   connect-timeout-ms = 5000    # optional; how long to wait for a node to answer (default 5000)
//   secret = cluster.key         # the cluster secret (gridvec keygen writes one); required
//                                # unless TLS is set or insecure = true (docs/security.md)
//   tls-certificate = node.pem   # optional: TLS between all processes, all three or none
//   tls-key = node.key
//   tls-ca = ca.pem
//   allow-read = /data/corpora   # directories jobs may read corpora from (comma separated)
//   allow-write = /data/out      # directories jobs may write vectors, reports, checkpoints to
//   max-message-mb = 64          # optional: larger frames from a peer close its connection
//   max-connections = 256        # optional: open connections per node, and from one address
//   max-connections-per-address = 64
//   max-handshakes = 128         # optional: connections still in their handshake (their own
//   max-handshakes-per-address = 32 # pool, apart from max-connections), and from one address
//   table-dir = tables           # optional: where the shard nodes save the parameter
//                                # server's tables and read them back when restarted
//                                # (docs/tables.md); a directory they share
//   shutdown-after-job = false   # optional: `gridvec submit` stops every node when
//                                # its job ends, as `--shutdown` does (default: nodes
//                                # outlive jobs; `gridvec stop` stops them)
//   Relative paths are relative to the config file's directory.
//
//   [node coord]                 # one section per node: [node NAME], NAME = [A-Za-z0-9_.-]+
//   host = 127.0.0.1
//   port = 7700                  # 1..65535
//   roles = coordinator, vocabulary, exporter   # comma and/or space separated
//
//   [node shard-a]
//   host = 127.0.0.1
//   port = 7701
//   roles = shard
//   shards = 1                   # shard actors on this node; required >= 1 iff role shard
//
//   [node learn-a]
//   host = 127.0.0.1
//   port = 7703
//   roles = learner
//   learners = 2                 # learner actors on this node; required >= 1 iff role learner
//   threads = 2                  # optional: CAF worker threads (default: shards + learners
//                                # of the node, at least 1, at most the machine's cores)
//   memory = 16G                 # optional: what a job may take on this node (K, M, G, T:
//                                # binary multiples); default: what its OS reports. Jobs
//                                # that would need more are refused (src/model/memory_plan.hpp)
//
//   [node spare]
//   host = 127.0.0.1
//   port = 7705
//   roles = shard
//   shards = 1
//   standby = true               # optional, default false: a spare used only when
//                                # another node fails (its roles may then be only shard:
//                                # a lost shard node's shards; and learner: a lost
//                                # L-BFGS learner, never a word2vec job's)
//   http-port = 7780             # optional: serve /metrics, /healthz (and on the
//                                # coordinator's node the JSON API) over HTTP (docs/http.md)
//   http-bind = 0.0.0.0          # optional, default 127.0.0.1; another address than
//                                # loopback only with a secret (its token guards the API)
//
// Roles: coordinator, vocabulary, shard, learner, exporter. A cluster has
// exactly one coordinator, and at least one (non-standby) node with each of
// the other roles. CRLF line endings are accepted.
//
// Parsing is strict, because a typo in a cluster config would otherwise
// surface minutes later as a node that nobody connects to: an unknown key, a
// duplicate node or endpoint, a missing role or a bad port is a failure of
// one line "SOURCE:LINE: what is wrong" (just "SOURCE: ..." when the problem
// is the cluster as a whole, such as "no node has role coordinator").
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

enum class node_role { coordinator, vocabulary, shard, learner, exporter };

/// The role's name as written in the config ("coordinator", ...).
std::string to_string(node_role r);

struct node_spec {
  std::string name;
  std::string host;
  uint16_t port = 0;
  std::vector<node_role> roles; // in the order written, without repeats
  uint32_t shards = 0;          // > 0 iff has(node_role::shard)
  uint32_t learners = 0;        // > 0 iff has(node_role::learner)
  bool standby = false;         // then roles ⊆ {shard, learner}
  uint32_t threads = 0;         // worker threads; 0: worker_threads() decides
  uint64_t memory = 0;          // bytes its jobs may take (`memory`); 0: what its OS reports
  uint64_t count_memory = 0;    // bytes its vocabulary partition counts in (`count-memory`); 0: a quarter of memory
  std::string count_dir;        // where that partition spills (`count-dir`); empty: the system's temporary directory
  uint16_t http_port = 0;       // its HTTP server (docs/http.md); 0: none
  std::string http_bind;        // the address that server binds; empty: 127.0.0.1
  uint32_t table_lanes = 0;     // threads of its table shard; 0: one per core
  int line = 0;                 // of its [node NAME] header, for messages

  bool has(node_role r) const;
  /// Its roles as written, space separated: "shard learner".
  std::string roles_text() const;
  /// CAF worker threads for this node: `threads` if set, else one per
  /// shard and learner actor (they do the work; every other role is light),
  /// at least one and at most `cores`. More workers than busy actors only
  /// add futex wake-ups and context switches to every network message.
  uint32_t worker_threads(uint32_t cores) const;
  /// Whether its shards serve learners on the network thread: when one
  /// worker thread would serve them anyway, handing every message from the
  /// network thread to that worker and back only adds wake-ups.
  bool shards_on_network_thread(uint32_t cores) const;
  /// The address its HTTP server binds: `http_bind`, else loopback.
  std::string http_address() const { return http_bind.empty() ? "127.0.0.1" : http_bind; }
};

/// Whether `address` is a loopback address (127.0.0.0/8, ::1, localhost):
/// an HTTP server bound there is reachable from this machine only.
bool is_loopback_address(std::string_view address);

struct cluster_config {
  uint32_t heartbeat_ms = 1000;
  uint32_t connect_timeout_ms = 5000;
  // Who may connect, and what jobs may touch (src/net/, docs/security.md).
  std::string secret_file;
  bool insecure = false;
  std::string tls_certificate, tls_key, tls_ca;
  std::vector<std::string> allow_read, allow_write; // absolute after load_cluster_config
  uint32_t max_message_mb = 64;
  uint32_t max_connections = 256;
  uint32_t max_connections_per_address = 64;
  uint32_t max_handshakes = 128;
  uint32_t max_handshakes_per_address = 32;
  std::string table_dir;        // the tables' checkpoints (docs/tables.md); empty: none
  std::vector<node_spec> nodes; // in file order
  std::string source;           // file name, for messages

  // `gridvec submit` stops every node when its job ends (shutdown-after-job).
  bool shutdown_after_job = false;

  /// The node called `name`, or nullptr.
  const node_spec* find(std::string_view name) const;
  /// The one coordinator node; a parsed config always has exactly one.
  const node_spec& coordinator() const;
  /// Shard actors over all non-standby nodes.
  uint32_t total_shards() const;
  /// Learner actors over all non-standby nodes (a standby learner node only
  /// replaces a lost L-BFGS learner).
  uint32_t total_learners() const;
  /// Every node with role `r`, standby ones included, in file order.
  std::vector<const node_spec*> with_role(node_role r) const;
  /// The nodes that host the parameter server's table shards: every
  /// non-standby shard node, in file order (table shard i is the i-th).
  std::vector<const node_spec*> table_shard_nodes() const;
};

/// Parses the text of a cluster config; `source_name` prefixes every error
/// message (normally the file name). Fails on the first problem found.
expected<cluster_config> parse_cluster_config(std::string_view text, const std::string& source_name);

/// Reads and parses the cluster config file at `path`; an unreadable file
/// is a failure too.
expected<cluster_config> load_cluster_config(const std::string& path);

} // namespace gridvec
