// The cluster config parser: a valid file becomes exactly the expected
// structure, and every kind of mistake is one line that names the file, the
// line and what is wrong.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gridvec/core/cluster_config.hpp>
#include "tests/test_util.hpp"

using namespace gridvec;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using gridvec::test::temp_dir;

namespace {

// A small valid cluster; the error tests below break it one line at a time,
// so every expected line number can be read off this listing.
const std::vector<std::string> base_lines = {
  "[cluster]",                                 // 1
  "heartbeat-ms = 500",                        // 2
  "[node a]",                                  // 3
  "host = 127.0.0.1",                          // 4
  "port = 7700",                               // 5
  "roles = coordinator, vocabulary, exporter", // 6
  "[node s]",                                  // 7
  "host = 127.0.0.1",                          // 8
  "port = 7701",                               // 9
  "roles = shard",                             // 10
  "shards = 1",                                // 11
  "[node l]",                                  // 12
  "host = 127.0.0.1",                          // 13
  "port = 7702",                               // 14
  "roles = learner",                           // 15
  "learners = 1",                              // 16
};

std::string joined(const std::vector<std::string>& lines, const char* eol = "\n") {
  std::string text;
  for (const auto& l : lines)
    text += l + eol;
  return text;
}

/// The base config with line `n` (1-based) replaced by `line`.
std::string replacing(int n, const std::string& line) {
  auto lines = base_lines;
  lines.at(static_cast<size_t>(n - 1)) = line;
  return joined(lines);
}

/// The base config with `line` inserted so that it becomes line `n`.
std::string inserting(int n, const std::string& line) {
  auto lines = base_lines;
  lines.insert(lines.begin() + (n - 1), line);
  return joined(lines);
}

/// The base config without line `n`.
std::string removing(int n) {
  auto lines = base_lines;
  lines.erase(lines.begin() + (n - 1));
  return joined(lines);
}

/// The failure message of parsing `text`, which must fail.
std::string parse_failure_of(const std::string& text) {
  auto config = parse_cluster_config(text, "test.conf");
  INFO(text);
  REQUIRE_FALSE(config);
  // One line: it goes straight to the terminal after "gridvec node: ".
  CHECK(config.error().find('\n') == std::string::npos);
  return config.error();
}

struct error_case {
  std::string what;
  std::string text;
  std::string prefix; // "test.conf:LINE: ", or "test.conf: " for the cluster as a whole
  std::string word;   // a telling part of the message
};

void check_errors(const std::vector<error_case>& cases) {
  for (const auto& c : cases) {
    INFO(c.what);
    auto message = parse_failure_of(c.text);
    CHECK_THAT(message, StartsWith(c.prefix) && Contains(c.word));
  }
}

std::string at(int line) { return "test.conf:" + std::to_string(line) + ": "; }

std::string example_path(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path().parent_path() / "examples" / name).string();
}

} // namespace

TEST_CASE("cluster config: a valid file parses into exactly the expected structure", "[cluster_config]") {
  const std::string text = "# the example of docs/cluster-config.md\n"
                           "\n"
                           "[cluster]\n"
                           "heartbeat-ms = 250          # a comment after a value\n"
                           "connect-timeout-ms = 3000\n"
                           "\n"
                           "[node coord]                 # a comment after a header\n"
                           "host = 127.0.0.1\n"
                           "port = 7700\n"
                           "roles = coordinator, vocabulary, exporter\n"
                           "   [node shard-a]\n"
                           "  host   =   10.0.0.2  \n"
                           "\tport=7701\n"
                           "roles = shard\n"
                           "shards = 3\n"
                           "[node learn_a.1]\n"
                           "host = box-3.example.org\n"
                           "port = 65535\n"
                           "roles = learner,shard  learner\n"
                           "learners = 2\n"
                           "shards = 1\n"
                           "standby = false\n"
                           "[node spare]\n"
                           "host = 127.0.0.1\n"
                           "port = 7705\n"
                           "roles = shard\n"
                           "shards = 4\n"
                           "standby = true\n";
  auto config = parse_cluster_config(text, "x.conf");
  INFO((config ? "" : config.error()));
  REQUIRE(config);
  CHECK(config->source == "x.conf");
  CHECK(config->heartbeat_ms == 250);
  CHECK(config->connect_timeout_ms == 3000);
  REQUIRE(config->nodes.size() == 4);

  const auto& coord = config->nodes[0];
  CHECK(coord.name == "coord");
  CHECK(coord.host == "127.0.0.1");
  CHECK(coord.port == 7700);
  CHECK(coord.roles == std::vector<node_role>{node_role::coordinator, node_role::vocabulary, node_role::exporter});
  CHECK(coord.shards == 0);
  CHECK(coord.learners == 0);
  CHECK_FALSE(coord.standby);
  CHECK(coord.line == 7);

  const auto& shard = config->nodes[1];
  CHECK(shard.name == "shard-a");
  CHECK(shard.host == "10.0.0.2");
  CHECK(shard.port == 7701);
  CHECK(shard.roles == std::vector<node_role>{node_role::shard});
  CHECK(shard.shards == 3);
  CHECK(shard.learners == 0);
  CHECK_FALSE(shard.standby);
  CHECK(shard.line == 11);

  const auto& learn = config->nodes[2];
  CHECK(learn.name == "learn_a.1");
  CHECK(learn.host == "box-3.example.org");
  CHECK(learn.port == 65535);
  // Written order, a repeated role once.
  CHECK(learn.roles == std::vector<node_role>{node_role::learner, node_role::shard});
  CHECK(learn.shards == 1);
  CHECK(learn.learners == 2);
  CHECK_FALSE(learn.standby);
  CHECK(learn.line == 16);

  const auto& spare = config->nodes[3];
  CHECK(spare.name == "spare");
  CHECK(spare.host == "127.0.0.1");
  CHECK(spare.port == 7705);
  CHECK(spare.roles == std::vector<node_role>{node_role::shard});
  CHECK(spare.shards == 4);
  CHECK(spare.learners == 0);
  CHECK(spare.standby);
  CHECK(spare.line == 23);

  // The queries.
  CHECK(config->find("coord") == &coord);
  CHECK(config->find("spare") == &spare);
  CHECK(config->find("nobody") == nullptr);
  CHECK(config->find("") == nullptr);
  CHECK(&config->coordinator() == &coord);
  CHECK(config->total_shards() == 4); // 3 + 1; the standby's 4 do not count
  CHECK(config->total_learners() == 2);
  CHECK(config->with_role(node_role::shard) == std::vector<const node_spec*>{&shard, &learn, &spare});
  CHECK(config->with_role(node_role::learner) == std::vector<const node_spec*>{&learn});
  CHECK(config->with_role(node_role::vocabulary) == std::vector<const node_spec*>{&coord});
  CHECK(coord.has(node_role::exporter));
  CHECK_FALSE(coord.has(node_role::shard));
}

TEST_CASE("cluster config: defaults, CRLF and a byte order mark", "[cluster_config]") {
  SECTION("[cluster] is optional and its keys default") {
    auto config = parse_cluster_config(removing(2), "test.conf"); // [cluster] left empty
    REQUIRE(config);
    CHECK(config->heartbeat_ms == 1000);
    CHECK(config->connect_timeout_ms == 5000);
    auto lines = base_lines;
    lines.erase(lines.begin(), lines.begin() + 2);
    auto without = parse_cluster_config(joined(lines), "test.conf");
    REQUIRE(without);
    CHECK(without->heartbeat_ms == 1000);
    CHECK(without->connect_timeout_ms == 5000);
    CHECK(without->nodes.size() == 3);
  }
  SECTION("CRLF line endings parse like LF ones") {
    auto lf = parse_cluster_config(joined(base_lines), "test.conf");
    auto crlf = parse_cluster_config(joined(base_lines, "\r\n"), "test.conf");
    REQUIRE(lf);
    REQUIRE(crlf);
    CHECK(crlf->heartbeat_ms == 500);
    REQUIRE(crlf->nodes.size() == lf->nodes.size());
    for (size_t i = 0; i < lf->nodes.size(); ++i) {
      CHECK(crlf->nodes[i].name == lf->nodes[i].name);
      CHECK(crlf->nodes[i].host == lf->nodes[i].host);
      CHECK(crlf->nodes[i].port == lf->nodes[i].port);
      CHECK(crlf->nodes[i].roles == lf->nodes[i].roles);
      CHECK(crlf->nodes[i].line == lf->nodes[i].line);
    }
    // And errors in a CRLF file still name the right line, without the '\r'.
    auto lines = base_lines;
    lines[3] = "hots = 127.0.0.1";
    auto message = parse_failure_of(joined(lines, "\r\n"));
    CHECK(message == "test.conf:4: unknown key 'hots' in [node a] (keys: host, port, roles, shards, learners, threads, "
                     "memory, count-memory, count-dir, standby, http-port, http-bind, table-lanes)");
  }
  SECTION("no newline at the end") {
    auto text = joined(base_lines);
    text.pop_back();
    auto config = parse_cluster_config(text, "test.conf");
    REQUIRE(config);
    CHECK(config->nodes.back().learners == 1);
  }
  SECTION("a UTF-8 byte order mark is skipped") {
    auto config = parse_cluster_config("\xEF\xBB\xBF" + joined(base_lines), "test.conf");
    REQUIRE(config);
    CHECK(config->heartbeat_ms == 500);
  }
  SECTION("the same port on another host is fine") {
    auto lines = base_lines;
    lines[7] = "host = 127.0.0.2";
    lines[8] = "port = 7700";
    auto config = parse_cluster_config(joined(lines), "test.conf");
    REQUIRE(config);
    CHECK(config->nodes[1].port == 7700);
  }
}

TEST_CASE("cluster config: worker threads per node", "[cluster_config]") {
  node_spec shard_node;
  shard_node.shards = 1;
  CHECK(shard_node.worker_threads(8) == 1); // one busy actor, one worker
  node_spec both;
  both.shards = 2;
  both.learners = 3;
  CHECK(both.worker_threads(8) == 5);
  CHECK(both.worker_threads(2) == 2); // never more than the cores
  node_spec coordinator_only;
  CHECK(coordinator_only.worker_threads(4) == 1);
  both.threads = 7; // the config's `threads` wins
  CHECK(both.worker_threads(2) == 7);
  auto lines = base_lines;
  lines.insert(lines.begin() + 11, "threads = 3");
  auto config = parse_cluster_config(joined(lines), "test.conf");
  REQUIRE(config);
  CHECK(config->nodes[1].threads == 3);
  CHECK(config->nodes[1].table_lanes == 0); // one per core
  lines.insert(lines.begin() + 11, "table-lanes = 2");
  auto with_lanes = parse_cluster_config(joined(lines), "test.conf");
  REQUIRE(with_lanes);
  CHECK(with_lanes->nodes[1].table_lanes == 2);
  CHECK(with_lanes->nodes[1].threads == 3); // apart from the workers
}

TEST_CASE("cluster config: which nodes serve their shards on the network thread", "[cluster_config]") {
  node_spec shard_node;
  shard_node.shards = 1;
  CHECK(shard_node.shards_on_network_thread(8)); // its one worker would serve the shard anyway
  node_spec two_shards;
  two_shards.shards = 2;
  CHECK_FALSE(two_shards.shards_on_network_thread(8)); // two workers, one per shard
  CHECK(two_shards.shards_on_network_thread(1));       // one core: one worker
  node_spec mixed;
  mixed.shards = 1;
  mixed.learners = 1;
  CHECK_FALSE(mixed.shards_on_network_thread(2));
  mixed.threads = 1; // the config asks for one worker: the learner gets it
  CHECK(mixed.shards_on_network_thread(2));
  node_spec learner_node;
  learner_node.learners = 1;
  CHECK_FALSE(learner_node.shards_on_network_thread(8)); // no shards
}

TEST_CASE("cluster config: the example message format", "[cluster_config]") {
  CHECK(parse_failure_of(replacing(4, "hots = 127.0.0.1")) ==
        "test.conf:4: unknown key 'hots' in [node a] (keys: host, port, roles, shards, learners, threads, memory, "
        "count-memory, count-dir, standby, http-port, http-bind, table-lanes)");
}

TEST_CASE("cluster config: syntax errors name their line", "[cluster_config]") {
  check_errors({
    {"unknown section", replacing(1, "[clusters]"), at(1), "unknown section [clusters]"},
    {"unknown section, empty", replacing(1, "[]"), at(1), "unknown section"},
    {"header without ']'", replacing(3, "[node a"), at(3), "']'"},
    {"text after a header", replacing(3, "[node a] x"), at(3), "']'"},
    {"duplicate [cluster]", inserting(3, "[cluster]"), at(3), "duplicate section [cluster]"},
    {"key outside a section", inserting(1, "heartbeat-ms = 500"), at(1), "outside a section"},
    {"unknown key in a node", replacing(4, "hots = 127.0.0.1"), at(4), "unknown key 'hots' in [node a]"},
    {"unknown key in [cluster]", replacing(2, "heartbeat = 500"), at(2), "unknown key 'heartbeat' in [cluster]"},
    {"keys are case sensitive", replacing(5, "Port = 7700"), at(5), "unknown key 'Port'"},
    {"missing '='", replacing(5, "port 7700"), at(5), "missing '='"},
    {"missing key", replacing(5, "= 7700"), at(5), "missing key"},
    {"empty value", replacing(5, "port ="), at(5), "empty value for key 'port' in [node a]"},
    {"value that is only a comment", replacing(5, "port =   # later"), at(5), "empty value"},
    {"empty value in [cluster]", replacing(2, "heartbeat-ms ="), at(2), "empty value"},
    {"duplicate key in a node", inserting(6, "port = 7705"), at(6),
     "duplicate key 'port' in [node a] (first at line 5)"},
    {"duplicate key in [cluster]", inserting(3, "heartbeat-ms = 600"), at(3), "duplicate key 'heartbeat-ms'"},
    {"duplicate node name", replacing(12, "[node a]"), at(12), "duplicate node name 'a' (first at line 3)"},
    {"invalid node name, space", replacing(3, "[node a b]"), at(3), "invalid node name 'a b'"},
    {"invalid node name, slash", replacing(3, "[node a/b]"), at(3), "invalid node name"},
    {"invalid node name, colon", replacing(3, "[node a:1]"), at(3), "invalid node name"},
    {"invalid node name, not ASCII", replacing(3, "[node caf\xC3\xA9]"), at(3), "invalid node name"},
    {"missing node name", replacing(3, "[node]"), at(3), "missing node name"},
    {"missing node name, blank", replacing(3, "[node   ]"), at(3), "missing node name"},
  });
}

TEST_CASE("cluster config: a node's memory budget", "[cluster_config]") {
  auto lines = base_lines;
  lines.insert(lines.begin() + 11, "memory = 1.5G");
  auto config = parse_cluster_config(joined(lines), "test.conf");
  REQUIRE(config);
  CHECK(config->nodes[1].memory == (uint64_t{3} << 29));
  CHECK(config->nodes[0].memory == 0); // not set: what its OS reports
  for (auto [text, bytes] : std::vector<std::pair<std::string, uint64_t>>{{"512M", uint64_t{512} << 20},
                                                                          {"16GiB", uint64_t{16} << 30},
                                                                          {"2T", uint64_t{2} << 40},
                                                                          {"64KB", uint64_t{64} << 10},
                                                                          {"1000000", 1000000}}) {
    lines[11] = "memory = " + text;
    auto c = parse_cluster_config(joined(lines), "test.conf");
    REQUIRE(c);
    CHECK(c->nodes[1].memory == bytes);
  }
  for (std::string bad : {"0", "16X", "G", "-1G", "1.5.2G", "16 G", "16Gb"}) {
    lines[11] = "memory = " + bad;
    auto c = parse_cluster_config(joined(lines), "test.conf");
    REQUIRE(!c);
    CHECK(c.error() == "test.conf:12: memory must be a size such as 512M, 16G or 1.5T, got '" + bad + "' in [node s]");
  }
}

TEST_CASE("cluster config: bad values name their line", "[cluster_config]") {
  check_errors({
    {"port not a number", replacing(5, "port = http"), at(5), "port must be a number from 1 to 65535, got 'http'"},
    {"port zero", replacing(5, "port = 0"), at(5), "port"},
    {"port too large", replacing(5, "port = 65536"), at(5), "port"},
    {"port far too large", replacing(5, "port = 99999999999999999999"), at(5), "port"},
    {"port negative", replacing(5, "port = -1"), at(5), "port"},
    {"port with a suffix", replacing(5, "port = 7700x"), at(5), "port"},
    {"port with a sign", replacing(5, "port = +7700"), at(5), "port"},
    {"port with a space", replacing(5, "port = 77 00"), at(5), "port"},
    {"host with a space", replacing(4, "host = 127.0.0.1 box"), at(4), "host '127.0.0.1 box' contains spaces"},
    {"host with a tab", replacing(4, "host = a\tb"), at(4), "contains spaces"},
    {"host empty", replacing(4, "host = "), at(4), "empty value for key 'host'"},
    {"unknown role", replacing(6, "roles = coordinator, vocab, exporter"), at(6), "unknown role 'vocab'"},
    {"roles are case sensitive", replacing(10, "roles = Shard"), at(10), "unknown role 'Shard'"},
    {"roles listing nothing", replacing(10, "roles = , ,"), at(10), "no role"},
    {"shards zero", replacing(11, "shards = 0"), at(11), "shards must be a positive integer"},
    {"shards negative", replacing(11, "shards = -2"), at(11), "shards"},
    {"shards not a number", replacing(11, "shards = two"), at(11), "shards"},
    {"shards fractional", replacing(11, "shards = 1.5"), at(11), "shards"},
    {"shards absurd", replacing(11, "shards = 100000"), at(11), "shards"},
    {"learners zero", replacing(16, "learners = 0"), at(16), "learners must be a positive integer"},
    {"learners not a number", replacing(16, "learners = many"), at(16), "learners"},
    {"learners absurd", replacing(16, "learners = 4294967296"), at(16), "learners"},
    {"threads zero", inserting(12, "threads = 0"), at(12), "threads must be a positive integer"},
    {"threads not a number", inserting(12, "threads = all"), at(12), "threads"},
    {"table-lanes zero", inserting(12, "table-lanes = 0"), at(12), "table-lanes must be a positive integer"},
    {"standby neither true nor false", inserting(12, "standby = yes"), at(12), "standby must be true or false"},
    {"heartbeat zero", replacing(2, "heartbeat-ms = 0"), at(2), "heartbeat-ms must be a positive integer"},
    {"heartbeat negative", replacing(2, "heartbeat-ms = -5"), at(2), "heartbeat-ms"},
    {"heartbeat with a unit", replacing(2, "heartbeat-ms = 1s"), at(2), "heartbeat-ms"},
    {"heartbeat absurd", replacing(2, "heartbeat-ms = 4000000000"), at(2), "heartbeat-ms"},
    {"timeout zero", replacing(2, "connect-timeout-ms = 0"), at(2), "connect-timeout-ms must be a positive integer"},
    {"timeout not a number", replacing(2, "connect-timeout-ms = soon"), at(2), "connect-timeout-ms"},
    {"shutdown-after-job neither true nor false", inserting(2, "shutdown-after-job = yes"), at(2),
     "shutdown-after-job must be true or false, got 'yes'"},
  });
}

TEST_CASE("cluster config: nodes outlive jobs unless shutdown-after-job says otherwise", "[cluster_config]") {
  auto plain = parse_cluster_config(joined(base_lines), "test.conf");
  REQUIRE(plain);
  CHECK_FALSE(plain->shutdown_after_job);
  auto stopping = parse_cluster_config(inserting(2, "shutdown-after-job = true"), "test.conf");
  REQUIRE(stopping);
  CHECK(stopping->shutdown_after_job);
}

TEST_CASE("cluster config: node errors name the node's header line", "[cluster_config]") {
  auto standby_lines = base_lines;
  standby_lines[14] = "roles = learner, exporter";
  standby_lines.push_back("standby = true");
  const std::string standby_exporter = joined(standby_lines);
  check_errors({
    {"missing host", removing(4), at(3), "[node a] is missing host"},
    {"missing port", removing(5), at(3), "[node a] is missing port"},
    {"missing roles", removing(6), at(3), "[node a] is missing roles"},
    {"same host:port", replacing(9, "port = 7700"), at(7),
     "[node s] uses 127.0.0.1:7700, the same host:port as [node a] (line 3)"},
    {"shards without role shard", inserting(7, "shards = 2"), at(3), "[node a] sets shards but lacks role shard"},
    {"role shard without shards", removing(11), at(7), "[node s] has role shard but no 'shards = N'"},
    {"learners without role learner", inserting(7, "learners = 2"), at(3),
     "[node a] sets learners but lacks role learner"},
    {"role learner without learners", removing(16), at(12), "[node l] has role learner but no 'learners = N'"},
    {"standby exporter", standby_exporter, at(12),
     "[node l] is standby, so its roles may only be shard and learner (it has role exporter)"},
    {"standby coordinator", inserting(7, "standby = true"), at(3), "standby"},
    {"more than one coordinator", replacing(10, "roles = shard coordinator"), at(7), "more than one coordinator"},
  });
}

TEST_CASE("cluster config: a cluster lacking a role is refused", "[cluster_config]") {
  auto no_learner = base_lines;
  no_learner[14] = "roles = shard";
  no_learner[15] = "shards = 1";
  check_errors({
    {"no coordinator", replacing(6, "roles = vocabulary, exporter"), "test.conf: ", "no node has role coordinator"},
    {"no vocabulary", replacing(6, "roles = coordinator, exporter"), "test.conf: ", "no node has role vocabulary"},
    {"no exporter", replacing(6, "roles = coordinator, vocabulary"), "test.conf: ", "no node has role exporter"},
    {"only a standby shard node", inserting(12, "standby = true"), "test.conf: ", "no node has role shard"},
    {"no learner", joined(no_learner), "test.conf: ", "no node has role learner"},
    {"empty file", "", "test.conf: ", "no nodes"},
    {"only comments and blank lines", "# nothing here\n\n   \n# still nothing\r\n", "test.conf: ", "no nodes"},
    {"only [cluster]", "[cluster]\nheartbeat-ms = 100\n", "test.conf: ", "no nodes"},
  });
}

TEST_CASE("cluster config: load_cluster_config reads files", "[cluster_config]") {
  temp_dir dir;
  SECTION("a readable file parses, its path becoming the source") {
    auto path = dir.write("cluster.conf", joined(base_lines));
    auto config = load_cluster_config(path);
    REQUIRE(config);
    CHECK(config->source == path);
    CHECK(config->nodes.size() == 3);
  }
  SECTION("errors carry the file's path") {
    auto path = dir.write("cluster.conf", replacing(4, "hots = 127.0.0.1"));
    auto config = load_cluster_config(path);
    REQUIRE_FALSE(config);
    CHECK_THAT(config.error(), StartsWith(path + ":4: unknown key 'hots'"));
  }
  SECTION("a missing file is a failure") {
    auto config = load_cluster_config(dir.file("missing.conf"));
    REQUIRE_FALSE(config);
    CHECK_THAT(config.error(), Contains("cannot read cluster config") && Contains("missing.conf"));
  }
  SECTION("a directory is a failure") {
    auto config = load_cluster_config(dir.path());
    REQUIRE_FALSE(config);
    CHECK_THAT(config.error(), Contains("cannot read cluster config"));
  }
}

TEST_CASE("cluster config: the shipped examples parse", "[cluster_config]") {
  SECTION("examples/cluster-local.conf: five loopback nodes and a standby shard node") {
    auto config = load_cluster_config(example_path("cluster-local.conf"));
    INFO((config ? "" : config.error()));
    REQUIRE(config);
    REQUIRE(config->nodes.size() == 6);
    const auto& coord = config->coordinator();
    CHECK(coord.host == "127.0.0.1");
    CHECK(coord.port == 7700);
    CHECK(coord.roles == std::vector<node_role>{node_role::coordinator, node_role::vocabulary, node_role::exporter});
    CHECK(config->with_role(node_role::shard).size() == 3); // the standby too
    CHECK(config->with_role(node_role::learner).size() == 2);
    CHECK(config->total_shards() == 2);
    CHECK(config->total_learners() == 2);
    std::vector<uint16_t> ports;
    for (const auto& n : config->nodes) {
      CHECK(n.host == "127.0.0.1");
      CHECK(n.standby == (n.name == "spare"));
      ports.push_back(n.port);
    }
    CHECK(ports == std::vector<uint16_t>{7700, 7701, 7702, 7703, 7704, 7705});
  }
  SECTION("examples/cluster-one-box.conf: one node does everything") {
    auto config = load_cluster_config(example_path("cluster-one-box.conf"));
    INFO((config ? "" : config.error()));
    REQUIRE(config);
    REQUIRE(config->nodes.size() == 1);
    const auto& node = config->nodes[0];
    CHECK(node.port == 7710);
    for (auto r :
         {node_role::coordinator, node_role::vocabulary, node_role::shard, node_role::learner, node_role::exporter})
      CHECK(node.has(r));
    CHECK(config->total_shards() == 2);
    CHECK(config->total_learners() == 2);
  }
}

TEST_CASE("cluster config: role names", "[cluster_config]") {
  CHECK(to_string(node_role::coordinator) == "coordinator");
  CHECK(to_string(node_role::vocabulary) == "vocabulary");
  CHECK(to_string(node_role::shard) == "shard");
  CHECK(to_string(node_role::learner) == "learner");
  CHECK(to_string(node_role::exporter) == "exporter");
}

TEST_CASE("cluster config: a standby learner node is a spare, not one of the learners", "[cluster_config]") {
  auto lines = base_lines;
  for (const char* line :
       {"[node spare-learner]", "host = 127.0.0.1", "port = 7703", "roles = learner", "learners = 2", "standby = true"})
    lines.push_back(line);
  auto config = parse_cluster_config(joined(lines), "test.conf");
  INFO((config ? "" : config.error()));
  REQUIRE(config);
  const node_spec* spare = config->find("spare-learner");
  REQUIRE(spare);
  CHECK(spare->standby);
  CHECK(spare->learners == 2);
  CHECK(config->total_learners() == 1); // node l's only
  CHECK(config->with_role(node_role::learner).size() == 2);
  // A cluster whose only learner node is a standby has no learner.
  auto only_standby = base_lines;
  only_standby.push_back("standby = true");
  CHECK_THAT(parse_cluster_config(joined(only_standby), "test.conf").error(), Contains("no node has role learner"));
}
