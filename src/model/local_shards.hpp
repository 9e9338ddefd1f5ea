#pragma once
// Which shard stores live in this process, by the shard lane that serves
// them. A learner whose every shard lane is found here trains on the stores
// directly (src/sgns/local_trainer.hpp) instead of sending dotprod/adjust
// messages: the same memory, without encoding, copying and a mailbox round
// trip per minibatch. Lanes of another process are never found (a remote
// actor's handle is a proxy of its own), so a cluster keeps the protocol.
//
// Keys are opaque process-unique values (the address of the lane actor's
// control block, which stays unique while the lane lives); the lane removes
// its entry when it terminates. The directory holds weak references only.
#include <cstdint>
#include <memory>

namespace gridvec {

class shard_store;

namespace local_shards {

void add(uintptr_t lane, const std::shared_ptr<shard_store>& store);
void remove(uintptr_t lane);
/// The store behind `lane`, or null if it is not in this process.
std::shared_ptr<shard_store> find(uintptr_t lane);

} // namespace local_shards
} // namespace gridvec
