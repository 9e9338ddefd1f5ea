#pragma once
// Cap'n Proto encoding of the training messages (schema/minibatch.capnp).
// Encoded messages travel as plain byte buffers inside CAF messages, so the
// same bytes cross a process boundary unchanged. Decoding never throws: a
// truncated or malformed buffer, or one whose shape does not add up, is a
// failure line for the caller to send back.
#include <cstdint>
#include <vector>

#include <gridvec/core/wire_bytes.hpp>
#include "src/sgns/minibatch.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec {

wire_bytes encode_dotprod_request(const minibatch& mb);
status decode_dotprod_request(const wire_bytes& bytes, minibatch& out);

wire_bytes encode_dotprod_reply(uint32_t shard, const float* dots, size_t count);
status decode_dotprod_reply(const wire_bytes& bytes, uint32_t& shard, std::vector<float>& dots);
/// Adds the reply's dot products to `sum` (which has the expected size).
status accumulate_dotprod_reply(const wire_bytes& bytes, std::vector<float>& sum);

wire_bytes encode_adjust_request(const minibatch& mb, const float* weights, size_t count);
status decode_adjust_request(const wire_bytes& bytes, minibatch& out, std::vector<float>& weights);

wire_bytes encode_adjust_reply(uint32_t shard, uint32_t pairs);
status decode_adjust_reply(const wire_bytes& bytes, uint32_t& shard, uint32_t& pairs);

} // namespace gridvec
