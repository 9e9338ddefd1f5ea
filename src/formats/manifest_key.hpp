#pragma once
// The key that authenticates checkpoint manifests: HMAC-SHA256 under a key
// derived from the cluster secret (HMAC-SHA256 of a fixed label under the
// secret, so the secret itself never keys two uses). A manifest lists the
// files a resumed job reads and writes, and is read back by whoever resumes
// it: with a key, a manifest written or altered without the secret is
// refused. A process without a cluster secret (gridvec train, a cluster
// with insecure = true) has no key; its manifests carry only their CRC-32,
// which finds damage, not tampering.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <gridvec/core/expected.hpp>

namespace gridvec {

struct cluster_config;

using manifest_key = std::array<uint8_t, 32>;

/// The key of a cluster config: derived from its secret file; none when
/// it names no secret.
expected<std::optional<manifest_key>> manifest_key_of(const cluster_config& cluster);

/// The key of every manifest this process writes and reads (none: CRC-32
/// only). A node installs its config's at start.
void set_manifest_key(std::optional<manifest_key> key);
std::optional<manifest_key> current_manifest_key();

/// HMAC-SHA256 of `text` under `key`, as 64 lowercase hexadecimal digits.
std::string manifest_mac(const manifest_key& key, const std::string& text);

} // namespace gridvec
