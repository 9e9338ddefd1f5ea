#pragma once
// The bearer token of a cluster's HTTP API (docs/http.md). It is derived
// from the cluster secret, HMAC-SHA256(secret, "gridvec http token v1") in
// hex, so that the secret itself never travels in an HTTP header or sits in
// a notebook: a leaked token lets its holder read vectors and metrics, not
// join the cluster. `gridvec keygen --http-token SECRET_FILE` prints it.
#include <string>
#include <string_view>

#include "src/net/auth_handshake.hpp" // secret_bytes

namespace gridvec::http {

/// The token for `secret`: 64 lowercase hexadecimal digits.
std::string derive_token(const net::secret_bytes& secret);

/// Whether an `Authorization` header value is "Bearer <token>" (the scheme
/// case-insensitive, as RFC 7235 says). The token is compared in constant
/// time, so response times tell an attacker nothing about how much of a
/// guess was right.
bool bearer_matches(std::string_view authorization, std::string_view token);

} // namespace gridvec::http
