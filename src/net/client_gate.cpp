#include "src/net/client_gate.hpp"

#include <algorithm>

namespace gridvec::net {

namespace {

constexpr uint8_t server_handshake = 0, client_handshake = 1, direct_message = 2, routed_message = 3,
                  monitor_message = 4, down_message = 5, heartbeat = 6;
constexpr uint8_t named_receiver_flag = 0x01;
// CAF 0.17's message id (caf/message_id.hpp): the response flag, and the
// bits that number a request.
constexpr uint64_t response_flag = 0x8000000000000000ull;
constexpr uint64_t request_id_mask = 0x0FFFFFFFFFFFFFFFull;
// Stands for "a message to a named actor" among the open requests (no
// request has this id: it is outside request_id_mask).
constexpr uint64_t named_question = ~uint64_t{0};

uint64_t big_endian(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v = (v << 8) | p[i];
  return v;
}

} // namespace

bool client_gate::refuse(std::string why) {
  failed_ = true;
  failure_ = "a client sent " + why + " (clients reach only the controller and the tables; docs/security.md)";
  return false;
}

bool client_gate::inspect(const uint8_t* data, size_t size) {
  if (failed_)
    return false;
  while (size > 0) {
    if (prefix_wanted_ > 0) {
      size_t n = std::min(size, prefix_wanted_);
      prefix_.insert(prefix_.end(), data, data + n);
      prefix_wanted_ -= n;
      payload_left_ -= n;
      data += n;
      size -= n;
      if (prefix_wanted_ == 0 && !check_payload())
        return false;
      continue;
    }
    if (payload_left_ > 0) {
      uint64_t n = std::min<uint64_t>(size, payload_left_);
      payload_left_ -= n;
      data += n;
      size -= static_cast<size_t>(n);
      continue;
    }
    size_t n = std::min(size, header_.size() - header_seen_);
    std::copy(data, data + n, header_.begin() + static_cast<long>(header_seen_));
    header_seen_ += n;
    data += n;
    size -= n;
    if (header_seen_ == header_.size()) {
      header_seen_ = 0;
      if (!check_header())
        return false;
    }
  }
  return true;
}

bool client_gate::check_header() {
  const uint8_t op = header_[0];
  const uint8_t flags = header_[3];
  payload_size_ = big_endian(header_.data() + 4, 4);
  payload_left_ = payload_size_;
  switch (op) {
    case client_handshake:
    case monitor_message:
    case down_message:
    case heartbeat: return true;
    case server_handshake: return refuse("a server handshake");
    case routed_message: return refuse("a message to be routed on to another node");
    case direct_message: break;
    default: return refuse("an unknown operation " + std::to_string(op));
  }
  const bool named = (flags & named_receiver_flag) != 0;
  const uint64_t dest = big_endian(header_.data() + 24, 8);
  const uint64_t mid = big_endian(header_.data() + 8, 8);
  if ((mid & response_flag) != 0 && !named) {
    auto key = std::make_pair(dest, mid & request_id_mask);
    if (open_requests_.erase(key) == 0)
      return refuse("a response to a request the node did not send it");
    target_ = {};
    target_.what = client_access::level::any_request; // its stack must be empty too
  } else if (!named && (mid & request_id_mask) == 0 && open_requests_.erase({dest, named_question}) > 0) {
    // The answer to a message the node sent to a named actor of the
    // client, which CAF sends as a plain message.
    target_ = {};
    target_.what = client_access::level::any_request;
  } else {
    target_ = access_(dest, named);
  }
  switch (target_.what) {
    case client_access::level::none:
      return refuse(named ? std::string{"a message to a named actor"}
                          : "a message to an internal actor (" + std::to_string(dest) + ", message id " +
                              std::to_string(mid) + ")");
    case client_access::level::any_request:
      // The forwarding stack comes first: its length must be 0.
      prefix_wanted_ = payload_size_ >= 1 ? 1 : 0;
      if (prefix_wanted_ == 0)
        return refuse("an empty message");
      break;
    case client_access::level::listed_payloads: {
      bool fits = false;
      for (const auto& p : *target_.payloads)
        fits = fits || p.size() == payload_size_;
      if (!fits)
        return refuse(named ? "a message to a named actor" : "a request the node's entry does not answer to clients");
      prefix_wanted_ = static_cast<size_t>(payload_size_);
      break;
    }
  }
  prefix_.clear();
  return true;
}

bool client_gate::check_payload() {
  if (target_.what == client_access::level::any_request) {
    if (prefix_[0] != 0)
      return refuse("a message with a forwarding stack");
    return true;
  }
  for (const auto& p : *target_.payloads)
    if (p == prefix_)
      return true;
  return refuse((header_[3] & named_receiver_flag) != 0 ? "a message to a named actor"
                                                        : "a request the node's entry does not answer to clients");
}

} // namespace gridvec::net

namespace gridvec::net {

void client_gate::note_outgoing(const uint8_t* data, size_t size) {
  while (size > 0) {
    if (out_payload_left_ > 0) {
      uint64_t n = std::min<uint64_t>(size, out_payload_left_);
      out_payload_left_ -= n;
      data += n;
      size -= static_cast<size_t>(n);
      continue;
    }
    size_t n = std::min(size, out_header_.size() - out_seen_);
    std::copy(data, data + n, out_header_.begin() + static_cast<long>(out_seen_));
    out_seen_ += n;
    data += n;
    size -= n;
    if (out_seen_ < out_header_.size())
      continue;
    out_seen_ = 0;
    out_payload_left_ = big_endian(out_header_.data() + 4, 4);
    const uint64_t mid = big_endian(out_header_.data() + 8, 8);
    const bool named = (out_header_[3] & named_receiver_flag) != 0;
    if (out_header_[0] != direct_message || (mid & response_flag) != 0 || ((mid & request_id_mask) == 0 && !named))
      continue;
    auto key = std::make_pair(big_endian(out_header_.data() + 16, 8), named ? named_question : mid & request_id_mask);
    if (open_requests_.insert(key).second) {
      request_order_.push_back(key);
      if (request_order_.size() > max_open_requests) {
        open_requests_.erase(request_order_.front());
        request_order_.pop_front();
      }
    }
  }
}

} // namespace gridvec::net
