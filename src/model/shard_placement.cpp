#include "src/model/shard_placement.hpp"

#include <limits>

namespace gridvec {

uint32_t declared_shards(const std::vector<shard_host>& nodes) {
  uint32_t total = 0;
  for (const auto& n : nodes)
    if (!n.standby)
      total += n.capacity;
  return total;
}

expected<std::vector<uint32_t>> place_shards(const std::vector<shard_host>& nodes, uint32_t shards) {
  const uint32_t room = declared_shards(nodes);
  if (shards > room) {
    std::string each;
    for (const auto& n : nodes)
      if (!n.standby && n.capacity > 0)
        each += (each.empty() ? "" : ", ") + n.name + " " + std::to_string(n.capacity);
    return failure{"--shards " + std::to_string(shards) + ": the shard nodes declare room for " + std::to_string(room) +
                   (each.empty() ? "" : " (" + each + ")") +
                   "; raise their `shards` in the cluster config or submit with --shards " + std::to_string(room) +
                   " or fewer (standby nodes only restore lost shards)"};
  }
  // Round robin over the nodes that still have room: with equal capacities
  // shard s lands on node s mod N, as it always did.
  std::vector<uint32_t> hosted(nodes.size(), 0), where;
  where.reserve(shards);
  size_t next = 0;
  while (where.size() < shards) {
    const size_t n = next++ % nodes.size();
    if (!nodes[n].standby && hosted[n] < nodes[n].capacity) {
      ++hosted[n];
      where.push_back(static_cast<uint32_t>(n));
    }
  }
  return where;
}

uint32_t restore_target(const std::vector<shard_host>& nodes, const std::vector<uint32_t>& hosted,
                        const std::vector<bool>& alive, uint32_t lost_from) {
  for (bool standby : {false, true})
    for (uint32_t n = 0; n < nodes.size(); ++n)
      if (n != lost_from && alive[n] && nodes[n].standby == standby && hosted[n] < nodes[n].capacity)
        return n;
  return std::numeric_limits<uint32_t>::max();
}

} // namespace gridvec
