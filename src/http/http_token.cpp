#include "src/http/http_token.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cctype>

namespace gridvec::http {

std::string derive_token(const net::secret_bytes& secret) {
  static constexpr std::string_view label = "gridvec http token v1";
  std::array<unsigned char, 32> mac{};
  unsigned int size = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(label.data()), label.size(), mac.data(), &size);
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    hex += digits[mac[i] >> 4];
    hex += digits[mac[i] & 15];
  }
  return hex;
}

bool bearer_matches(std::string_view authorization, std::string_view token) {
  static constexpr std::string_view scheme = "bearer ";
  if (token.empty() || authorization.size() < scheme.size())
    return false;
  for (size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i])
      return false;
  auto given = authorization.substr(scheme.size());
  while (!given.empty() && (given.back() == ' ' || given.back() == '\t'))
    given.remove_suffix(1);
  // The length is not secret (every token has 64 digits); the content is.
  if (given.size() != token.size())
    return false;
  return CRYPTO_memcmp(given.data(), token.data(), token.size()) == 0;
}

} // namespace gridvec::http
