#pragma once
// A shard of the columns layout: the columns [first, first + width) of
// every word's vectors. Learners train through it with dotprod, adjust and
// step (schema/minibatch.capnp); each lane calls them through a
// column_lane of its own, several lanes at once on the same store
// (Hogwild, as word2vec.c's threads).
#include <memory>
#include <vector>

#include "src/model/sgns_operations.hpp"
#include "src/shard/shard_service.hpp"

namespace gridvec {

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
