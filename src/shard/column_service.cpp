#include "src/shard/column_service.hpp"

#include "src/formats/wire.hpp"
#include "src/model/similarity.hpp"

namespace gridvec {

status decode_sgns_dotprod(const shard_store& store, const wire_bytes& request, minibatch& into) {
  if (auto s = decode_dotprod_request(request, into); !s)
    return s;
  return store.validate(into);
}

status decode_sgns_adjust(const shard_store& store, const wire_bytes& request, minibatch& into,
                          std::vector<float>& weights) {
  if (auto s = decode_adjust_request(request, into, weights); !s)
    return s;
  if (auto s = store.validate(into); !s)
    return s;
  if (weights.size() != into.dot_count())
    return failure{"adjust request has " + std::to_string(weights.size()) + " weights for " +
                   std::to_string(into.dot_count()) + " dot products"};
  return {};
}

wire_bytes run_sgns_dotprod(shard_store& store, const minibatch& mb, sgns_buffers& b) {
  b.floats.resize(mb.dot_count());
  store.dotprod(mb, b.floats.data(), b.hidden, &b.drawn.record(mb));
  b.drawn.keep_partials(b.floats.data(), b.floats.size());
  return encode_dotprod_reply(store.model()->shard(), b.floats.data(), b.floats.size());
}

void apply_sgns_adjust(shard_store& store, const minibatch& mb, const float* weights, sgns_buffers& b) {
  b.drawn.fit(mb.staleness);
  const drawn_targets::entry* kept = b.drawn.find(mb);
  store.adjust(mb, weights, b.scratch, kept ? &kept->targets : nullptr,
               kept && kept->partials.size() == mb.dot_count() ? kept->partials.data() : nullptr);
}

wire_bytes run_sgns_adjust(shard_store& store, const minibatch& mb, const float* weights, sgns_buffers& b) {
  apply_sgns_adjust(store, mb, weights, b);
  return encode_adjust_reply(store.model()->shard(), static_cast<uint32_t>(mb.pairs()));
}

expected<wire_bytes> column_service::norms(const std::vector<uint32_t>& words) const {
  if (auto s = check_words(words); !s)
    return failure{s.why()};
  return float_bytes(partial_norms(store(), words));
}

expected<wire_bytes> column_service::similar(const std::vector<uint32_t>& words, const wire_bytes& weight_bytes) const {
  auto weights = floats_of(weight_bytes);
  if (!weights)
    return failure{weights.why()};
  if (weights->size() != words.size())
    return failure{"similar: " + std::to_string(words.size()) + " words but " + std::to_string(weights->size()) +
                   " weights"};
  if (auto s = check_words(words); !s)
    return failure{s.why()};
  return float_bytes(partial_similarity(store(), words, *weights));
}

column_lane::column_lane(std::shared_ptr<column_service> shard)
  : shard_(std::move(shard)), buffers_(shard_->store().slice().width) {}

expected<wire_bytes> column_lane::dotprod(const wire_bytes& request) {
  shard_->count_requests(1);
  auto& store = shard_->store();
  if (auto s = decode_sgns_dotprod(store, request, buffers_.batch); !s)
    return failure{s.why()};
  return run_sgns_dotprod(store, buffers_.batch, buffers_);
}

expected<wire_bytes> column_lane::adjust(const wire_bytes& request) {
  shard_->count_requests(1);
  auto& store = shard_->store();
  if (auto s = decode_sgns_adjust(store, request, buffers_.batch, buffers_.floats); !s)
    return failure{s.why()};
  return run_sgns_adjust(store, buffers_.batch, buffers_.floats.data(), buffers_);
}

status column_lane::decode_step(const std::vector<wire_bytes>& adjusts, const std::vector<wire_bytes>& dotprods) {
  const auto& store = shard_->store();
  if (adjust_batches_.size() < adjusts.size()) {
    adjust_batches_.resize(adjusts.size());
    adjust_weights_.resize(adjusts.size());
  }
  if (dotprod_batches_.size() < dotprods.size())
    dotprod_batches_.resize(dotprods.size());
  for (size_t i = 0; i < adjusts.size(); ++i)
    if (auto s = decode_sgns_adjust(store, adjusts[i], adjust_batches_[i], adjust_weights_[i]); !s)
      return s;
  for (size_t i = 0; i < dotprods.size(); ++i)
    if (auto s = decode_sgns_dotprod(store, dotprods[i], dotprod_batches_[i]); !s)
      return s;
  return {};
}

expected<std::vector<wire_bytes>> column_lane::step(const std::vector<wire_bytes>& adjusts,
                                                    const std::vector<wire_bytes>& dotprods) {
  shard_->count_requests(adjusts.size() + dotprods.size());
  if (auto s = decode_step(adjusts, dotprods); !s)
    return failure{s.why()};
  auto& store = shard_->store();
  for (size_t i = 0; i < adjusts.size(); ++i)
    apply_sgns_adjust(store, adjust_batches_[i], adjust_weights_[i].data(), buffers_);
  std::vector<wire_bytes> replies;
  replies.reserve(dotprods.size());
  for (size_t i = 0; i < dotprods.size(); ++i)
    replies.push_back(run_sgns_dotprod(store, dotprod_batches_[i], buffers_));
  return replies;
}

} // namespace gridvec
