#pragma once
// gridvec's SGNS training as operations of its model table (seed 004's
// user-defined shard operations; the table is shard_store::model(), a
// dense columns-layout matrix):
//
//   sgns.dotprod  args: a DotprodRequest   result: a DotprodReply
//   sgns.adjust   args: an AdjustRequest   result: an AdjustReply
//
// (schema/minibatch.capnp). A shard lane (actors/shard_actor.cpp) runs
// these same functions on every training message, with buffers of its own
// and several lanes at once (Hogwild); registered by name, they also run
// through any table request (table::call) on a table_service that serves
// the model (table_service::adopt). There is one shard mechanism: tables,
// and the operations that run on their slices.
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

/// Registers "sgns.dotprod" and "sgns.adjust" (table_operations.hpp) in
/// this process; every shard_store does so when it is made. Idempotent.
void register_sgns_operations();

} // namespace gridvec
