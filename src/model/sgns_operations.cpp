#include "src/model/sgns_operations.hpp"

#include "src/formats/wire.hpp"

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
               kept && kept->partials.size() == kept->targets.size() ? kept->partials.data() : nullptr);
}

wire_bytes run_sgns_adjust(shard_store& store, const minibatch& mb, const float* weights, sgns_buffers& b) {
  apply_sgns_adjust(store, mb, weights, b);
  return encode_adjust_reply(store.model()->shard(), static_cast<uint32_t>(mb.pairs()));
}

} // namespace gridvec
