#pragma once
// (Public header of actors/shard/spawn_shard.cpp.)
// Shard actors: a shard of an SGNS job is one shard_store (a column or
// word slice of the model), served by several lanes (actors) at once. A
// lane runs a training message with the store's dotprod or adjust
// (src/shard/column_service.hpp); checkpoints and queries go to any lane.
#include <memory>

#include <functional>

#include <gridvec/protocol.hpp>

namespace gridvec {

class noise_sampler; // src/sgns/noise_sampler.hpp

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
/// cannot be read back intact. `noise`: the sampler of noise words, shared
/// by the shards of a process; null: one made from the vocabulary's counts
/// (word2vec's unigram^0.75).
expected<shard_info> spawn_shard(caf::actor_system& sys, const shard_spec& spec, vocabulary_ptr vocab,
                                 std::shared_ptr<const noise_sampler> noise = nullptr,
                                 lane_thread where = lane_thread::workers);
/// The same from the vocabulary's counts alone (what a node's shards
/// hold); `words` gives the vocabulary where its words are needed (--init:
/// the model's rows matched by word), default: spec.vocabulary loaded then.
expected<shard_info> spawn_shard(caf::actor_system& sys, const shard_spec& spec, vocabulary_counts_ptr counts,
                                 std::shared_ptr<const noise_sampler> noise = nullptr,
                                 lane_thread where = lane_thread::workers,
                                 std::function<expected<vocabulary_ptr>()> words = {});

} // namespace gridvec
