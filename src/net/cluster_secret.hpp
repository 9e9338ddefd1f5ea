#pragma once
// The cluster secret: 32 random bytes in a file that only its owner can
// read, named by the cluster config (`secret = FILE`). Every node and client
// of the cluster proves it knows them before it may talk
// (src/net/auth_handshake.hpp). `gridvec keygen FILE` writes one.
//
// File format: 64 hexadecimal digits and a newline.
#include <string>

#include <gridvec/core/expected.hpp>
#include "src/net/auth_handshake.hpp"

namespace gridvec::net {

/// Writes a new random secret to `path`, mode 0600. Refuses to replace an
/// existing file (a cluster whose nodes hold different secrets is down).
status write_new_secret(const std::string& path);

/// Reads the secret at `path`. Refuses a file that the group or others
/// can read or write (as ssh does with a private key): a secret that every
/// local user can read protects nothing.
expected<secret_bytes> load_secret(const std::string& path);

} // namespace gridvec::net
