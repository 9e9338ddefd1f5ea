#pragma once
// What travels after the handshake on a connection without TLS: CAF's bytes
// cut into records, each encrypted and authenticated with AES-256-GCM under
// a key of this connection and direction (src/net/auth_handshake.hpp):
//
//   length (4, big-endian: 1..max_record) | ciphertext (length) | tag (16)
//
// The nonce is the record's sequence number (12 bytes: 4 zeros and 8,
// big-endian), and the length is authenticated with the record. A byte
// changed, a record dropped, repeated, reordered or taken from another
// connection or direction fails its tag and the connection is closed. The
// peer can make a reader hold at most one record (64 KiB and 20 bytes).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/net/auth_handshake.hpp"

namespace gridvec::net {

class session_cipher {
public:
  static constexpr size_t max_record = 65536;
  static constexpr size_t overhead = 4 + 16;

  /// `seal_key` seals this end's bytes; `open_key` opens the peer's.
  session_cipher(const secret_bytes& seal_key, const secret_bytes& open_key);
  ~session_cipher();
  session_cipher(const session_cipher&) = delete;
  session_cipher& operator=(const session_cipher&) = delete;

  /// Appends `size` bytes to `out` as records.
  void seal(const uint8_t* data, size_t size, std::vector<uint8_t>& out);

  /// Takes ciphertext from the peer (any chunking) and appends what it
  /// opens to `plain`. Returns false (failure() says why) at the first bad
  /// record; the connection must then be closed.
  bool open(const uint8_t* data, size_t size, std::vector<uint8_t>& plain);

  /// Bytes the current record still needs (a reader reads no more).
  size_t wanted() const;

  const std::string& failure() const { return failure_; }

private:
  struct contexts;
  std::unique_ptr<contexts> ctx_;
  uint64_t sealed_ = 0, opened_ = 0; // records so far, the nonces
  std::vector<uint8_t> record_;      // the peer's record in progress
  size_t record_size_ = 0;           // its full size once its length is in
  std::string failure_;
};

} // namespace gridvec::net
