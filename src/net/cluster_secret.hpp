#pragma once
// The cluster secret: 32 random bytes in a file that only its owner can
// read, named by the cluster config (`secret = FILE`). Every node and client
// of the cluster proves it knows them before it may talk
// (src/net/auth_handshake.hpp). `gridvec keygen FILE` writes one.
//
// File format: 64 hexadecimal digits and a newline. A client key (what a
// client needs, and all it can prove: auth_handshake.hpp) is the same with
// "client " in front; `gridvec keygen --client-key SECRET FILE` writes one.
#include <string>

#include <gridvec/core/expected.hpp>
#include "src/net/auth_handshake.hpp"

namespace gridvec::net {

/// Writes a new random secret to `path`, mode 0600. Refuses to replace an
/// existing file (a cluster whose nodes hold different secrets is down).
status write_new_secret(const std::string& path);

/// Writes the client key derived from the secret at `secret_path` to
/// `path`, mode 0600 (never replacing a file).
status write_client_key(const std::string& secret_path, const std::string& path);

/// A key file as read: the cluster secret, or a client key.
struct loaded_key {
  secret_bytes bytes{};
  bool client_only = false;
};

inline constexpr char client_key_prefix[] = "client ";

/// Reads a secret or a client key at `path`, with load_secret's checks.
expected<loaded_key> load_key(const std::string& path);

/// Reads the secret at `path` (a client key is refused). Refuses a file that the group or others
/// can read or write (as ssh does with a private key): a secret that every
/// local user can read protects nothing.
expected<secret_bytes> load_secret(const std::string& path);

} // namespace gridvec::net
