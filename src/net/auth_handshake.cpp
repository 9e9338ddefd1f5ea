#include "src/net/auth_handshake.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gridvec::net {

namespace {

constexpr char magic[8] = {'G', 'V', 'A', 'U', 'T', 'H', '0', '1'};
constexpr char proof_label[] = "gridvec cluster proof v1";

} // namespace

auth_handshake::auth_handshake(role me, const secret_bytes& secret) : me_(me), secret_(secret) {
  if (RAND_bytes(my_nonce_.data(), static_cast<int>(my_nonce_.size())) != 1)
    throw std::runtime_error("cannot draw a random nonce (OpenSSL RAND_bytes failed)");
  hello_.assign(magic, magic + sizeof magic);
  hello_.insert(hello_.end(), my_nonce_.begin(), my_nonce_.end());
  received_.reserve(hello_size + proof_size);
}

std::array<uint8_t, 32> auth_handshake::proof_of(role who) const {
  const auto& acceptor_nonce = me_ == role::acceptor ? my_nonce_ : peer_nonce_;
  const auto& connector_nonce = me_ == role::connector ? my_nonce_ : peer_nonce_;
  std::vector<uint8_t> text(proof_label, proof_label + sizeof proof_label);
  text.push_back(who == role::acceptor ? 'A' : 'C');
  text.insert(text.end(), acceptor_nonce.begin(), acceptor_nonce.end());
  text.insert(text.end(), connector_nonce.begin(), connector_nonce.end());
  std::array<uint8_t, 32> mac{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()), text.data(), text.size(), mac.data(), &length);
  return mac;
}

size_t auth_handshake::feed(const uint8_t* data, size_t size, std::vector<uint8_t>& out) {
  if (state_ != state::waiting)
    return 0;
  const size_t wanted = hello_size + proof_size - received_.size();
  const size_t taken = std::min(size, wanted);
  const size_t before = received_.size();
  received_.insert(received_.end(), data, data + taken);
  // The magic is checked as soon as its bytes are in: a peer that speaks
  // something else (CAF's protocol without gridvec's handshake, an HTTP
  // probe) is told apart from one with the wrong secret.
  const size_t magic_seen = std::min(received_.size(), sizeof magic);
  if (!std::equal(received_.begin(), received_.begin() + static_cast<long>(magic_seen), magic)) {
    state_ = state::failed;
    failure_ = "the peer does not speak gridvec's authenticated protocol (a node or client without the "
               "cluster secret, e.g. one started with insecure = true, or not gridvec at all)";
    return taken;
  }
  if (before < hello_size && received_.size() >= hello_size) {
    std::copy(received_.begin() + sizeof magic, received_.begin() + hello_size, peer_nonce_.begin());
    auto mine = proof_of(me_);
    out.insert(out.end(), mine.begin(), mine.end());
  }
  if (received_.size() == hello_size + proof_size) {
    auto expected = proof_of(me_ == role::acceptor ? role::connector : role::acceptor);
    if (CRYPTO_memcmp(expected.data(), received_.data() + hello_size, proof_size) != 0) {
      state_ = state::failed;
      failure_ = "the peer does not know the cluster secret (its proof is wrong: the secret files differ)";
    } else {
      state_ = state::done;
    }
  }
  return taken;
}

} // namespace gridvec::net
