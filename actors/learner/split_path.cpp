// The word split's path (--partition words with several shards, the Distributed negative sampling paper):
// each shard holds the whole rows of its words, so a minibatch goes, split
// by the owner of each example's input word, to those shards only (word ids
// and the seed); each of them trains its share through the exchange with
// the others (actors/shard/row_exchange.hpp) and answers with the loss. A
// minibatch leaves the window once every share has been answered.
#include "actors/learner/learner_state.hpp"

#include <spdlog/spdlog.h>

#include "src/formats/split_wire.hpp"

namespace gridvec::learner {

namespace {

struct split_in_flight {
  batch_ptr batch;
  size_t pending = 0;
  weight_result total;
  float alpha = 0;
};

void send_shares(learner_ptr self, const batch_ptr& b) {
  auto& st = self->state;
  const word_layout layout{static_cast<uint32_t>(st.row_lanes.size())};
  auto flight = std::make_shared<split_in_flight>();
  flight->batch = b;
  flight->alpha = st.source->alpha_for(*b);
  auto shares = split_by_source(b->mb, layout);
  for (uint32_t k = 0; k < layout.partitions; ++k)
    if (!shares[k].inputs.empty())
      ++flight->pending;
  const uint64_t generation = b->generation;
  for (uint32_t k = 0; k < layout.partitions; ++k) {
    if (shares[k].inputs.empty())
      continue;
    auto request = encode_split_train_request(
      shares[k], flight->alpha, st.cfg.visits_per_skipgram ? visit_grouping::skipgram : visit_grouping::example);
    st.unreported.wire.add(message_kind::split_train_request, request.size());
    self->request(st.row_lanes[k], caf::infinite, split_train_atom::value, request)
      .then(
        [self, flight](const wire_bytes& bytes) {
          auto& st = self->state;
          if (flight->batch->generation != st.generation)
            return;
          split_train_result r;
          if (auto s = decode_split_train_reply(bytes, r); !s) {
            fail(self, s.error());
            return;
          }
          st.unreported.wire.add(message_kind::split_train_reply, bytes.size());
          // The shards' batches to each other: counted here, where the
          // report is made, as the message kind of the exchange.
          const auto kind = static_cast<size_t>(message_kind::word_split_batch);
          st.unreported.wire.messages[kind] += r.batches;
          st.unreported.wire.bytes[kind] += r.batch_bytes;
          flight->total.loss += r.weights.loss;
          flight->total.pairs += r.weights.pairs;
          flight->total.diverged |= r.weights.diverged;
          if (--flight->pending > 0)
            return;
          if (!count_weights(self, flight->total, flight->alpha))
            return;
          retire_batch(st, *flight->batch);
          pump(self);
        },
        [self, generation](caf::error& err) { on_shard_error(self, generation, err); });
  }
}

} // namespace

void split_pump(learner_ptr self) {
  auto& st = self->state;
  status read;
  while (auto b = next_batch(st, 0, read)) {
    st.in_flight.push_back(b);
    send_shares(self, b);
  }
  if (!read) {
    fail(self, read.error());
    return;
  }
  pump_settled(self);
}

} // namespace gridvec::learner
