#include "actors/peer_bounds.hpp"

#include <algorithm>
#include <cstdint>

namespace gridvec {

namespace {
status out_of_bounds(const std::string& what, uint64_t value, uint64_t lo, uint64_t hi) {
  return failure{what + " " + std::to_string(value) + " is out of bounds (" + std::to_string(lo) + " to " +
                 std::to_string(hi) + ")"};
}
} // namespace

status check_shard_spec(const shard_spec& s) {
  if (s.dim < 1 || s.dim > max_peer_dim)
    return out_of_bounds("newshard: dimension", s.dim, 1, max_peer_dim);
  if (s.count < 1 || s.count > max_peer_shards)
    return out_of_bounds("newshard: shard count", s.count, 1, max_peer_shards);
  if (s.index >= s.count)
    return out_of_bounds("newshard: shard index", s.index, 0, s.count - 1);
  if (s.lanes < 1 || s.lanes > max_peer_lanes)
    return out_of_bounds("newshard: lanes", s.lanes, 1, max_peer_lanes);
  if (s.word_partitions < 1 || s.word_partitions > 1000000)
    return out_of_bounds("newshard: word partitions", s.word_partitions, 1, 1000000);
  if (s.negatives_mode > 2)
    return out_of_bounds("newshard: negatives mode", s.negatives_mode, 0, 2);
  if (static_cast<uint8_t>(s.layout) > last_shard_layout)
    return out_of_bounds("newshard: layout", static_cast<uint8_t>(s.layout), 0, last_shard_layout);
  return {};
}

status check_shard_size(const shard_spec& s, uint64_t vocab_size) {
  // Input and output rows of its columns (output rows of the Huffman
  // tree's inner nodes too with -hs 1); the vocabulary is a file this node
  // read, its size is bounded by that file's.
  const auto shape = shard_geometry::of(s.layout, s.index, s.count, s.dim);
  const uint64_t width = shape.columns.width;
  const uint64_t rows = shape.rows_between(0, static_cast<uint32_t>(std::min<uint64_t>(vocab_size, UINT32_MAX)));
  const uint64_t floats = 2 * (rows + (s.hierarchical ? rows : 0)) * width;
  constexpr uint64_t max_floats = uint64_t{1} << 40; // 4 TiB: far above any machine, below overflow
  if (floats > max_floats)
    return failure{"newshard: " + std::to_string(floats) + " floats is more than a shard may hold"};
  return {};
}

status check_learner_config(const learner_config& c, size_t lanes) {
  // The job's options, by the option table's own ranges and choices.
  if (auto valid = check_option_values(c); !valid)
    return failure{"newlearner: " + valid.error(), error_code::invalid_argument};
  if (c.size < 1 || c.size > max_peer_dim)
    return out_of_bounds("newlearner: dimension", c.size, 1, max_peer_dim);
  if (c.in_flight < 1)
    return out_of_bounds("newlearner: in-flight", c.in_flight, 1, 1024);
  if (c.learners > 65536)
    return out_of_bounds("newlearner: learners", c.learners, 0, 65536);
  if (c.threads < 1 || c.threads > 4096)
    return out_of_bounds("newlearner: threads", c.threads, 1, 4096);
  if (c.sync_rounds > 1000000)
    return out_of_bounds("newlearner: sync rounds", c.sync_rounds, 0, 1000000);
  if (lanes > max_peer_shards)
    return out_of_bounds("newlearner: shards", lanes, 0, max_peer_shards);
  return {};
}

status check_export_request(const std::vector<shard_info>& shards, uint32_t dim) {
  if (dim < 1 || dim > max_peer_dim)
    return out_of_bounds("newexport: dimension", dim, 1, max_peer_dim);
  if (shards.empty() || shards.size() > max_peer_shards)
    return out_of_bounds("newexport: shards", shards.size(), 1, max_peer_shards);
  for (const auto& s : shards)
    if (s.lanes.empty() || uint64_t{s.first} + s.width > dim)
      return failure{"newexport: shard " + std::to_string(s.index) + " has no lanes or columns outside the dimension"};
  return {};
}

} // namespace gridvec
