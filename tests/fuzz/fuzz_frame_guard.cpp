// Reached by: a peer that has passed the handshake (or any peer of a cluster
// with insecure = true): every byte of CAF's protocol it sends goes through
// frame_guard::inspect (src/net/frame_guard.hpp, from
// actors/net/guarded_transport.cpp) before CAF reads it, in pieces as they
// arrive. The input is that byte stream. Checked here: the verdict does not
// depend on how the stream is cut into pieces, and it matches a plain
// reading of the frames (32-byte header, big-endian payload length at byte
// 4, operations 0..6) against the limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "src/net/frame_guard.hpp"

namespace {

// The frames, read whole: false at the first one over `limit` or not BASP.
bool reference(const uint8_t* data, size_t size, uint64_t limit) {
  size_t at = 0;
  while (size - at >= gridvec::net::frame_guard::header_size) {
    const uint8_t* h = data + at;
    const uint64_t payload = (uint64_t{h[4]} << 24) | (uint64_t{h[5]} << 16) | (uint64_t{h[6]} << 8) | h[7];
    if (h[0] > 6 || payload > limit)
      return false;
    at += gridvec::net::frame_guard::header_size;
    if (payload >= size - at)
      return true; // the rest is payload
    at += payload;
  }
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (uint64_t limit : {uint64_t{64} << 20, uint64_t{100}, uint64_t{0}}) {
    const bool want = reference(data, size, limit);
    gridvec::net::frame_guard whole(limit);
    if (whole.inspect(data, size) != want)
      std::abort();
    gridvec::net::frame_guard pieces(limit);
    bool ok = true;
    uint32_t cut = static_cast<uint32_t>(size) * 2654435761u + static_cast<uint32_t>(limit);
    for (size_t at = 0; at < size && ok;) {
      cut = cut * 1103515245u + 12345u;
      const size_t piece = std::min<size_t>(size - at, 1 + (cut >> 16) % 40);
      ok = pieces.inspect(data + at, piece);
      at += piece;
    }
    if (ok != want || (!ok && pieces.failure().empty()))
      std::abort();
  }
  return 0;
}
