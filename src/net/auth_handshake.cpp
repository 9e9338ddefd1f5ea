#include "src/net/auth_handshake.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gridvec::net {

namespace {

constexpr char magic[8] = {'G', 'V', 'A', 'U', 'T', 'H', '0', '2'};
constexpr char transcript_label[] = "gridvec connection transcript v2";

std::array<uint8_t, 32> hmac(const secret_bytes& key, const std::vector<uint8_t>& text) {
  std::array<uint8_t, 32> out{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), text.data(), text.size(), out.data(), &length);
  return out;
}

void append(std::vector<uint8_t>& to, const std::string& s) {
  // Length-prefixed: no two different endpoint pairs give the same bytes.
  to.push_back(static_cast<uint8_t>(s.size()));
  to.insert(to.end(), s.begin(), s.end());
}

} // namespace

secret_bytes derive_client_key(const secret_bytes& secret) {
  static constexpr char label[] = "gridvec client key v1";
  return hmac(secret, std::vector<uint8_t>(label, label + sizeof label - 1));
}

std::string socket_endpoint(int fd, bool local) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  int r = local ? ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len)
                : ::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  if (r != 0)
    return "?";
  char text[INET6_ADDRSTRLEN] = {};
  uint16_t port = 0;
  if (ss.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr))
      inet_ntop(AF_INET, reinterpret_cast<const uint8_t*>(&a->sin6_addr) + 12, text, sizeof text);
    else
      inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  } else {
    return "?";
  }
  return std::string{text} + ":" + std::to_string(port);
}

auth_handshake::auth_handshake(role me, const cluster_keys& keys, peer_kind kind, std::string connector_endpoint,
                               std::string acceptor_endpoint)
  : me_(me), keys_(keys), kind_(kind), connector_endpoint_(std::move(connector_endpoint)),
    acceptor_endpoint_(std::move(acceptor_endpoint)) {
  if (RAND_bytes(my_nonce_.data(), static_cast<int>(my_nonce_.size())) != 1)
    throw std::runtime_error("cannot draw a random nonce (OpenSSL RAND_bytes failed)");
  hello_.assign(magic, magic + sizeof magic);
  if (me_ == role::acceptor)
    hello_.resize(banner_size, 0);
  if (me_ == role::connector) {
    hello_.push_back(static_cast<uint8_t>(kind_));
    hello_.insert(hello_.end(), my_nonce_.begin(), my_nonce_.end());
    if (kind_ == peer_kind::node && !keys_.node)
      throw std::logic_error("a node's handshake needs the cluster secret");
    key_ = kind_ == peer_kind::node ? *keys_.node : keys_.client;
  }
  received_.reserve(acceptor_hello_size);
}

std::array<uint8_t, 32> auth_handshake::mac(const char* label) const {
  const auto& acceptor_nonce = me_ == role::acceptor ? my_nonce_ : peer_nonce_;
  const auto& connector_nonce = me_ == role::connector ? my_nonce_ : peer_nonce_;
  std::vector<uint8_t> text(label, label + std::strlen(label) + 1);
  text.insert(text.end(), transcript_label, transcript_label + sizeof transcript_label);
  text.push_back(static_cast<uint8_t>(kind_));
  text.insert(text.end(), connector_nonce.begin(), connector_nonce.end());
  text.insert(text.end(), acceptor_nonce.begin(), acceptor_nonce.end());
  append(text, connector_endpoint_);
  append(text, acceptor_endpoint_);
  return hmac(key_, text);
}

void auth_handshake::fail(std::string why) {
  state_ = state::failed;
  failure_ = std::move(why);
}

size_t auth_handshake::wanted() const {
  if (state_ != state::waiting)
    return 0;
  if (me_ == role::connector)
    return acceptor_hello_size - received_.size();
  return connector_hello_size + proof_size - received_.size();
}

size_t auth_handshake::feed(const uint8_t* data, size_t size, std::vector<uint8_t>& out) {
  if (state_ != state::waiting)
    return 0;
  const size_t taken = std::min(size, wanted());
  const size_t before = received_.size();
  received_.insert(received_.end(), data, data + taken);
  // The magic is checked as soon as its bytes are in: a peer that speaks
  // something else (CAF's protocol without gridvec's handshake, an older
  // gridvec, an HTTP probe) is told apart from one with the wrong key.
  const size_t magic_seen = std::min(received_.size(), sizeof magic);
  if (!std::equal(received_.begin(), received_.begin() + static_cast<long>(magic_seen), magic)) {
    fail("the peer does not speak gridvec's authenticated protocol (a node or client without the cluster secret, "
         "e.g. one started with insecure = true, another gridvec version, or not gridvec at all)");
    return taken;
  }
  if (me_ == role::acceptor) {
    if (before < connector_hello_size && received_.size() >= connector_hello_size && !take_connector_hello(out))
      return taken;
    if (received_.size() == connector_hello_size + proof_size)
      take_connector_proof();
  } else if (received_.size() == acceptor_hello_size) {
    take_acceptor_hello(out);
  }
  return taken;
}

bool auth_handshake::take_connector_hello(std::vector<uint8_t>& out) {
  uint8_t kind = received_[sizeof magic];
  if (kind == static_cast<uint8_t>(peer_kind::node)) {
    if (!keys_.node) {
      fail("a node connected, but this process holds only the client key");
      return false;
    }
    kind_ = peer_kind::node;
    key_ = *keys_.node;
  } else if (kind == static_cast<uint8_t>(peer_kind::client)) {
    kind_ = peer_kind::client;
    key_ = keys_.client;
  } else {
    fail("the peer claims to be neither a node nor a client");
    return false;
  }
  std::copy(received_.begin() + sizeof magic + 1, received_.begin() + connector_hello_size, peer_nonce_.begin());
  out.insert(out.end(), my_nonce_.begin(), my_nonce_.end());
  auto proof = mac("acceptor proof");
  out.insert(out.end(), proof.begin(), proof.end());
  return true;
}

bool auth_handshake::take_acceptor_hello(std::vector<uint8_t>& out) {
  if (!std::all_of(received_.begin() + sizeof magic, received_.begin() + banner_size,
                   [](uint8_t b) { return b == 0; })) {
    fail("the peer does not speak gridvec's authenticated protocol (its banner is not this version's)");
    return false;
  }
  std::copy(received_.begin() + banner_size, received_.begin() + banner_size + 32, peer_nonce_.begin());
  auto expected = mac("acceptor proof");
  if (CRYPTO_memcmp(expected.data(), received_.data() + banner_size + 32, proof_size) != 0) {
    // A proof of all zeros tells the acceptor that its own was refused (it
    // logs a wrong proof rather than a connection closed mid-handshake);
    // it is no proof of anything.
    out.insert(out.end(), proof_size, 0);
    fail(kind_ == peer_kind::client
           ? "the node does not know the cluster secret (or client key) this process holds (its proof is wrong: "
             "the key files differ, or the connection does not end at the node it was made to)"
           : "the peer does not know the cluster secret (its proof is wrong: the secret files differ, or the "
             "connection does not end at the node it was made to)");
    return false;
  }
  auto proof = mac("connector proof");
  out.insert(out.end(), proof.begin(), proof.end());
  finish();
  return true;
}

bool auth_handshake::take_connector_proof() {
  auto expected = mac("connector proof");
  if (CRYPTO_memcmp(expected.data(), received_.data() + connector_hello_size, proof_size) != 0) {
    fail(kind_ == peer_kind::client
           ? "the peer does not know the cluster secret or client key (its proof as a client is wrong, or the "
             "connection was relayed)"
           : "the peer does not know the cluster secret (its proof as a node is wrong: the secret files differ, it "
             "holds only the client key, or the connection was relayed)");
    return false;
  }
  finish();
  return true;
}

void auth_handshake::finish() {
  auto c2a = mac("key connector to acceptor");
  auto a2c = mac("key acceptor to connector");
  send_key_ = me_ == role::connector ? c2a : a2c;
  receive_key_ = me_ == role::connector ? a2c : c2a;
  state_ = state::done;
}

} // namespace gridvec::net
