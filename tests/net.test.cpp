// The cluster's guards as plain classes: the secret handshake, the frame
// guard, the secret file and the allowed directories. (The same guards on
// real node processes: tests/e2e_security.sh.)
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gridvec/core/cluster_config.hpp>
#include "src/net/auth_handshake.hpp"
#include "src/net/cluster_secret.hpp"
#include "src/net/frame_guard.hpp"
#include "src/net/transport_settings.hpp"
#include <gridvec/core/options.hpp>
#include "tests/test_util.hpp"

using namespace gridvec;
using namespace gridvec::net;
using Catch::Matchers::Contains;
using gridvec::test::temp_dir;

namespace {

secret_bytes secret_of(uint8_t fill) {
  secret_bytes s{};
  s.fill(fill);
  return s;
}

// Runs both ends against each other, `chunk` bytes at a time.
void exchange(auth_handshake& a, auth_handshake& c, size_t chunk) {
  std::vector<uint8_t> to_c = a.hello(), to_a = c.hello();
  for (int round = 0; round < 200 && (!to_c.empty() || !to_a.empty()); ++round) {
    size_t n = std::min(chunk, to_a.size());
    std::vector<uint8_t> out;
    a.feed(to_a.data(), n, out);
    to_a.erase(to_a.begin(), to_a.begin() + static_cast<long>(n));
    to_c.insert(to_c.end(), out.begin(), out.end());
    n = std::min(chunk, to_c.size());
    out.clear();
    c.feed(to_c.data(), n, out);
    to_c.erase(to_c.begin(), to_c.begin() + static_cast<long>(n));
    to_a.insert(to_a.end(), out.begin(), out.end());
  }
}

std::vector<uint8_t> basp_header(uint8_t operation, uint32_t payload) {
  std::vector<uint8_t> h(frame_guard::header_size, 0);
  h[0] = operation;
  h[4] = static_cast<uint8_t>(payload >> 24);
  h[5] = static_cast<uint8_t>(payload >> 16);
  h[6] = static_cast<uint8_t>(payload >> 8);
  h[7] = static_cast<uint8_t>(payload);
  return h;
}

} // namespace

TEST_CASE("auth handshake: the same secret opens, whatever the chunking", "[net]") {
  for (size_t chunk : {1, 7, 40, 72, 1000}) {
    auth_handshake a{auth_handshake::role::acceptor, secret_of(3)};
    auth_handshake c{auth_handshake::role::connector, secret_of(3)};
    exchange(a, c, chunk);
    CHECK(a.current() == auth_handshake::state::done);
    CHECK(c.current() == auth_handshake::state::done);
  }
}

TEST_CASE("auth handshake: another secret, a reflected proof, another protocol all fail", "[net]") {
  SECTION("another secret fails on both ends") {
    auth_handshake a{auth_handshake::role::acceptor, secret_of(3)};
    auth_handshake c{auth_handshake::role::connector, secret_of(4)};
    exchange(a, c, 72);
    CHECK(a.current() == auth_handshake::state::failed);
    CHECK(c.current() == auth_handshake::state::failed);
    CHECK_THAT(a.failure(), Contains("does not know the cluster secret"));
  }
  SECTION("a node's own hello and proof sent back at it fail") {
    auth_handshake a{auth_handshake::role::acceptor, secret_of(3)};
    std::vector<uint8_t> out;
    a.feed(a.hello().data(), a.hello().size(), out); // its own hello back
    REQUIRE(out.size() == auth_handshake::proof_size);
    std::vector<uint8_t> ignored;
    a.feed(out.data(), out.size(), ignored); // and its own proof
    CHECK(a.current() == auth_handshake::state::failed);
  }
  SECTION("CAF's plain protocol is told apart at the first byte that differs") {
    auth_handshake a{auth_handshake::role::acceptor, secret_of(3)};
    auto header = basp_header(0, 100);
    std::vector<uint8_t> out;
    CHECK(a.feed(header.data(), 1, out) == 1);
    CHECK(a.current() == auth_handshake::state::failed);
    CHECK_THAT(a.failure(), Contains("does not speak gridvec's authenticated protocol"));
    CHECK(out.empty());
  }
  SECTION("bytes after the handshake are left for the protocol that follows") {
    auth_handshake a{auth_handshake::role::acceptor, secret_of(3)};
    auth_handshake c{auth_handshake::role::connector, secret_of(3)};
    std::vector<uint8_t> to_a = c.hello(), out_a, out_c;
    a.feed(a.hello().data(), 0, out_a);
    c.feed(a.hello().data(), a.hello().size(), out_c); // c's proof
    to_a.insert(to_a.end(), out_c.begin(), out_c.end());
    to_a.push_back(0x42); // the first byte of what follows
    CHECK(a.feed(to_a.data(), to_a.size(), out_a) == to_a.size() - 1);
    CHECK(a.current() == auth_handshake::state::done);
  }
}

TEST_CASE("frame guard: frames up to the limit pass, larger or foreign ones do not", "[net]") {
  frame_guard guard{1000};
  std::vector<uint8_t> stream;
  for (uint32_t payload : {0u, 10u, 1000u}) {
    auto h = basp_header(2, payload);
    stream.insert(stream.end(), h.begin(), h.end());
    stream.insert(stream.end(), payload, 0xFF); // payload bytes that look like anything
  }
  for (size_t i = 0; i < stream.size(); i += 5) // in odd pieces
    REQUIRE(guard.inspect(stream.data() + i, std::min<size_t>(5, stream.size() - i)));
  auto big = basp_header(1, 0xFFFFFFF0u);
  CHECK(guard.inspect(big.data(), 31)); // judged once the whole header is in
  CHECK_FALSE(guard.inspect(big.data() + 31, 1));
  CHECK_THAT(guard.failure(), Contains("4294967280 bytes, over the limit of 1000"));
  frame_guard other{1000};
  auto foreign = basp_header(9, 0);
  CHECK_FALSE(other.inspect(foreign.data(), foreign.size()));
  CHECK_THAT(other.failure(), Contains("unknown type 9"));
}

TEST_CASE("cluster secret: written 0600, never replaced, refused when others can read it", "[net]") {
  temp_dir dir;
  const auto path = dir.file("cluster.key");
  REQUIRE(write_new_secret(path));
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto first = load_secret(path);
  REQUIRE(first);
  auto again = write_new_secret(path);
  REQUIRE_FALSE(again);
  CHECK_THAT(again.error(), Contains("already exists"));
  CHECK(*load_secret(path) == *first);
  ::chmod(path.c_str(), 0640);
  auto shared = load_secret(path);
  REQUIRE_FALSE(shared);
  CHECK_THAT(shared.error(), Contains("(mode 0640); run: chmod 600"));
  auto bad = dir.write("bad.key", "not hex\n");
  ::chmod(bad.c_str(), 0600);
  REQUIRE_FALSE(load_secret(bad));
  CHECK_THAT(load_secret(bad).error(), Contains("not 64 hexadecimal digits"));
  CHECK_FALSE(load_secret(dir.file("missing.key")));
}

TEST_CASE("cluster config: security keys, relative to the config's directory", "[net]") {
  temp_dir dir;
  const std::string nodes = "[node a]\nhost = 127.0.0.1\nport = 7700\nroles = coordinator, vocabulary, exporter, "
                            "shard, learner\nshards = 1\nlearners = 1\n";
  auto path = dir.write("c.conf", "[cluster]\nsecret = k\nallow-read = in, /data/a b\nallow-write = out\n"
                                  "max-message-mb = 8\n" +
                                    nodes);
  auto config = load_cluster_config(path);
  REQUIRE(config);
  CHECK(config->secret_file == dir.file("k"));
  CHECK(config->allow_read == std::vector<std::string>{dir.file("in"), "/data/a b"});
  CHECK(config->max_message_mb == 8);
  // No secret: well-formed, but no process may use it to talk.
  auto open = parse_cluster_config("[cluster]\n" + nodes, "open.conf");
  REQUIRE(open);
  auto refused = load_transport_settings(*open);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error(), Contains("no secret: add 'secret = FILE'"));
  auto half_tls = parse_cluster_config("[cluster]\ntls-certificate = a.pem\n" + nodes, "t.conf");
  REQUIRE_FALSE(half_tls);
  CHECK_THAT(half_tls.error(), Contains("all three of tls-certificate, tls-key and tls-ca"));
  auto both = parse_cluster_config("[cluster]\ninsecure = true\nsecret = k\n" + nodes, "b.conf");
  REQUIRE_FALSE(both);
}
