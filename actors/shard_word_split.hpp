#pragma once
// (Internal to actors/shard_actor.cpp.) A shard of --partition words: the
// whole rows of its words (src/model/shard_store.hpp, word_rows), and its
// side of the Distributed negative sampling paper's exchange (src/model/word_split.hpp):
//   as a source, a learner's examples whose input words it owns: it plans
//   the visits, trains the visit to itself at once, sends each other shard
//   its batch (the input vectors), and adds the gradients as they come back;
//   the learner hears once every peer has answered;
//   as a peer, a batch from a source: trained against its output rows, the
//   inputs' gradients sent back.
// The lanes of a shard share this (Hogwild, as the rows themselves).
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>
#include "src/formats/split_wire.hpp"
#include "src/model/shard_store.hpp"
#include "src/model/word_split.hpp"

namespace gridvec {

/// A visit not answered within this long fails the learner's request (the
/// peer is lost; the coordinator restores it and rolls the job back).
inline constexpr auto visit_timeout = std::chrono::seconds(60);

struct word_split_part {
  word_split_part(shard_store& store, const std::vector<uint64_t>& counts, negatives_mode mode);

  uint32_t index() const { return rows.index(); }
  uint32_t partitions() const { return layout.partitions; }
  /// The peers, by partition; empty until the coordinator has sent them.
  /// A snapshot: a restore replaces it whole while requests use the old.
  std::shared_ptr<const std::vector<shard_actor>> peers() const;
  status set_peers(const std::vector<caf::actor>& all);

  /// Checks a learner's share before anything is trained: skip-gram with
  /// noise words, every input word this shard's, every output in the
  /// vocabulary.
  status check_share(const minibatch& mb) const;
  /// The peer's side, whole: decodes, checks, trains, encodes the reply.
  expected<wire_bytes> serve(const wire_bytes& request);
  /// Rows layout answers of the queries (include/gridvec/protocol.hpp).
  std::vector<float> norms(const std::vector<uint32_t>& words) const;
  expected<std::vector<float>> similar(const wire_bytes& query) const;

  word_layout layout;
  partition_rows rows;      // a view of the store's rows
  hierarchical_sampler own; // the partitions' masses, and this one's words
  negatives_mode mode;
  uint32_t vocab;

private:
  mutable std::mutex peers_mutex_;
  std::shared_ptr<const std::vector<shard_actor>> peers_ = std::make_shared<const std::vector<shard_actor>>();
};

namespace split_detail {

// One learner request in progress at its source.
struct share_in_progress {
  std::vector<visit_batch> batches; // sent to peers, by reply slot
  split_train_result result;
  size_t pending = 0;
  bool failed = false;
};

} // namespace split_detail

/// The source's side of a learner's `splittrain` request; `Self` is a lane
/// (an actor or a broker).
template <class Self>
caf::result<wire_bytes> train_share(Self self, const std::shared_ptr<word_split_part>& shared,
                                    const wire_bytes& request) {
  word_split_part& part = *shared;
  minibatch mb;
  visit_grouping grouping = visit_grouping::example;
  if (auto s = decode_split_train_request(request, mb, grouping); !s)
    return make_job_error(s.error());
  if (auto s = part.check_share(mb); !s)
    return make_job_error(s.error());
  const auto peers = part.peers();
  if (peers->size() != part.partitions())
    return make_job_error("shard " + std::to_string(part.index()) + " has not been told its peers");
  const uint32_t k = part.index(), p = part.partitions(), d = part.rows.dim();
  rng r(plan_seed(mb.seed, k));
  auto plan = plan_visits(mb, k, part.layout, part.mode, part.own, r, grouping);
  if (!plan)
    return make_job_error(plan.error());
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
    const auto w = serve_visits(part.rows, part.own, *own_batch, own_inputs.data(), gradients.data(),
                                visit_seed(mb.seed, k, k, p), mb.alpha);
    share->result.weights.loss += w.loss;
    share->result.weights.pairs += w.pairs;
    share->result.weights.diverged |= w.diverged;
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
          auto& result = share->result;
          result.weights.loss += w.loss;
          result.weights.pairs += w.pairs;
          result.weights.diverged |= w.diverged;
          result.batch_bytes += reply.size();
          if (--share->pending == 0)
            rp.deliver(encode_split_train_reply(result));
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
