#pragma once
// The memory this process may take: its cgroup's limit (v2 memory.max, or
// v1 memory.limit_in_bytes) where one is set below the machine's RAM, else
// the machine's RAM. A dashboard shows each node's resident memory against
// it: the budget a node's shards and learners must fit in.
#include <cstdint>
#include <string_view>

namespace gridvec {

/// Bytes; 0 if neither the cgroup nor the machine's RAM can be read.
uint64_t memory_limit_bytes();

/// A cgroup memory limit file's content as bytes: "max", an empty or
/// malformed text, or a value past the machine's RAM (`ram`) is no limit (0).
uint64_t parse_cgroup_limit(std::string_view text, uint64_t ram);

} // namespace gridvec
