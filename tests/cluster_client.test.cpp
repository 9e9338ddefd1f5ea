// The public API's way into a cluster (include/gridvec/cluster.hpp), over
// real loopback connections between two actor systems of this process: one
// publishes nodes as `gridvec node` does, the other connects to them with
// connect_to_controller.
#include <catch2/catch.hpp>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <gridvec/gridvec.hpp>

#include <chrono>
#include <memory>
#include <optional>

#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;

namespace {

// An actor system set up as a cluster's nodes set theirs up.
std::unique_ptr<caf::actor_system> cluster_system(caf::actor_system_config& cfg) {
  configure_cluster_system(cfg);
  return std::make_unique<caf::actor_system>(cfg);
}

uint16_t publish(caf::actor_system& sys, const node_actor& node) {
  auto port = sys.middleman().publish(node, 0, "127.0.0.1", true);
  REQUIRE(port);
  return *port;
}

} // namespace

TEST_CASE("connect_to_controller finds the controller of a published coordinator node", "[cluster_client]") {
  caf::actor_system_config server_cfg, client_cfg;
  auto server = cluster_system(server_cfg);
  auto client = cluster_system(client_cfg);
  auto node = spawn_local_gridvec(*server); // a node with a controller, as the coordinator's
  const uint16_t port = publish(*server, node);

  auto controller = connect_to_controller(*client, "127.0.0.1", port, std::chrono::seconds(5));
  REQUIRE(controller);
  caf::scoped_actor self{*client};
  std::optional<job_status> status;
  self->request(*controller, std::chrono::seconds(5), status_atom::value)
    .receive([&](const job_status& s) { status = s; }, [](caf::error& e) { FAIL(error_text(e)); });
  REQUIRE(status);
  CHECK(status->job == 0);
  CHECK(status->phase == "idle");
  caf::anon_send(node, stop_atom::value);
}

TEST_CASE("connect_to_controller fails with one line, in time, where there is no controller", "[cluster_client]") {
  caf::actor_system_config server_cfg, client_cfg;
  auto server = cluster_system(server_cfg);
  auto client = cluster_system(client_cfg);

  SECTION("a node that is not the coordinator's") {
    node_setup setup;
    setup.name = "shard-x";
    setup.roles = "shard";
    auto node = spawn_node(*server, setup);
    const uint16_t port = publish(*server, node);
    auto controller = connect_to_controller(*client, "127.0.0.1", port, std::chrono::seconds(5));
    REQUIRE_FALSE(controller);
    CHECK(contains(controller.error(), "the node at 127.0.0.1:" + std::to_string(port) + " gave no controller"));
    CHECK(contains(controller.error(), "node shard-x is not the coordinator's node"));
    caf::anon_send(node, stop_atom::value);
  }

  SECTION("nothing listening") {
    const auto start = std::chrono::steady_clock::now();
    auto controller = connect_to_controller(*client, "127.0.0.1", 1, std::chrono::seconds(5));
    REQUIRE_FALSE(controller);
    CHECK(contains(controller.error(), "cannot reach 127.0.0.1:1"));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(6));
  }
}

TEST_CASE("connect_to_controller needs an actor system with the network layer", "[cluster_client]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto controller = connect_to_controller(sys, "127.0.0.1", 7700, std::chrono::seconds(1));
  REQUIRE_FALSE(controller);
  CHECK(contains(controller.error(), "configure_cluster_system"));
}
