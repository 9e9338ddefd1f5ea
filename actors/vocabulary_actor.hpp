#pragma once
// The vocabulary actor: a map-reduce of word counts over corpus parts
// (each part counted by its own worker, where the data is), then the
// frequency-ordered vocabulary every other role indexes by.
#include "actors/protocol.hpp"

namespace gridvec {

vocabulary_actor spawn_vocabulary(caf::actor_system& sys);

/// Counts one byte range of a corpus on its own thread (file I/O blocks).
count_worker_actor spawn_count_worker(caf::actor_system& sys);

} // namespace gridvec
