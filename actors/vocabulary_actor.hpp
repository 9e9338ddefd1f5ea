#pragma once
// The vocabulary: a map-reduce of word counts. Count workers run where the
// data is (one per corpus part); the vocabulary actor merges their tables,
// fixes word ids by frequency and saves the vocabulary file every shard and
// learner loads.
#include "actors/protocol.hpp"

namespace gridvec {

vocabulary_actor spawn_vocabulary(caf::actor_system& sys);

/// A worker that counts byte ranges on its own thread (file I/O blocks).
count_worker_actor spawn_count_worker(caf::actor_system& sys);

/// Loads a vocabulary file once per process: shards and learners of the
/// same process share one copy.
expected<vocabulary_ptr> load_shared_vocabulary(const std::string& path);

} // namespace gridvec
