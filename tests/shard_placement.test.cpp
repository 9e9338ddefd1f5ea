// The one rule placement and recovery share (src/model/shard_placement.hpp),
// on the example cluster's nodes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <limits>

#include <gridvec/core/cluster_config.hpp>
#include "src/model/shard_placement.hpp"

using namespace gridvec;

namespace {

constexpr uint32_t nowhere = std::numeric_limits<uint32_t>::max();

std::vector<shard_host> example_hosts() {
  auto path = std::filesystem::path(__FILE__).parent_path().parent_path() / "examples" / "cluster-local.conf";
  auto config = load_cluster_config(path.string());
  REQUIRE(config);
  std::vector<shard_host> hosts;
  for (const auto& n : config->nodes)
    hosts.push_back({n.name, n.has(node_role::shard) ? n.shards : 0, n.standby});
  return hosts;
}

/// Shards each node holds under `where`.
std::vector<uint32_t> hosted_of(const std::vector<shard_host>& hosts, const std::vector<uint32_t>& where) {
  std::vector<uint32_t> hosted(hosts.size(), 0);
  for (auto n : where)
    ++hosted[n];
  return hosted;
}

} // namespace

TEST_CASE("shard placement: a job of more shards than the nodes declare is refused", "[shard_placement]") {
  const auto hosts = example_hosts(); // coord, shard-a (1), shard-b (1), learn-a, learn-b, spare (1, standby)
  CHECK(declared_shards(hosts) == 2);
  auto four = place_shards(hosts, 4);
  REQUIRE(!four);
  CHECK(four.error() == "--shards 4: the shard nodes declare room for 2 (shard-a 1, shard-b 1); raise their `shards` "
                        "in the cluster config or submit with --shards 2 or fewer (standby nodes only restore lost "
                        "shards)");
  CHECK(!place_shards(hosts, 3));
}

TEST_CASE("shard placement: round robin over the nodes with room, never a standby", "[shard_placement]") {
  const auto hosts = example_hosts();
  auto two = place_shards(hosts, 2);
  REQUIRE(two);
  CHECK(*two == std::vector<uint32_t>{1, 2});
  auto one = place_shards(hosts, 1);
  REQUIRE(one);
  CHECK(*one == std::vector<uint32_t>{1});
  // Unequal capacities: the larger node takes the shards the other has no room for.
  std::vector<shard_host> uneven{{"big", 3, false}, {"small", 1, false}, {"spare", 2, true}};
  auto four = place_shards(uneven, 4);
  REQUIRE(four);
  CHECK(*four == std::vector<uint32_t>{0, 1, 0, 0});
}

TEST_CASE("shard placement: whatever placement accepts, recovery finds room for one lost node", "[shard_placement]") {
  // The agreement: every placement the rule accepts on the example
  // cluster, with any one shard node lost, has somewhere to restore each
  // of that node's shards (the standby, by the same capacity rule).
  const auto hosts = example_hosts();
  for (uint32_t shards = 1; shards <= declared_shards(hosts); ++shards) {
    auto where = place_shards(hosts, shards);
    REQUIRE(where);
    for (uint32_t lost = 0; lost < hosts.size(); ++lost) {
      if (hosts[lost].capacity == 0 || hosts[lost].standby)
        continue;
      std::vector<bool> alive(hosts.size(), true);
      alive[lost] = false;
      auto hosted = hosted_of(hosts, *where);
      const uint32_t on_lost = hosted[lost];
      hosted[lost] = 0;
      for (uint32_t k = 0; k < on_lost; ++k) {
        const uint32_t target = restore_target(hosts, hosted, alive, lost);
        INFO("shards " << shards << ", node " << hosts[lost].name << " lost, its shard " << k);
        REQUIRE(target != nowhere);
        CHECK(target != lost);
        ++hosted[target];
        CHECK(hosted[target] <= hosts[target].capacity);
      }
    }
  }
}

TEST_CASE("shard placement: recovery prefers a surviving node with room, then a standby", "[shard_placement]") {
  std::vector<shard_host> hosts{{"a", 2, false}, {"b", 2, false}, {"spare", 1, true}};
  std::vector<bool> alive{false, true, true};
  CHECK(restore_target(hosts, {0, 1, 0}, alive, 0) == 1);       // b has room for one more
  CHECK(restore_target(hosts, {0, 2, 0}, alive, 0) == 2);       // b is full: the standby
  CHECK(restore_target(hosts, {0, 2, 1}, alive, 0) == nowhere); // the standby is full too
  alive[2] = false;
  CHECK(restore_target(hosts, {0, 2, 0}, alive, 0) == nowhere); // a dead standby takes nothing
}
