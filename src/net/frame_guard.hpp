#pragma once
// Watches the bytes of CAF's network protocol (BASP, CAF 0.17) as they come
// in and stops a frame that announces more payload than allowed before CAF
// reads its header. CAF sizes its read buffer from the header's payload
// length, with no limit of its own: one 32-byte header announcing 4 GB made
// a node allocate 4 GB. The guard sees every byte before CAF does, so a
// frame over the limit closes the connection and nothing is allocated.
//
// A BASP frame is a 32-byte header followed by `payload_len` bytes:
//   operation (1) | padding (2) | flags (1) | payload_len (4, big-endian) |
//   operation_data (8) | source actor (8) | destination actor (8)
// Operations are 0..6 (server and client handshake, direct and routed
// message, monitor, down, heartbeat); anything else is not CAF.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gridvec::net {

class frame_guard {
public:
  static constexpr size_t header_size = 32;

  explicit frame_guard(uint64_t max_payload_bytes) : max_payload_(max_payload_bytes) {}

  /// Looks at the next `size` bytes of the stream. Returns false (and
  /// failure() says why) at the first frame over the limit or that is not
  /// BASP; the stream must then be closed.
  bool inspect(const uint8_t* data, size_t size);

  const std::string& failure() const { return failure_; }
  uint64_t max_payload() const { return max_payload_; }

private:
  uint64_t max_payload_;
  std::array<uint8_t, header_size> header_{};
  size_t header_seen_ = 0;    // bytes of the current header so far
  uint64_t payload_left_ = 0; // bytes of the current payload still to come
  bool failed_ = false;
  std::string failure_;
};

} // namespace gridvec::net
