#pragma once
// Files that must stay private to the user the nodes run as: the cluster
// secret (src/net/cluster_secret.hpp) and a TLS private key. A file that
// the group or others may read or write is refused, as ssh refuses such a
// private key: a key every local user can read protects nothing.
#include <string>

#include <gridvec/core/expected.hpp>

namespace gridvec::access {

/// Fails with one line ("the TLS key K can be read or written by other
/// users (mode 0644); run: chmod 600 K") if `path` is not a regular file
/// (a symbolic link is not followed) or has group or other permission bits.
/// `what` names it ("the TLS key").
status check_private_file(const std::string& path, const std::string& what);

} // namespace gridvec::access
