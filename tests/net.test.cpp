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
#include "src/net/client_gate.hpp"
#include "src/net/cluster_secret.hpp"
#include "src/net/frame_guard.hpp"
#include "src/net/session_cipher.hpp"
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

cluster_keys node_keys(uint8_t fill) {
  cluster_keys k;
  k.node = secret_of(fill);
  k.client = derive_client_key(*k.node);
  return k;
}

cluster_keys client_keys(uint8_t fill) {
  cluster_keys k;
  k.client = derive_client_key(secret_of(fill));
  return k;
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

TEST_CASE("auth handshake: the same secret opens, whatever the chunking; both ends share session keys", "[net]") {
  for (size_t chunk : {1, 7, 40, 72, 1000}) {
    for (auto kind : {peer_kind::node, peer_kind::client}) {
      auth_handshake a{auth_handshake::role::acceptor, node_keys(3), kind, "127.0.0.1:5000", "127.0.0.1:7700"};
      auth_handshake c{auth_handshake::role::connector, kind == peer_kind::node ? node_keys(3) : client_keys(3), kind,
                       "127.0.0.1:5000", "127.0.0.1:7700"};
      exchange(a, c, chunk);
      REQUIRE(a.current() == auth_handshake::state::done);
      REQUIRE(c.current() == auth_handshake::state::done);
      CHECK(a.connector_kind() == kind);
      CHECK(a.send_key() == c.receive_key());
      CHECK(a.receive_key() == c.send_key());
      CHECK(a.send_key() != a.receive_key());
    }
  }
}

TEST_CASE("auth handshake: another secret, a relay, a reflection, a client posing as a node all fail", "[net]") {
  SECTION("another secret: the connector refuses the acceptor's proof and proves nothing") {
    auth_handshake a{auth_handshake::role::acceptor, node_keys(3), peer_kind::node, "127.0.0.1:5000", "127.0.0.1:7700"};
    auth_handshake c{auth_handshake::role::connector, node_keys(4), peer_kind::node, "127.0.0.1:5000",
                     "127.0.0.1:7700"};
    exchange(a, c, 72);
    CHECK(c.current() == auth_handshake::state::failed);
    CHECK_THAT(c.failure(), Contains("does not know the cluster secret"));
    CHECK(a.current() == auth_handshake::state::failed); // it got a proof of zeros
    CHECK_THAT(a.failure(), Contains("does not know the cluster secret"));
  }
  SECTION("relayed: the endpoints each end sees differ, so the first proof already fails") {
    // The victim connected to 127.0.0.1:6000 (the relay) from port 5000;
    // the relay connected on to the node at 127.0.0.1:7700 from port 5001.
    auth_handshake node{auth_handshake::role::acceptor, node_keys(3), peer_kind::node, "127.0.0.1:5001",
                        "127.0.0.1:7700"};
    auth_handshake victim{auth_handshake::role::connector, node_keys(3), peer_kind::node, "127.0.0.1:5000",
                          "127.0.0.1:6000"};
    exchange(node, victim, 1000); // the relay passes every byte unchanged
    CHECK(victim.current() == auth_handshake::state::failed);
    CHECK(node.current() == auth_handshake::state::failed);
  }
  SECTION("an acceptor's own hello and proof reflected back at it fail") {
    auth_handshake a{auth_handshake::role::acceptor, node_keys(3), peer_kind::node, "127.0.0.1:5000", "127.0.0.1:7700"};
    auth_handshake c{auth_handshake::role::connector, node_keys(3), peer_kind::node, "127.0.0.1:5000",
                     "127.0.0.1:7700"};
    std::vector<uint8_t> reply;
    a.feed(c.hello().data(), c.hello().size(), reply);
    REQUIRE(reply.size() == 64); // after its magic: nonce and proof
    // Its own proof back, as if it were the connector's.
    std::vector<uint8_t> ignored;
    a.feed(reply.data() + 32, auth_handshake::proof_size, ignored);
    CHECK(a.current() == auth_handshake::state::failed);
  }
  SECTION("a connector's proof reflected back at it as the acceptor's fails") {
    auth_handshake c{auth_handshake::role::connector, node_keys(3), peer_kind::node, "127.0.0.1:5000",
                     "127.0.0.1:7700"};
    // The magic, its own nonce, and zeros for a proof.
    std::vector<uint8_t> fake(auth_handshake::acceptor_hello_size, 0);
    const auto& hello = c.hello();
    for (size_t i = 0; i < 8; ++i)
      fake[i] = hello[i];
    for (size_t i = 0; i < 32; ++i)
      fake[auth_handshake::banner_size + i] = hello[9 + i];
    std::vector<uint8_t> out;
    c.feed(fake.data(), fake.size(), out);
    CHECK(c.current() == auth_handshake::state::failed);
  }
  SECTION("a client key cannot prove a node") {
    auth_handshake a{auth_handshake::role::acceptor, node_keys(3), peer_kind::node, "127.0.0.1:5000", "127.0.0.1:7700"};
    auto keys = client_keys(3);
    keys.node = keys.client; // its best guess at the node key
    auth_handshake c{auth_handshake::role::connector, keys, peer_kind::node, "127.0.0.1:5000", "127.0.0.1:7700"};
    exchange(a, c, 72);
    CHECK(c.current() == auth_handshake::state::failed);
    CHECK(a.current() == auth_handshake::state::failed);
  }
  SECTION("CAF's plain protocol is told apart at the first byte that differs") {
    auth_handshake a{auth_handshake::role::acceptor, node_keys(3), peer_kind::node, "127.0.0.1:5000", "127.0.0.1:7700"};
    auto header = basp_header(0, 100);
    std::vector<uint8_t> out;
    CHECK(a.feed(header.data(), 1, out) == 1);
    CHECK(a.current() == auth_handshake::state::failed);
    CHECK_THAT(a.failure(), Contains("does not speak gridvec's authenticated protocol"));
    CHECK(out.empty());
  }
  SECTION("an acceptor sends only its banner until spoken to; bytes after the handshake are left for what follows") {
    auth_handshake a{auth_handshake::role::acceptor, node_keys(3), peer_kind::node, "127.0.0.1:5000", "127.0.0.1:7700"};
    auth_handshake c{auth_handshake::role::connector, node_keys(3), peer_kind::node, "127.0.0.1:5000",
                     "127.0.0.1:7700"};
    CHECK(a.hello().size() == auth_handshake::banner_size);
    std::vector<uint8_t> out_a = a.hello(), out_c;
    a.feed(c.hello().data(), c.hello().size(), out_a);
    c.feed(out_a.data(), out_a.size(), out_c); // c's proof
    REQUIRE(out_c.size() == auth_handshake::proof_size);
    out_c.push_back(0x42); // the first byte of what follows
    std::vector<uint8_t> more;
    CHECK(a.feed(out_c.data(), out_c.size(), more) == out_c.size() - 1);
    CHECK(a.current() == auth_handshake::state::done);
  }
}

TEST_CASE("session cipher: records open in any chunking; a changed, replayed or foreign record fails", "[net]") {
  auto k1 = secret_of(1), k2 = secret_of(2);
  session_cipher sender{k1, k2}, receiver{k2, k1};
  std::vector<uint8_t> data(200000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 31);
  std::vector<uint8_t> wire;
  sender.seal(data.data(), 100, wire);
  sender.seal(data.data() + 100, data.size() - 100, wire);
  CHECK(wire.size() == data.size() + 5 * session_cipher::overhead); // 100, then 65536 x3 and the rest
  std::vector<uint8_t> plain;
  for (size_t at = 0; at < wire.size(); at += 999)
    REQUIRE(receiver.open(wire.data() + at, std::min<size_t>(999, wire.size() - at), plain));
  CHECK(plain == data);
  SECTION("a flipped bit") {
    session_cipher a{k1, k2}, b{k2, k1};
    std::vector<uint8_t> w, p;
    a.seal(data.data(), 64, w);
    w[10] ^= 1;
    CHECK_FALSE(b.open(w.data(), w.size(), p));
    CHECK_THAT(b.failure(), Contains("authentication tag"));
    CHECK(p.empty());
  }
  SECTION("a replayed record") {
    session_cipher a{k1, k2}, b{k2, k1};
    std::vector<uint8_t> w, p;
    a.seal(data.data(), 64, w);
    REQUIRE(b.open(w.data(), w.size(), p));
    CHECK_FALSE(b.open(w.data(), w.size(), p));
  }
  SECTION("a record of the other direction, and a length over the limit") {
    session_cipher a{k1, k2}, b{k1, k2};
    std::vector<uint8_t> w, p;
    a.seal(data.data(), 64, w);
    CHECK_FALSE(b.open(w.data(), w.size(), p));
    session_cipher c{k2, k1};
    std::vector<uint8_t> huge = {0x7f, 0xff, 0xff, 0xff};
    CHECK_FALSE(c.open(huge.data(), huge.size(), p));
  }
}

TEST_CASE("client gate: the entry's two requests and exposed actors pass, the rest closes", "[net]") {
  const std::vector<std::vector<uint8_t>> entry = {{0, 0, 0, 3, 'a', 'b', 'c'}};
  auto gate = [&] {
    return client_gate{[&](uint64_t id, bool named) {
      client_access a;
      if (named) {
        if (id == 9) {
          a.what = client_access::level::listed_payloads;
          a.payloads = &entry;
        }
      } else if (id == 1) {
        a.what = client_access::level::listed_payloads;
        a.payloads = &entry;
      } else if (id == 2) {
        a.what = client_access::level::any_request;
      }
      return a;
    }};
  };
  auto frame = [](uint8_t op, uint64_t dest, std::vector<uint8_t> payload, uint8_t flags = 0) {
    auto h = basp_header(op, static_cast<uint32_t>(payload.size()));
    h[3] = flags;
    for (int i = 0; i < 8; ++i)
      h[24 + i] = static_cast<uint8_t>(dest >> (8 * (7 - i)));
    for (uint8_t b : payload)
      h.push_back(b);
    return h;
  };
  std::vector<uint8_t> ok_stream = frame(1, 0, {9, 9, 9});
  for (auto part : {frame(2, 1, entry[0]), frame(2, 2, {0, 5, 5, 5, 5}), frame(6, 0, {}), frame(4, 7, {1, 2}),
                    frame(2, 9, entry[0], 1)})
    ok_stream.insert(ok_stream.end(), part.begin(), part.end());
  for (size_t chunk : {1, 5, 33, 1000}) {
    auto g = gate();
    for (size_t at = 0; at < ok_stream.size(); at += chunk)
      REQUIRE(g.inspect(ok_stream.data() + at, std::min(chunk, ok_stream.size() - at)));
  }
  auto refused = [&](std::vector<uint8_t> bytes, const char* why) {
    INFO(why << ", operation " << int(bytes[0]) << " to " << int(bytes[31]) << ", " << bytes.size() << " bytes");
    auto g = gate();
    CHECK_FALSE(g.inspect(bytes.data(), bytes.size()));
    CHECK_THAT(g.failure(), Contains(why));
  };
  refused(frame(2, 3, {0, 1}), "an internal actor");
  refused(frame(2, 1, {0, 0, 0, 3, 'a', 'b', 'd'}), "does not answer to clients");
  refused(frame(2, 1, {0, 0, 0, 3, 'a', 'b', 'c', 'd'}), "does not answer to clients");
  refused(frame(2, 2, {1, 5, 5}), "a forwarding stack");
  refused(frame(3, 2, {0}), "routed on");
  refused(frame(2, 2, {0}, 1), "a named actor");
  refused(frame(2, 9, {0, 0, 0, 3, 'x', 'y', 'z'}, 1), "a named actor");
  refused(frame(0, 0, {}), "a server handshake");

  // A response only to a request the node sent, once.
  auto with_mid = [&](std::vector<uint8_t> f, uint64_t mid, uint64_t source) {
    for (int i = 0; i < 8; ++i) {
      f[8 + i] = static_cast<uint8_t>(mid >> (8 * (7 - i)));
      f[16 + i] = static_cast<uint8_t>(source >> (8 * (7 - i)));
    }
    return f;
  };
  const uint64_t response = 0x8000000000000000ull;
  auto g = gate();
  auto request = with_mid(frame(2, 55, {0, 1, 2}), 0x1000000000000007ull, 42); // actor 42 asks the client's 55
  g.note_outgoing(request.data(), request.size());
  auto answer = with_mid(frame(2, 42, {0, 9}), response | 0x1000000000000007ull, 55);
  CHECK(g.inspect(answer.data(), answer.size()));
  CHECK_FALSE(g.inspect(answer.data(), answer.size())); // twice
  CHECK_THAT(g.failure(), Contains("a response to a request the node did not send it"));
  auto forged = with_mid(frame(2, 43, {0, 9}), response | 0x1000000000000008ull, 55);
  auto g2 = gate();
  CHECK_FALSE(g2.inspect(forged.data(), forged.size()));
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

TEST_CASE("client key: derived from the secret, 0600, enough for a client and refused for a node", "[net]") {
  temp_dir dir;
  const auto secret = dir.file("cluster.key"), client = dir.file("client.key");
  REQUIRE(write_new_secret(secret));
  REQUIRE(write_client_key(secret, client));
  struct stat st {};
  REQUIRE(::stat(client.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto key = load_key(client);
  REQUIRE(key);
  CHECK(key->client_only);
  CHECK(key->bytes == derive_client_key(*load_secret(secret)));
  CHECK_THAT(load_secret(client).error(), Contains("is a client key"));
  CHECK(client_transport_settings(client));
  CHECK_FALSE(client_transport_settings(client)->keys->node);
  CHECK_FALSE(write_client_key(secret, client)); // never replaced
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
