#pragma once
// (Public header of actors/learner/learner_actor.cpp.)
// A learner (the Network-efficient word2vec paper, Figure 7): reads its part of the preprocessed corpus,
// subsamples frequent words, forms minibatches with word2vec's random
// window, and for each minibatch
//   1. broadcasts dotprod (word ids + one seed) to every shard,
//   2. sums the partial dot products and computes the update weights,
//   3. broadcasts adjust (the same ids and seed + the weights).
// Several minibatches are in flight at once so it never idles on a shard.
#include <memory>
#include <vector>

#include <gridvec/protocol.hpp>

namespace gridvec {

/// `shards` holds one lane of every shard, in shard order.
learner_actor spawn_learner(caf::actor_system& sys, learner_config config, vocabulary_ptr vocab,
                            std::vector<shard_actor> shards, coordinator_actor coordinator);
/// The same from the vocabulary's counts alone (what a node's learners
/// hold); the words of the vocabulary file `vocab_path` are loaded only
/// where needed: --partition replicated (its rows' keys), a part
/// preprocessed without partitions.
learner_actor spawn_learner(caf::actor_system& sys, learner_config config, vocabulary_counts_ptr counts,
                            std::string vocab_path, std::vector<shard_actor> shards, coordinator_actor coordinator);

} // namespace gridvec
