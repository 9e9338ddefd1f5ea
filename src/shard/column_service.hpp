#pragma once
// A shard of the columns layout: the columns [first, first + width) of
// every word's vectors. Learners train through it with dotprod, adjust and
// step (schema/minibatch.capnp); each lane calls them through a
// column_lane of its own, several lanes at once on the same store
// (Hogwild, as word2vec.c's threads).
//
// The SGNS training calls, from the bytes a learner sent to the bytes it
// gets back, are the free functions below:
//   dotprod  a DotprodRequest -> a DotprodReply
//   adjust   an AdjustRequest -> an AdjustReply
// They are not table operations: the table service (src/table/) never
// serves an SGNS model, because a general table request's envelope, lookup
// and per-call buffers would cost the training loop its speed
// (docs/tables.md).
#include <memory>
#include <vector>

#include "src/model/shard_store.hpp"
#include "src/sgns/drawn_targets.hpp"
#include "src/shard/shard_service.hpp"

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

class column_service : public shard_service {
public:
  using shard_service::shard_service;

  expected<wire_bytes> norms(const std::vector<uint32_t>& words) const override;
  /// The partial similarity of q = sum weight_i u(word_i) to every word, on
  /// this shard's columns (src/model/similarity.hpp); `weights` float32
  /// bytes, one per word.
  expected<wire_bytes> similar(const std::vector<uint32_t>& words, const wire_bytes& weights) const;
};

/// One lane's training calls, with buffers that only grow: a steady stream
/// of requests allocates nothing. Every request is checked whole before
/// anything is applied.
class column_lane {
public:
  explicit column_lane(std::shared_ptr<column_service> shard);

  column_service& shard() { return *shard_; }

  /// DotprodRequest bytes -> DotprodReply bytes.
  expected<wire_bytes> dotprod(const wire_bytes& request);
  /// AdjustRequest bytes -> AdjustReply bytes.
  expected<wire_bytes> adjust(const wire_bytes& request);
  /// The adjusts applied one after the other, then the dotprods' replies.
  expected<std::vector<wire_bytes>> step(const std::vector<wire_bytes>& adjusts,
                                         const std::vector<wire_bytes>& dotprods);

private:
  status decode_step(const std::vector<wire_bytes>& adjusts, const std::vector<wire_bytes>& dotprods);

  std::shared_ptr<column_service> shard_;
  sgns_buffers buffers_;
  std::vector<minibatch> adjust_batches_;
  std::vector<std::vector<float>> adjust_weights_;
  std::vector<minibatch> dotprod_batches_;
};

} // namespace gridvec
