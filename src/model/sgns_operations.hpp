#pragma once
// A shard's two SGNS training calls on its shard_store, from the bytes a
// learner sent to the bytes it gets back:
//
//   dotprod  a DotprodRequest -> a DotprodReply
//   adjust   an AdjustRequest -> an AdjustReply
//
// (schema/minibatch.capnp). A shard lane calls these functions through
// its column_lane (src/shard/column_service.hpp) on every training message, with buffers of its
// own and several lanes at once on the same store (Hogwild). They are not
// table operations: the table service (src/table/) never serves an SGNS
// model, because a general table request's envelope, lookup and per-call
// buffers would cost the training loop its speed.
#include <memory>
#include <vector>

#include <gridvec/core/wire_bytes.hpp>
#include "src/model/shard_store.hpp"
#include "src/sgns/drawn_targets.hpp"

namespace gridvec {

/// One caller's buffers, reused across calls: steady state allocates
/// nothing.
struct sgns_buffers {
  explicit sgns_buffers(uint32_t width) : scratch(width) {}
  minibatch batch;
  std::vector<float> floats; // dot products, or adjust's weights
  std::vector<float> hidden;
  adjust_scratch scratch;
  drawn_targets drawn; // by dotprod, for the adjust of the same minibatch
};

/// Decodes a DotprodRequest and checks it against the store (the bytes came
/// from the network).
status decode_sgns_dotprod(const shard_store& store, const wire_bytes& request, minibatch& into);
/// Decodes an AdjustRequest and checks it, and its weights' count.
status decode_sgns_adjust(const shard_store& store, const wire_bytes& request, minibatch& into,
                          std::vector<float>& weights);

/// The store's partial dot products of a checked minibatch, as a
/// DotprodReply; the noise words drawn and the dot products are kept in
/// b.drawn for the adjust.
wire_bytes run_sgns_dotprod(shard_store& store, const minibatch& mb, sgns_buffers& b);
/// Applies a checked minibatch's weights.
void apply_sgns_adjust(shard_store& store, const minibatch& mb, const float* weights, sgns_buffers& b);
/// ... and returns an AdjustReply.
wire_bytes run_sgns_adjust(shard_store& store, const minibatch& mb, const float* weights, sgns_buffers& b);

} // namespace gridvec
