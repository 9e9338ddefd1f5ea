#pragma once
// (Public header of actors/lbfgs/lbfgs_learner_actor.cpp and
// actors/lbfgs/node_learners.cpp.)
// The data passes of `gridvec lbfgs --config` (docs/lbfgs.md) on the
// cluster's learner nodes. A learner node makes an L-BFGS learner for each
// `lbfgs` request (protocol.hpp, lbfgs_learner_actor); the process that runs
// the optimiser (the driver) gives each learner shares of the training
// examples, and each learner evaluates its shares against the table shards
// with its own client (sparse fetch and increment, src/lbfgs/learner_share.hpp)
// and answers scalars only.
//
// node_learners is the driver's side: it watches every learner (a CAF
// monitor: a killed learner node is noticed within the heartbeat, not after
// a request's timeout), and when one is lost in the middle of a pass, it
// hands that learner's shares to a new learner on a standby learner node of
// the config (`standby = true`, `roles = learner`) while there is one, else
// to the live learners, and does the pass again.
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>
#include <gridvec/core/cluster_config.hpp>
#include <gridvec/core/expected.hpp>

namespace gridvec {

/// A new L-BFGS learner in `sys` (on its own thread: its table calls block)
/// of a node of `cluster`: it reaches table shards on that cluster's shard
/// nodes only. It answers only the process that sent it its first request,
/// and stops when that process does (or after 10 minutes without a first
/// request).
lbfgs_learner_actor spawn_lbfgs_learner(caf::actor_system& sys, cluster_config cluster);

/// The passes an L-BFGS learner runs over a share.
enum class lbfgs_pass : uint8_t { line = 0, gradient = 1, correct = 2 };

/// The most L-BFGS learners a node keeps at once.
constexpr uint32_t max_lbfgs_learners_per_node = 64;

class node_learners {
public:
  /// One L-BFGS learner per learner actor of the config (a learner node's
  /// `learners`), asked of every non-standby learner node in config order;
  /// standby learner nodes are asked only to replace lost learners.
  /// `timeout`: what a learner gives each call to the table shards; it is
  /// given twice that and 10 s to answer a request (a pass is two calls).
  /// Blocks; one error line if a node cannot be reached or refuses.
  static expected<std::unique_ptr<node_learners>> connect(caf::actor_system& sys, const cluster_config& cluster,
                                                          std::chrono::milliseconds timeout);
  ~node_learners();
  node_learners(const node_learners&) = delete;
  node_learners& operator=(const node_learners&) = delete;

  /// Learners asked for (standby ones that replaced lost ones included),
  /// and those still alive.
  uint32_t size() const;
  uint32_t alive() const;

  /// The requests' tags (the learners' writer tokens) from now on are
  /// above `fence`: the model table's fence as this driver found it.
  void tokens_above(uint64_t fence);

  /// Every live learner connects to the table shards on `shard_nodes` (in
  /// shard order; again, after a shard moved to a standby) and opens table
  /// `table`.
  status use_table(const std::vector<const node_spec*>& shard_nodes, const std::string& table);

  /// Shares the examples of `path` (an absolute path the learner nodes
  /// read) into one share per learner, share k to learner k. Every learner
  /// must read `examples` examples there.
  status load(const std::string& path, uint32_t features, uint64_t examples);

  /// One pass over every share; its values per share, in share order. When
  /// a learner is lost during the pass, its shares go to a standby's new
  /// learner, or else to the live learners (which read them from the file),
  /// `before_redo(fence)` runs (the driver fences the table at `fence` and
  /// resets what the pass writes), and the whole pass is done again. A
  /// learner's increments in a pass carry the writer token of its request
  /// (table::increment): those of every attempt before the redo are below
  /// `fence`, the redo's are not.
  expected<std::vector<std::vector<double>>> pass(lbfgs_pass what, std::span<const double> steps,
                                                  const std::function<status(uint64_t fence)>& before_redo = {});

  /// Requests the learners' table clients sent, and bytes both ways, as the
  /// learners reported them with their answers.
  double requests() const;
  double bytes() const;
  /// Learners lost so far (their shares went to standby or live ones).
  uint32_t replacements() const;

  struct state;

private:
  explicit node_learners(std::unique_ptr<state> s);
  std::unique_ptr<state> s_;
};

} // namespace gridvec
