#pragma once
// How a learner trains: one object per path, made once when the learner is
// spawned by its shards' layout (layout_entry::make_path,
// actors/layouts/). The learner actor (learner_actor.cpp) owns the window
// of minibatches in flight, pauses, halts, rollbacks and reports; a path
// only trains.
#include <string>

#include <gridvec/core/expected.hpp>
#include <gridvec/roles/learner.hpp>

namespace gridvec::learner {

struct learner_state;
using learner_ptr = learner_actor::stateful_pointer<learner_state>;

class training_path {
public:
  virtual ~training_path() = default;
  /// Takes the learner's shard lanes (learner_state::shards): before its
  /// first work and after every rollback, which may bring a restored
  /// shard's new lanes.
  virtual status bind(learner_ptr self) = 0;
  /// Trains what may be trained now (what the window allows, or one slice
  /// of time), then calls pump_settled.
  virtual void pump(learner_ptr self) = 0;
  /// A halt: forgets what the path has in progress beyond the window.
  virtual void halt() {}
  /// Whether it still has work of its own when the window is empty and no
  /// part is left (a synchronisation round).
  virtual bool busy() const { return false; }
  /// Whether each pair's update lands before the next pair's dot products
  /// (trained in this process, as word2vec.c trains), rather than a
  /// minibatch's updates after all its dot products: it decides the
  /// direction of -hs 1's skip-gram pairs (example_form_for).
  virtual bool pair_by_pair() const { return false; }
  /// What `status` says while the learner runs and is not idle.
  virtual std::string activity() const { return "training"; }
};

} // namespace gridvec::learner
