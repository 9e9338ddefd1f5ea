#include "src/net/session_cipher.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <stdexcept>

namespace gridvec::net {

namespace {

std::array<uint8_t, 12> nonce_of(uint64_t sequence) {
  std::array<uint8_t, 12> n{};
  for (int i = 0; i < 8; ++i)
    n[11 - i] = static_cast<uint8_t>(sequence >> (8 * i));
  return n;
}

} // namespace

struct session_cipher::contexts {
  EVP_CIPHER_CTX* seal = EVP_CIPHER_CTX_new();
  EVP_CIPHER_CTX* open = EVP_CIPHER_CTX_new();
  ~contexts() {
    EVP_CIPHER_CTX_free(seal);
    EVP_CIPHER_CTX_free(open);
  }
};

session_cipher::session_cipher(const secret_bytes& seal_key, const secret_bytes& open_key)
  : ctx_(std::make_unique<contexts>()) {
  if (!ctx_->seal || !ctx_->open ||
      EVP_EncryptInit_ex(ctx_->seal, EVP_aes_256_gcm(), nullptr, seal_key.data(), nullptr) != 1 ||
      EVP_DecryptInit_ex(ctx_->open, EVP_aes_256_gcm(), nullptr, open_key.data(), nullptr) != 1)
    throw std::runtime_error("cannot set up AES-256-GCM (OpenSSL)");
  record_.reserve(4 + max_record + 16);
}

session_cipher::~session_cipher() = default;

void session_cipher::seal(const uint8_t* data, size_t size, std::vector<uint8_t>& out) {
  while (size > 0) {
    const size_t n = std::min(size, max_record);
    const size_t at = out.size();
    out.resize(at + 4 + n + 16);
    uint8_t* p = out.data() + at;
    for (int i = 0; i < 4; ++i)
      p[i] = static_cast<uint8_t>(n >> (8 * (3 - i)));
    auto iv = nonce_of(sealed_++);
    int len = 0;
    if (EVP_EncryptInit_ex(ctx_->seal, nullptr, nullptr, nullptr, iv.data()) != 1 ||
        EVP_EncryptUpdate(ctx_->seal, nullptr, &len, p, 4) != 1 ||
        EVP_EncryptUpdate(ctx_->seal, p + 4, &len, data, static_cast<int>(n)) != 1 ||
        EVP_EncryptFinal_ex(ctx_->seal, p + 4 + len, &len) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx_->seal, EVP_CTRL_GCM_GET_TAG, 16, p + 4 + n) != 1)
      throw std::runtime_error("AES-256-GCM sealing failed (OpenSSL)");
    data += n;
    size -= n;
  }
}

size_t session_cipher::wanted() const {
  if (record_.size() < 4)
    return 4 - record_.size();
  return record_size_ - record_.size();
}

bool session_cipher::open(const uint8_t* data, size_t size, std::vector<uint8_t>& plain) {
  if (!failure_.empty())
    return false;
  while (size > 0) {
    const size_t take = std::min(size, wanted());
    record_.insert(record_.end(), data, data + take);
    data += take;
    size -= take;
    if (record_.size() == 4) {
      size_t n = (size_t{record_[0]} << 24) | (size_t{record_[1]} << 16) | (size_t{record_[2]} << 8) | record_[3];
      if (n == 0 || n > max_record) {
        failure_ = "a record of " + std::to_string(n) + " bytes (at most " + std::to_string(max_record) +
                   "): not a gridvec session";
        return false;
      }
      record_size_ = 4 + n + 16;
      continue;
    }
    if (record_.size() < 4 || record_.size() < record_size_)
      continue;
    const size_t n = record_size_ - 20;
    auto iv = nonce_of(opened_++);
    const size_t at = plain.size();
    plain.resize(at + n);
    int len = 0;
    bool ok = EVP_DecryptInit_ex(ctx_->open, nullptr, nullptr, nullptr, iv.data()) == 1 &&
              EVP_DecryptUpdate(ctx_->open, nullptr, &len, record_.data(), 4) == 1 &&
              EVP_DecryptUpdate(ctx_->open, plain.data() + at, &len, record_.data() + 4, static_cast<int>(n)) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx_->open, EVP_CTRL_GCM_SET_TAG, 16, record_.data() + 4 + n) == 1 &&
              EVP_DecryptFinal_ex(ctx_->open, plain.data() + at + len, &len) == 1;
    if (!ok) {
      plain.resize(at);
      failure_ = "a record failed its authentication tag (changed, replayed, reordered or injected on the way)";
      return false;
    }
    record_.clear();
    record_size_ = 0;
  }
  return true;
}

} // namespace gridvec::net
