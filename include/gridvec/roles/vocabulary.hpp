#pragma once
// (Public header of actors/vocabulary_actor.cpp.)
// The vocabulary: a map-reduce of word counts. Count workers run where the
// data is (one per corpus part); the vocabulary actor merges their tables,
// fixes word ids by frequency and saves the vocabulary file every shard and
// learner loads.
#include <memory>

#include <gridvec/protocol.hpp>

namespace gridvec {

class huffman_tree;

vocabulary_actor spawn_vocabulary(caf::actor_system& sys);

/// A worker that counts byte ranges on its own thread (file I/O blocks).
count_worker_actor spawn_count_worker(caf::actor_system& sys);

/// Loads a vocabulary file once per process: shards and learners of the
/// same process share one copy.
expected<vocabulary_ptr> load_shared_vocabulary(const std::string& path);

/// The Huffman tree of `vocab`'s counts (-hs 1), built once per process
/// for as long as someone holds it: every shard and learner of the process
/// uses the same one (a tree of V words holds about V log2 V path entries).
std::shared_ptr<const huffman_tree> shared_huffman_tree(const vocabulary_ptr& vocab);

} // namespace gridvec
