#include "src/formats/manifest_key.hpp"

#include <mutex>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <gridvec/core/cluster_config.hpp>
#include "src/net/cluster_secret.hpp"

namespace gridvec {

namespace {

std::mutex key_mutex;
std::optional<manifest_key> process_key;

manifest_key hmac(const uint8_t* key, size_t key_bytes, const void* data, size_t n) {
  manifest_key out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key, static_cast<int>(key_bytes), static_cast<const unsigned char*>(data), n, out.data(), &len);
  return out;
}

} // namespace

expected<std::optional<manifest_key>> manifest_key_of(const cluster_config& cluster) {
  if (cluster.secret_file.empty())
    return std::optional<manifest_key>{};
  auto secret = net::load_secret(cluster.secret_file);
  if (!secret)
    return failure{secret.error()};
  static const char label[] = "gridvec checkpoint manifest key 1";
  return std::optional<manifest_key>{hmac(secret->data(), secret->size(), label, sizeof label - 1)};
}

void set_manifest_key(std::optional<manifest_key> key) {
  std::lock_guard lock{key_mutex};
  process_key = key;
}

std::optional<manifest_key> current_manifest_key() {
  std::lock_guard lock{key_mutex};
  return process_key;
}

std::string manifest_mac(const manifest_key& key, const std::string& text) {
  auto mac = hmac(key.data(), key.size(), text.data(), text.size());
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (uint8_t b : mac) {
    hex += digits[b >> 4];
    hex += digits[b & 15];
  }
  return hex;
}

} // namespace gridvec
