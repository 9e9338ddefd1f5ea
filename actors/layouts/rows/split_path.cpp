// The word split's path (--partition words with several shards, the Distributed negative sampling paper):
// each shard holds the whole rows of its words, so a minibatch goes, split
// by the owner of each example's input word, to those shards only (word ids
// and the seed); each of them trains its share through the exchange with
// the others (row_exchange.hpp) and answers with the loss. A
// minibatch leaves the window once every share has been answered.
#include "actors/layouts/rows/rows.hpp"

#include "actors/learner/learner_state.hpp"
#include "src/formats/split_wire.hpp"

namespace gridvec::learner {

namespace {

struct split_in_flight {
  batch_ptr batch;
  size_t pending = 0;
  weight_result total;
  float alpha = 0;
};

class split_path final : public training_path {
public:
  status bind(learner_ptr self) override {
    lanes_ = lanes_as<row_shard_actor>(self->state.shards);
    return {};
  }

  void pump(learner_ptr self) override {
    auto& st = self->state;
    status read;
    while (auto b = st.next_batch(0, read)) {
      send_shares(self, b);
    }
    if (!read) {
      fail(self, read.error());
      return;
    }
    pump_settled(self);
  }

private:
  void send_shares(learner_ptr self, const batch_ptr& b);

  std::vector<row_shard_actor> lanes_;
};

void split_path::send_shares(learner_ptr self, const batch_ptr& b) {
  auto& st = self->state;
  const word_layout layout{static_cast<uint32_t>(lanes_.size())};
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
    self->request(lanes_[k], caf::infinite, split_train_atom::value, request)
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
          st.source->retire(*flight->batch);
          learner::pump(self);
        },
        [self, generation](caf::error& err) { on_shard_error(self, generation, err); });
  }
}

} // namespace

std::unique_ptr<training_path> make_split_path(const learner_state&) { return std::make_unique<split_path>(); }

} // namespace gridvec::learner
