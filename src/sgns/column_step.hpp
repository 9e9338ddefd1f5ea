#pragma once
// The learner's side of the columns layout (the Network-efficient word2vec
// paper, Figures 5-7), for a group of minibatches that travel together: their
// DotprodRequests go to every shard in one `step`, each shard's reply adds
// its partial dot products to the minibatches' sums, and once every shard
// has answered the sums become the weights of the updates (src/sgns/sgns.hpp),
// sent back as the AdjustRequests of the next step. Plain C++: the learner
// actor (actors/layouts/columns/protocol_path.cpp) sends and receives.
//
// A group costs one message and reply per shard instead of one per
// minibatch: each costs system calls and thread wake-ups on both sides,
// and the shard still applies every minibatch on its own.
#include <cstdint>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/wire_bytes.hpp>
#include "src/sgns/minibatch_source.hpp"
#include "src/sgns/sgns.hpp"

namespace gridvec {

struct batch_group {
  std::vector<batch_ptr> batches;
  size_t pending = 0; // shard replies still expected
  uint64_t generation = 0;
};

class column_step {
public:
  /// `staleness`: how many other minibatches may update the rows between a
  /// minibatch's dotprod and its adjust (the learner's --in-flight times
  /// the job's learners), for the shards' refresh of its weights
  /// (src/sgns/weight_refresh.hpp); 0 for none.
  explicit column_step(uint32_t staleness) : staleness_(staleness) {}

  /// The DotprodRequests of the group's minibatches, in order; their sums
  /// are zeroed for the replies.
  std::vector<wire_bytes> dotprods(const batch_group& g) const;
  /// One shard's replies to them, added to the sums; one line if the shard
  /// did not answer each dotprod, or an answer is malformed.
  status add_replies(const batch_group& g, const std::vector<wire_bytes>& replies) const;
  /// A minibatch whose sums every shard has added to: its weights at
  /// `alpha` (the loss and pairs in `w`) as its AdjustRequest.
  wire_bytes adjust(batch_state& b, float alpha, weight_result& w);

private:
  uint32_t staleness_;
  std::vector<float> weights_;
  std::vector<uint8_t> labels_;
};

} // namespace gridvec
