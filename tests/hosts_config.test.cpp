// A cluster config from a host list: every host a node the parser accepts,
// the first the coordinator's, ports from the base, the secret and tables in
// the state directory, and host lists with mistakes refused in one line.
#include <catch2/catch.hpp>

#include <gridvec/core/cluster_config.hpp>
#include "src/config/hosts_config.hpp"

using namespace gridvec;
using Catch::Matchers::Contains;

TEST_CASE("a host list becomes a config the parser accepts", "[hosts_config]") {
  auto hosts = parse_host_list("# the allocation\nnode01.cluster.example\nnode02.cluster.example, node03\n\n"
                               "10.0.0.7  # by address\n");
  REQUIRE(hosts);
  REQUIRE(*hosts == std::vector<std::string>{"node01.cluster.example", "node02.cluster.example", "node03", "10.0.0.7"});
  hosts_layout layout;
  layout.port_base = 9100;
  layout.shards = 2;
  layout.learners = 3;
  layout.state_dir = "/shared/gridvec";
  layout.allow_read = {"/data/corpora"};
  auto text = cluster_config_from_hosts(*hosts, layout);
  REQUIRE(text);
  auto config = parse_cluster_config(*text, "generated");
  REQUIRE(config);
  REQUIRE(config->nodes.size() == 4);
  CHECK(config->nodes[0].name == "node01"); // `hostname -s` on that machine
  CHECK(config->nodes[0].host == "node01.cluster.example");
  CHECK(config->nodes[3].name == "10.0.0.7");
  CHECK(config->coordinator().name == "node01");
  for (size_t i = 0; i < 4; ++i) {
    CHECK(static_cast<size_t>(config->nodes[i].port) == 9100 + i);
    CHECK(config->nodes[i].has(node_role::shard));
    CHECK(config->nodes[i].has(node_role::learner));
    CHECK(config->nodes[i].shards == 2);
    CHECK(config->nodes[i].learners == 3);
  }
  CHECK(config->total_shards() == 8);
  CHECK(config->secret_file == "/shared/gridvec/cluster.key");
  CHECK(config->table_dir == "/shared/gridvec/tables");
  CHECK(config->allow_read == std::vector<std::string>{"/shared/gridvec", "/data/corpora"});
  CHECK(config->allow_write == std::vector<std::string>{"/shared/gridvec"});
}

TEST_CASE("one host runs every role; a repeated host gets its own node and port", "[hosts_config]") {
  hosts_layout layout;
  layout.state_dir = "/tmp/state";
  auto one = parse_cluster_config(*cluster_config_from_hosts({"localhost"}, layout), "one");
  REQUIRE(one);
  REQUIRE(one->nodes.size() == 1);
  CHECK(one->nodes[0].roles_text() == "coordinator vocabulary exporter shard learner");

  layout.standby = 1;
  auto text = cluster_config_from_hosts({"127.0.0.1", "127.0.0.1", "127.0.0.1"}, layout);
  REQUIRE(text);
  auto three = parse_cluster_config(*text, "three");
  REQUIRE(three);
  CHECK(three->nodes[1].name == "127.0.0.1-2");
  CHECK(three->nodes[2].port == 7702);
  CHECK(three->nodes[2].standby);
  CHECK(three->total_learners() == 2);
}

TEST_CASE("mistakes in a host list or layout are one line", "[hosts_config]") {
  CHECK_THAT(parse_host_list("a\nb;rm\n").error(), Contains("line 2") && Contains("'b;rm'"));
  CHECK_THAT(parse_host_list("# nothing\n").error(), Contains("no host"));
  hosts_layout layout;
  layout.state_dir = "relative";
  CHECK_THAT(cluster_config_from_hosts({"a"}, layout).error(), Contains("absolute"));
  layout.state_dir = "/s";
  layout.port_base = 65535;
  CHECK_THAT(cluster_config_from_hosts({"a", "b"}, layout).error(), Contains("65535"));
  layout.port_base = 7700;
  layout.standby = 2;
  CHECK_THAT(cluster_config_from_hosts({"a", "b"}, layout).error(), Contains("no host"));
}
