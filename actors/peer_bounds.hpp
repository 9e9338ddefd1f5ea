#pragma once
// Bounds on the sizes a peer's message to a node sets (dimensions, counts,
// list lengths), checked before anything is allocated for them, and the
// boundary that turns an allocation failure in a node's handler into an
// error reply: a node answers a message that asks for 2e9 columns with one
// line, it does not stop. The bounds are those of the options a client may
// give (src/config/options.cpp): a coordinator never asks for more.
#include <new>
#include <stdexcept>
#include <string>

#include <gridvec/protocol.hpp>

namespace gridvec {

/// The largest vector dimension (-size) and number of shards (--shards).
constexpr uint32_t max_peer_dim = 10000;
constexpr uint32_t max_peer_shards = 4096;
/// Lanes of one shard (at most one per core of a large machine, twice).
constexpr uint32_t max_peer_lanes = 1024;

status check_shard_spec(const shard_spec& spec);
/// Once the vocabulary is known: the floats the shard would hold.
status check_shard_size(const shard_spec& spec, uint64_t vocab_size);
status check_learner_config(const learner_config& cfg, size_t lanes);
status check_export_request(const std::vector<shard_info>& shards, uint32_t dim);

/// Runs a node handler's body; an allocation it could not make becomes
/// the error reply "WHAT: out of memory (...)".
template <class T, class F>
caf::result<T> answering(const char* what, F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return make_job_error(std::string(what) + ": out of memory on this node");
  } catch (const std::length_error& e) {
    return make_job_error(std::string(what) + ": a size beyond what this node can hold (" + e.what() + ")");
  }
}

} // namespace gridvec
