#include "src/net/frame_guard.hpp"

#include <algorithm>

namespace gridvec::net {

namespace {

constexpr uint8_t last_basp_operation = 6; // heartbeat

} // namespace

bool frame_guard::inspect(const uint8_t* data, size_t size) {
  while (size > 0 && !failed_) {
    if (payload_left_ > 0) {
      const auto skip = static_cast<size_t>(std::min<uint64_t>(payload_left_, size));
      payload_left_ -= skip;
      data += skip;
      size -= skip;
      continue;
    }
    const size_t take = std::min(size, header_size - header_seen_);
    std::copy(data, data + take, header_.begin() + static_cast<long>(header_seen_));
    header_seen_ += take;
    data += take;
    size -= take;
    if (header_seen_ < header_size)
      break;
    header_seen_ = 0;
    const uint8_t operation = header_[0];
    const uint32_t payload =
      (uint32_t{header_[4]} << 24) | (uint32_t{header_[5]} << 16) | (uint32_t{header_[6]} << 8) | uint32_t{header_[7]};
    if (operation > last_basp_operation) {
      failed_ = true;
      failure_ = "a frame of unknown type " + std::to_string(operation) + " (not CAF's protocol)";
    } else if (payload > max_payload_) {
      failed_ = true;
      failure_ = "a frame announcing " + std::to_string(payload) + " bytes, over the limit of " +
                 std::to_string(max_payload_) + " (max-message-mb in the cluster config)";
    } else {
      payload_left_ = payload;
    }
  }
  return !failed_;
}

} // namespace gridvec::net
