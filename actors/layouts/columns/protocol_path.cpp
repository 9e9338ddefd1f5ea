// The protocol path (the Network-efficient word2vec paper, Figures 5-7): groups of minibatches go to
// every shard as `step` messages (the adjusts of the group before, the
// dotprods of this one); the replies' partial dot products become weights
// (src/sgns/sgns.hpp) that go back as the next step's adjusts. Every
// cluster trains this way, and `gridvec train --fused 0`.
#include "actors/layouts/columns/columns.hpp"

#include "actors/learner/learner_state.hpp"
#include "src/sgns/column_step.hpp"

namespace gridvec::learner {

namespace {

using group_ptr = std::shared_ptr<batch_group>;

// Every shard has applied the group's adjusts.
void retire_group(learner_state& st, const batch_group& g) {
  for (const auto& b : g.batches)
    st.source->retire(*b);
}

// Up to `coalesce` new minibatches, entered in the in-flight window.
group_ptr next_group(learner_state& st, size_t releasing, status& read) {
  auto g = std::make_shared<batch_group>();
  g->generation = st.generation;
  while (g->batches.size() < st.cfg.coalesce) {
    auto b = st.next_batch(releasing, read);
    if (!b)
      break;
    g->batches.push_back(std::move(b));
  }
  return g;
}

class protocol_path final : public training_path {
public:
  explicit protocol_path(const learner_config& cfg) : step_(cfg.refresh_weights ? cfg.in_flight * cfg.learners : 0) {}

  status bind(learner_ptr self) override {
    lanes_ = lanes_as<column_shard_actor>(self->state.shards);
    return {};
  }

  void pump(learner_ptr self) override {
    auto& st = self->state;
    status read;
    for (auto g = next_group(st, 0, read); !g->batches.empty(); g = next_group(st, 0, read))
      send_step(self, g, nullptr, {});
    if (!read) {
      fail(self, read.error());
      return;
    }
    pump_settled(self);
  }

private:
  void send_adjusts(learner_ptr self, const group_ptr& g, const std::vector<wire_bytes>& adjusts);
  void finish_dotprods(learner_ptr self, const group_ptr& g);
  void send_step(learner_ptr self, const group_ptr& next, const group_ptr& done, std::vector<wire_bytes> adjusts);

  std::vector<column_shard_actor> lanes_;
  column_step step_; // the weights of the minibatches in flight (src/sgns/column_step.hpp)
};

// The adjusts of a group with no successor (the end of the work or a pause
// point), each as an `adjust` message of its own; `g` is retired once every
// shard has applied all of them.
void protocol_path::send_adjusts(learner_ptr self, const group_ptr& g, const std::vector<wire_bytes>& adjusts) {
  auto& st = self->state;
  g->pending = lanes_.size() * adjusts.size();
  for (auto& shard : lanes_) {
    for (const auto& request : adjusts) {
      st.unreported.wire.add(message_kind::adjust_request, request.size());
      self->request(shard, caf::infinite, adjust_atom::value, request)
        .then(
          [self, g](const wire_bytes& reply) {
            auto& st = self->state;
            if (g->generation != st.generation)
              return;
            st.unreported.wire.add(message_kind::adjust_reply, reply.size());
            if (--g->pending > 0)
              return;
            retire_group(st, *g);
            learner::pump(self);
          },
          [self, generation = g->generation](caf::error& err) { on_shard_error(self, generation, err); });
    }
  }
}

// Every shard has answered the dotprods of `g`: turns the summed dot
// products into weights and sends them back as adjusts, together with the
// dotprods of the group that takes its place in the window.
void protocol_path::finish_dotprods(learner_ptr self, const group_ptr& g) {
  auto& st = self->state;
  std::vector<wire_bytes> adjusts;
  adjusts.reserve(g->batches.size());
  for (const auto& b : g->batches) {
    const float alpha = st.source->alpha_for(*b);
    weight_result w;
    auto request = step_.adjust(*b, alpha, w);
    if (!count_weights(self, w, alpha))
      return;
    adjusts.push_back(std::move(request));
  }
  // `g` leaves the window when these adjusts are done, so its successors
  // may be formed now and ride in the same message.
  status read;
  auto next = next_group(st, g->batches.size(), read);
  if (!read) {
    fail(self, read.error());
    return;
  }
  if (next->batches.empty())
    send_adjusts(self, g, adjusts);
  else
    send_step(self, next, g, std::move(adjusts));
}

// Sends one step to every shard: the adjusts of `done` (if any), then the
// dotprods of `next`. The reply holds the dot products of `next`; once
// every shard has sent it, `done` is retired.
void protocol_path::send_step(learner_ptr self, const group_ptr& next, const group_ptr& done,
                              std::vector<wire_bytes> adjusts) {
  auto& st = self->state;
  std::vector<wire_bytes> dotprods = step_.dotprods(*next);
  uint64_t dotprod_bytes = 0, adjust_bytes = 0;
  for (const auto& d : dotprods)
    dotprod_bytes += d.size();
  for (const auto& a : adjusts)
    adjust_bytes += a.size();
  next->pending = lanes_.size();
  auto on_reply = [this, self, next, done](const std::vector<wire_bytes>& replies) {
    auto& st = self->state;
    if (next->generation != st.generation)
      return;
    if (auto s = step_.add_replies(*next, replies); !s) {
      fail(self, s.error());
      return;
    }
    uint64_t bytes = 0;
    for (const auto& r : replies)
      bytes += r.size();
    st.unreported.wire.add(message_kind::dotprod_reply, bytes);
    if (--next->pending > 0)
      return;
    if (done)
      retire_group(st, *done);
    finish_dotprods(self, next);
    if (done)
      learner::pump(self);
  };
  const uint64_t generation = next->generation;
  auto on_error = [self, generation](caf::error& err) { on_shard_error(self, generation, err); };
  for (size_t s = 0; s < lanes_.size(); ++s) {
    st.unreported.wire.add(message_kind::dotprod_request, dotprod_bytes);
    st.unreported.wire.add_part(message_kind::adjust_request, adjust_bytes);
    // Each request copies its arguments into a message: the last one takes
    // the buffers instead (a copy of every byte of the step saved).
    if (s + 1 < lanes_.size())
      self->request(lanes_[s], caf::infinite, step_atom::value, adjusts, dotprods).then(on_reply, on_error);
    else
      self->request(lanes_[s], caf::infinite, step_atom::value, std::move(adjusts), std::move(dotprods))
        .then(on_reply, on_error);
  }
}

} // namespace

std::unique_ptr<training_path> make_protocol_path(const learner_state& st) {
  return std::make_unique<protocol_path>(st.cfg);
}

} // namespace gridvec::learner
