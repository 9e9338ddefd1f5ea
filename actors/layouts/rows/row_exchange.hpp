#pragma once
// (Internal to actors/layouts/rows/row_shard.cpp.) The sending half of the word
// split's exchange (src/shard/row_service.hpp does the training): whom a
// rows-layout shard's visits go to, and the source's side of a learner's
// `splittrain` request -- plan the visits, train the visit to itself, send
// each other shard its batch, add the gradients as they come back, and
// answer the learner once every peer has.
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>
#include "src/formats/split_wire.hpp"
#include "src/shard/row_service.hpp"

namespace gridvec {

/// A visit not answered within this long fails the learner's request (the
/// peer is lost; the coordinator restores it and rolls the job back).
inline constexpr auto visit_timeout = std::chrono::seconds(60);

/// The peers, by partition, shared by the lanes of a shard; empty until
/// the coordinator has sent them. A snapshot: a restore replaces it whole
/// while requests in progress use the old one.
class row_peers {
public:
  std::shared_ptr<const std::vector<row_shard_actor>> get() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return peers_;
  }
  status set(const std::vector<caf::actor>& all, uint32_t partitions) {
    if (all.size() != partitions)
      return failure{"peers: " + std::to_string(all.size()) + " shards for a job of " + std::to_string(partitions)};
    std::vector<row_shard_actor> typed;
    for (const auto& a : all) {
      if (!a)
        return failure{"peers: a shard is missing"};
      typed.push_back(caf::actor_cast<row_shard_actor>(a));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    peers_ = std::make_shared<const std::vector<row_shard_actor>>(std::move(typed));
    return {};
  }

private:
  mutable std::mutex mutex_;
  std::shared_ptr<const std::vector<row_shard_actor>> peers_ = std::make_shared<const std::vector<row_shard_actor>>();
};

namespace split_detail {

// One learner request in progress at its source.
struct share_in_progress {
  std::vector<visit_batch> batches; // sent to peers, by reply slot
  split_train_result result;
  size_t pending = 0;
  bool failed = false;
};

inline void add_weights(split_train_result& result, const weight_result& w) {
  result.weights.loss += w.loss;
  result.weights.pairs += w.pairs;
  result.weights.diverged |= w.diverged;
}

} // namespace split_detail

/// The source's side of a learner's `splittrain` request; `Self` is a lane
/// (an actor or a broker).
template <class Self>
caf::result<wire_bytes> train_share(Self self, const std::shared_ptr<row_service>& shared, const row_peers& known,
                                    const wire_bytes& request) {
  row_service& part = *shared;
  part.count_requests(1);
  minibatch mb;
  visit_grouping grouping = visit_grouping::example;
  if (auto s = decode_split_train_request(request, mb, grouping); !s)
    return make_job_error(s.why());
  if (auto s = part.check_share(mb); !s)
    return make_job_error(s.why());
  const auto peers = known.get();
  if (peers->size() != part.partitions())
    return make_job_error("shard " + std::to_string(part.index()) + " has not been told its peers");
  const uint32_t k = part.index(), p = part.partitions(), d = part.rows.dim();
  rng r(plan_seed(mb.seed, k));
  auto plan = plan_visits(mb, k, part.layout, part.mode, part.own, r, grouping);
  if (!plan)
    return make_job_error(plan.why());
  auto share = std::make_shared<split_detail::share_in_progress>();
  share->result.shard = k;
  // Every batch carries the input vectors as they are now; the visit to
  // this shard itself is trained once the others are on their way.
  std::vector<float> inputs, own_inputs, gradients;
  std::optional<visit_batch> own_batch;
  std::vector<std::pair<uint32_t, wire_bytes>> outgoing; // (peer, batch)
  for (auto& batch : *plan) {
    if (batch.peer == k) {
      gather_inputs(part.rows, batch, own_inputs);
      own_batch = std::move(batch);
      continue;
    }
    gather_inputs(part.rows, batch, inputs);
    const uint64_t seed = visit_seed(mb.seed, k, batch.peer, p);
    outgoing.emplace_back(batch.peer, encode_visit_batch(batch, seed, mb.alpha, k, inputs.data(), d));
    share->result.batches += 1;
    share->result.batch_bytes += outgoing.back().second.size();
    share->batches.push_back(std::move(batch));
  }
  if (own_batch) {
    gradients.resize(own_inputs.size());
    split_detail::add_weights(share->result, serve_visits(part.rows, part.own, *own_batch, own_inputs.data(),
                                                          gradients.data(), visit_seed(mb.seed, k, k, p), mb.alpha));
    add_gradients(part.rows, *own_batch, gradients.data());
  }
  if (outgoing.empty())
    return encode_split_train_reply(share->result);
  auto rp = self->template make_response_promise<wire_bytes>();
  share->pending = outgoing.size();
  for (size_t i = 0; i < outgoing.size(); ++i)
    self->request((*peers)[outgoing[i].first], visit_timeout, visit_atom::value, outgoing[i].second)
      .then(
        [share, rp, i, shared](const wire_bytes& reply) mutable {
          if (share->failed)
            return;
          auto& part = *shared;
          const auto& batch = share->batches[i];
          weight_result w;
          std::vector<float> gradients;
          if (auto s = decode_visit_reply(reply, batch.input_words.size() * part.rows.dim(), w, gradients); !s) {
            share->failed = true;
            rp.deliver(make_job_error("shard " + std::to_string(batch.peer) + ": " + s.error()));
            return;
          }
          add_gradients(part.rows, batch, gradients.data());
          split_detail::add_weights(share->result, w);
          share->result.batch_bytes += reply.size();
          if (--share->pending == 0)
            rp.deliver(encode_split_train_reply(share->result));
        },
        [share, rp](caf::error& err) mutable {
          if (share->failed)
            return;
          share->failed = true;
          rp.deliver(std::move(err));
        });
  return rp;
}

} // namespace gridvec
