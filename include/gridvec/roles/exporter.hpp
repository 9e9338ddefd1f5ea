#pragma once
// (Public header of actors/exporter_actor.cpp.)
// The exporter: reads the input vectors back from the shards, a block of
// words at a time, joins each word's column slices into its full vector
// and writes the vectors file (atomically) in vocabulary order.
#include <gridvec/protocol.hpp>
#include <gridvec/roles/shard.hpp>

namespace gridvec {

exporter_actor spawn_exporter(caf::actor_system& sys, vocabulary_ptr vocab, std::vector<shard_info> shards,
                              uint32_t dim);

} // namespace gridvec
