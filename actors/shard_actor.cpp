#include "actors/shard_actor.hpp"

#include "actors/local_lanes.hpp"

namespace gridvec {

namespace {

struct lane_state {
  uint32_t index = 0;
  std::shared_ptr<shard_store> store;
  std::unique_ptr<adjust_scratch> scratch;
  // Decode buffers, reused across calls.
  minibatch batch;
  std::vector<float> floats;
  std::vector<float> hidden;
  static inline const char* name = "shard";
};

shard_actor::behavior_type lane_behavior(shard_actor::stateful_pointer<lane_state> self,
                                         uint32_t index, std::shared_ptr<shard_store> store) {
  auto& st = self->state;
  st.index = index;
  st.scratch = std::make_unique<adjust_scratch>(store->slice().width);
  st.store = std::move(store);
  return {
    [self](dotprod_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
      auto& st = self->state;
      if (auto s = decode_dotprod_request(request, st.batch); !s)
        return make_job_error(s.error());
      if (auto s = st.store->validate(st.batch); !s)
        return make_job_error(s.error());
      st.floats.resize(st.batch.dot_count());
      st.store->dotprod(st.batch, st.floats.data(), st.hidden);
      return encode_dotprod_reply(st.index, st.floats.data(), st.floats.size());
    },
    [self](adjust_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
      auto& st = self->state;
      if (auto s = decode_adjust_request(request, st.batch, st.floats); !s)
        return make_job_error(s.error());
      if (auto s = st.store->validate(st.batch); !s)
        return make_job_error(s.error());
      if (st.floats.size() != st.batch.dot_count())
        return make_job_error("adjust request has " + std::to_string(st.floats.size()) +
                              " weights for " + std::to_string(st.batch.dot_count()) +
                              " dot products");
      st.store->adjust(st.batch, st.floats.data(), *st.scratch);
      return encode_adjust_reply(st.index, static_cast<uint32_t>(st.batch.pairs()));
    },
    [self](rows_atom, uint32_t begin, uint32_t end) -> caf::result<wire_bytes> {
      auto& st = self->state;
      if (begin > end || end > st.store->vocab_size())
        return make_job_error("rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                              ") are outside the vocabulary");
      wire_bytes out(size_t{end - begin} * st.store->slice().width * sizeof(float));
      st.store->read_input_rows(begin, end, reinterpret_cast<float*>(out.data()));
      return out;
    },
  };
}

} // namespace

shard_actor spawn_shard_lane(caf::actor_system& sys, uint32_t index,
                             std::shared_ptr<shard_store> store) {
  auto lane = sys.spawn(lane_behavior, index, store);
  register_local_lane(lane, store); // learners of this process may train on it directly
  return lane;
}

shard_info spawn_shard(caf::actor_system& sys, uint32_t index, uint32_t count, uint32_t dim,
                       const vocabulary& vocab, uint64_t seed,
                       std::shared_ptr<const alias_sampler> noise, uint32_t lanes) {
  shard_info h;
  h.index = index;
  auto slice = column_slice::of(index, count, dim);
  h.first = slice.first;
  h.width = slice.width;
  auto store = std::make_shared<shard_store>(slice, dim, vocab.size(), seed, std::move(noise));
  for (uint32_t i = 0; i < lanes; ++i)
    h.lanes.push_back(spawn_shard_lane(sys, index, store));
  return h;
}

} // namespace gridvec
