#pragma once
// (Public header of actors/exporter_actor.cpp.)
// The exporter: reads the input vectors back from the shards, a block of
// words at a time, joins each word's column slices into its full vector
// and writes the vectors file (atomically) in vocabulary order, each
// block's words read from the vocabulary file as it goes: it never holds
// every word.
#include <gridvec/protocol.hpp>
#include <gridvec/roles/shard.hpp>

namespace gridvec {

/// One line if `vocab_path` is no gridvec vocabulary file.
expected<exporter_actor> spawn_exporter(caf::actor_system& sys, const std::string& vocab_path,
                                        std::vector<shard_info> shards, uint32_t dim);

} // namespace gridvec
