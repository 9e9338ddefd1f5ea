#include "src/sgns/column_step.hpp"

#include <string>

#include "src/formats/wire.hpp"

namespace gridvec {

std::vector<wire_bytes> column_step::dotprods(const batch_group& g) const {
  std::vector<wire_bytes> out;
  out.reserve(g.batches.size());
  for (const auto& b : g.batches) {
    out.push_back(encode_dotprod_request(b->mb));
    b->sum.assign(b->mb.dot_count(), 0.0f);
  }
  return out;
}

status column_step::add_replies(const batch_group& g, const std::vector<wire_bytes>& replies) const {
  if (replies.size() != g.batches.size())
    return failure{"a shard answered a step of " + std::to_string(g.batches.size()) + " dotprods with " +
                   std::to_string(replies.size()) + " replies"};
  for (size_t i = 0; i < replies.size(); ++i)
    if (auto s = accumulate_dotprod_reply(replies[i], g.batches[i]->sum); !s)
      return s;
  return {};
}

wire_bytes column_step::adjust(batch_state& b, float alpha, weight_result& w) {
  weights_.resize(b.sum.size());
  b.mb.labels(labels_);
  w = target_weights(b.sum.data(), labels_.data(), b.sum.size(), alpha, weights_.data());
  w.pairs = b.mb.pairs();
  // The shards recompute these weights for the rows as the adjust finds
  // them, after the other minibatches in flight.
  b.mb.alpha = alpha;
  b.mb.staleness = staleness_;
  return encode_adjust_request(b.mb, weights_.data(), weights_.size());
}

} // namespace gridvec
