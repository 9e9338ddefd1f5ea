#pragma once
// The training layouts, one folder each under actors/layouts/, and the one
// place they are registered (registry.cpp). A layout's folder holds what
// it runs on every role:
//   shards       its lanes over its service (src/shard/), spawned from a
//                shard_spec with its store and starting values;
//   learners     its training path (actors/learner/training_path.hpp),
//                over plain-C++ objects of the core;
//   coordinator  what it asks beyond every layout's steps: connecting its
//                shards to each other, answering `nearest`, and whether
//                its learners share rounds with each other.
// What every layout shares stays outside: the lanes' admin handlers
// (actors/shard/lane.hpp), the learner's window and messages
// (actors/learner/), the phases of a job (actors/coordinator/), and every
// reader of rows, which asks a shard's geometry
// (include/gridvec/core/shard_layout.hpp) rather than its layout.
#include <functional>
#include <memory>
#include <vector>

#include <gridvec/protocol.hpp>
#include <gridvec/roles/shard.hpp>
#include "actors/coordinator/coordinator_state.hpp"
#include "actors/learner/training_path.hpp"
#include "actors/shard/shard_start.hpp"

namespace gridvec {

using neighbours_promise = caf::typed_response_promise<std::vector<neighbour>>;

struct layout_entry {
  shard_layout layout;
  /// Makes a shard's store and service, starts it from its checkpoint or
  /// --init, and spawns its lanes; the info's columns, rows, sampling
  /// bytes and lanes.
  expected<shard_info> (*spawn)(caf::actor_system& sys, const shard_spec& spec, const shard_inputs& in);
  /// The path a learner of this layout trains on.
  std::unique_ptr<learner::training_path> (*make_path)(const learner::learner_state& st);
  /// After every shard is placed, and after a restore: connects the shards
  /// that talk to each other, then calls `then`. Null: nothing to connect.
  void (*connect_shards)(coordinator_ptr self, std::function<void()> then);
  /// `nearest`: the k words whose input vectors are most similar to the
  /// sum of weights[i] · u(ids[i]), but ids themselves.
  void (*similar)(coordinator_ptr self, std::vector<uint32_t> ids, std::vector<float> weights, uint32_t k,
                  neighbours_promise rp, std::shared_ptr<bool> failed);
  /// Learners that each hold the whole model and synchronise in rounds:
  /// each learns the others (hosts) before its first work and before a
  /// rollback, and a lost one sends them all back to the last checkpoint.
  bool learners_share_rounds = false;
};

/// The entry of `layout`.
const layout_entry& layout_entry_of(shard_layout layout);

// Each layout's folder defines its entry.
layout_entry columns_layout();
layout_entry rows_layout();
layout_entry replica_layout();

/// The columns layout's `nearest`, which every layout of column slices
/// (columns, replica) answers the same way.
void similar_by_columns(coordinator_ptr self, std::vector<uint32_t> ids, std::vector<float> weights, uint32_t k,
                        neighbours_promise rp, std::shared_ptr<bool> failed);

} // namespace gridvec
