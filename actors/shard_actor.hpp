#pragma once
// Shard actors: thin wrappers that decode a request, let shard_store do the
// arithmetic and encode the reply. A shard is one shard_store served by
// several lanes (actors) at once; checkpoints and queries go to any lane.
#include <functional>
#include <memory>
#include <vector>

#include "actors/protocol.hpp"
#include "src/model/shard_store.hpp"

namespace gridvec {

/// What the lanes of one shard share.
struct shard_core {
  std::shared_ptr<shard_store> store;
  slice_header header; // identity of its checkpoint files
  uint64_t init_seed = 0;
  // --init: puts the saved model's rows over the initial vectors (at the
  // start, and again when a rollback resets the shard); empty otherwise.
  std::function<status(shard_store&)> init_from_model;
  std::atomic<uint64_t> requests{0};
};

/// Which thread a shard's lanes run their training messages on.
///   workers: the scheduler's worker threads, as every actor.
///   network: the network thread of the actor system (CAF brokers). A
///            message from a remote learner is then decoded, trained and
///            answered on the thread that read it from the socket: no
///            hand-over to a worker and back, which on a node whose one
///            worker serves the shard anyway only costs wake-ups. The
///            slow requests (save, load, reset, rows, norms, similar) go
///            on to one worker lane, so that the network thread never
///            stalls for long (heartbeats). Needs a middleman; without
///            one the lanes run on the workers.
enum class lane_thread { workers, network };

/// Creates shard spec.index of spec.count, from its checkpoint file if
/// spec.checkpoint is set (else from the model of spec.init_model, if
/// set), with spec.lanes actors on it. Fails if the checkpoint or model
/// cannot be read back intact.
expected<shard_info> spawn_shard(caf::actor_system& sys, const shard_spec& spec, vocabulary_ptr vocab,
                                 std::shared_ptr<const alias_sampler> noise, lane_thread where = lane_thread::workers);

/// One lane over an existing shard (used by spawn_shard, and by tests).
shard_actor spawn_shard_lane(caf::actor_system& sys, uint32_t index, std::shared_ptr<shard_core> core);

} // namespace gridvec
