#include "actors/learner_actor.hpp"

#include <chrono>
#include <optional>

#include "actors/local_lanes.hpp"
#include "src/id_stream.hpp"
#include "src/local_trainer.hpp"
#include "src/sgns.hpp"
#include "src/text_corpus.hpp"

namespace gridvec {

namespace {

using clock = std::chrono::steady_clock;

// A shard that does not answer within this long is taken as lost. Requests
// carry no CAF timeout of their own: each would leave an entry in the actor
// clock until it expires (CAF 0.17), millions of them on a fast run. One
// watchdog tick a second checks the time since the last reply instead.
constexpr auto shard_timeout = std::chrono::seconds(120);
constexpr auto watchdog_interval = std::chrono::seconds(1);
constexpr auto report_interval = std::chrono::milliseconds(200);
// The fused path trains for at most this long before it lets the mailbox in.
constexpr auto fused_slice = std::chrono::milliseconds(5);

/// One minibatch between its dotprod and the last adjust reply.
struct batch_state {
  minibatch mb;
  std::vector<float> sum; // summed partial dot products
  size_t pending = 0;     // shard replies still expected
  uint64_t processed = 0; // corpus words consumed to form it
  uint64_t trained = 0;   // input words it trains
};

struct learner_state {
  learner_config cfg;
  vocabulary_ptr vocab;
  std::unique_ptr<subsampler> sampler;
  std::vector<shard_actor> shards;
  coordinator_actor coordinator;

  std::optional<id_reader> reader;
  std::string ids_path;
  uint64_t part_words = 0; // in-vocabulary words of this learner's part
  std::unique_ptr<rng> random;
  std::unique_ptr<example_builder> builder;

  // Position in the corpus.
  uint32_t epoch = 0;
  std::vector<uint32_t> raw_sentence;
  std::vector<uint32_t> sentence; // after subsampling
  size_t position = 0;
  uint64_t processed_words = 0;   // all epochs so far
  bool input_done = false;

  size_t in_flight = 0;
  bool failed = false;
  caf::typed_response_promise<learner_progress> done;
  learner_progress totals;
  learner_progress unreported;
  clock::time_point last_report;
  clock::time_point last_reply;
  std::vector<float> weights;

  // Set when every shard lane is in this process (fused_pump).
  std::unique_ptr<local_trainer> fused;
  batch_state fused_batch;

  static inline const char* name = "learner";
};

using learner_ptr = learner_actor::stateful_pointer<learner_state>;

status preprocess(learner_state& st, const std::string& corpus, byte_range range,
                  const std::string& ids_path) {
  auto writer = id_writer::create(ids_path);
  if (!writer)
    return failure{writer.error()};
  corpus_scanner scanner{corpus};
  const vocabulary& vocab = *st.vocab;
  auto s = scanner.scan(
    range,
    [&](std::string_view w) {
      uint32_t id = vocab.id_of(w);
      if (id != vocabulary::npos)
        writer->add(id);
    },
    [&] { writer->end_sentence(); });
  if (!s)
    return s;
  st.part_words = writer->words();
  return writer->close();
}

// Reads the next sentence, moving to the next epoch at the end of the part.
bool load_sentence(learner_state& st) {
  for (;;) {
    if (!st.reader->next_sentence(st.raw_sentence)) {
      if (++st.epoch >= st.cfg.iterations)
        return false;
      st.reader->rewind();
      continue;
    }
    st.processed_words += st.raw_sentence.size();
    st.sentence.clear();
    for (uint32_t w : st.raw_sentence)
      if ((st.random->next() >> 32) < st.sampler->threshold(w))
        st.sentence.push_back(w);
    st.position = 0;
    return true;
  }
}

// Fills the next minibatch; false when every epoch is done.
bool fill(learner_state& st, batch_state& b) {
  minibatch& mb = b.mb;
  mb.clear();
  mb.seed = st.random->next();
  mb.negatives = st.cfg.negatives;
  mb.mean_inputs = st.cfg.cbow;
  const uint64_t before = st.processed_words;
  while (mb.examples() < st.cfg.minibatch_words) {
    if (st.position >= st.sentence.size()) {
      if (!load_sentence(st))
        break;
      continue;
    }
    if (st.builder->add(st.sentence, st.position, *st.random, mb))
      ++b.trained;
    ++st.position;
  }
  b.processed = st.processed_words - before;
  return mb.examples() > 0 || b.processed > 0;
}

void report(learner_ptr self, bool force) {
  auto& st = self->state;
  auto now = clock::now();
  if (!force && now - st.last_report < report_interval)
    return;
  st.last_report = now;
  self->send(st.coordinator, progress_atom::value, st.cfg.id, st.unreported);
  st.unreported = learner_progress{};
}

void fail(learner_ptr self, caf::error err) {
  auto& st = self->state;
  if (st.failed)
    return;
  st.failed = true;
  st.done.deliver(std::move(err));
}

void pump(learner_ptr self);

void finish_batch(learner_ptr self, const std::shared_ptr<batch_state>& b) {
  auto& st = self->state;
  --st.in_flight;
  learner_progress delta;
  delta.processed_words = b->processed;
  delta.trained_words = b->trained;
  delta.pairs = b->mb.pairs();
  st.unreported.merge(delta);
  st.totals.merge(delta);
  pump(self);
}

void send_adjust(learner_ptr self, const std::shared_ptr<batch_state>& b) {
  auto& st = self->state;
  const float alpha = learning_rate(st.cfg.start_alpha, st.processed_words,
                                    uint64_t{st.cfg.iterations} * st.part_words);
  st.weights.resize(b->sum.size());
  auto w = compute_weights(b->sum.data(), b->mb.pairs(), b->mb.negatives, alpha, st.weights.data());
  for (auto* p : {&st.unreported, &st.totals}) {
    p->loss_sum += w.loss;
    p->loss_pairs += w.pairs;
    p->alpha = alpha;
  }
  wire_bytes request = encode_adjust_request(b->mb, st.weights.data(), st.weights.size());
  b->pending = st.shards.size();
  for (auto& shard : st.shards) {
    st.unreported.wire.add(message_kind::adjust_request, request.size());
    st.totals.wire.add(message_kind::adjust_request, request.size());
    self->request(shard, caf::infinite, adjust_atom::value, request)
      .then(
        [self, b](const wire_bytes& reply) {
          auto& st = self->state;
          st.last_reply = clock::now();
          st.unreported.wire.add(message_kind::adjust_reply, reply.size());
          st.totals.wire.add(message_kind::adjust_reply, reply.size());
          if (--b->pending == 0 && !st.failed)
            finish_batch(self, b);
        },
        [self](caf::error& err) { fail(self, std::move(err)); });
  }
}

void send_dotprod(learner_ptr self, std::shared_ptr<batch_state> b) {
  auto& st = self->state;
  ++st.in_flight;
  if (b->mb.pairs() == 0) { // only unpaired single words: nothing to send
    finish_batch(self, b);
    return;
  }
  wire_bytes request = encode_dotprod_request(b->mb);
  b->sum.assign(b->mb.dot_count(), 0.0f);
  b->pending = st.shards.size();
  for (auto& shard : st.shards) {
    st.unreported.wire.add(message_kind::dotprod_request, request.size());
    st.totals.wire.add(message_kind::dotprod_request, request.size());
    self->request(shard, caf::infinite, dotprod_atom::value, request)
      .then(
        [self, b](const wire_bytes& reply) {
          auto& st = self->state;
          if (st.failed)
            return;
          st.last_reply = clock::now();
          st.unreported.wire.add(message_kind::dotprod_reply, reply.size());
          st.totals.wire.add(message_kind::dotprod_reply, reply.size());
          if (auto s = accumulate_dotprod_reply(reply, b->sum); !s) {
            fail(self, make_job_error(s.error()));
            return;
          }
          if (--b->pending == 0)
            send_adjust(self, b);
        },
        [self](caf::error& err) { fail(self, std::move(err)); });
  }
}

void pump(learner_ptr self) {
  auto& st = self->state;
  if (st.failed)
    return;
  while (st.in_flight < st.cfg.in_flight && !st.input_done) {
    auto b = std::make_shared<batch_state>();
    if (!fill(st, *b)) {
      st.input_done = true;
      break;
    }
    send_dotprod(self, std::move(b));
    if (st.failed)
      return;
  }
  report(self, false);
  if (st.input_done && st.in_flight == 0) {
    report(self, true);
    st.done.deliver(st.totals);
  }
}

// The fused path (src/local_trainer.hpp): when every shard lane lives in
// this process, minibatches are trained right here on the shards' stores,
// no messages. It works in slices of fused_slice, each ended by a tick to
// itself, so the mailbox (exit, control messages) is served in between.
bool start_fused(learner_ptr self) {
  auto& st = self->state;
  auto stores = find_local_stores(st.shards);
  if (stores.empty())
    return false;
  st.fused = std::make_unique<local_trainer>(std::move(stores), local_shards::fusion().shared_negatives);
  self->send(self, tick_atom::value);
  return true;
}

void fused_pump(learner_ptr self) {
  auto& st = self->state;
  if (st.failed)
    return;
  const auto until = clock::now() + fused_slice;
  while (!st.input_done) {
    batch_state& b = st.fused_batch;
    b.trained = 0;
    if (!fill(st, b)) {
      st.input_done = true;
      break;
    }
    const float alpha = learning_rate(st.cfg.start_alpha, st.processed_words,
                                      uint64_t{st.cfg.iterations} * st.part_words);
    auto w = st.fused->train(b.mb, alpha);
    for (auto* p : {&st.unreported, &st.totals}) {
      p->processed_words += b.processed;
      p->trained_words += b.trained;
      p->pairs += b.mb.pairs();
      p->loss_sum += w.loss;
      p->loss_pairs += w.pairs;
      p->alpha = alpha;
    }
    if (clock::now() >= until) {
      report(self, false);
      self->send(self, tick_atom::value);
      return;
    }
  }
  report(self, true);
  st.done.deliver(st.totals);
}

learner_actor::behavior_type learner_behavior(learner_ptr self, learner_config cfg,
                                              vocabulary_ptr vocab, std::vector<shard_actor> shards,
                                              coordinator_actor coordinator) {
  auto& st = self->state;
  st.cfg = cfg;
  st.vocab = std::move(vocab);
  st.shards = std::move(shards);
  st.coordinator = std::move(coordinator);
  st.random = std::make_unique<rng>(mix64(cfg.seed, 0x1EA27E5ull + cfg.id));
  st.builder = std::make_unique<example_builder>(cfg.window, cfg.cbow);
  st.sampler = std::make_unique<subsampler>(*st.vocab, cfg.sample);
  return {
    [self](preprocess_atom, const std::string& corpus, uint64_t begin, uint64_t end,
           const std::string& ids_path) -> caf::result<uint64_t> {
      auto& st = self->state;
      if (auto s = preprocess(st, corpus, {begin, end}, ids_path); !s)
        return make_job_error(s.error());
      auto reader = id_reader::open(ids_path);
      if (!reader)
        return make_job_error(reader.error());
      st.reader.emplace(std::move(*reader));
      st.ids_path = ids_path;
      return st.part_words;
    },
    [self](train_atom) -> caf::result<learner_progress> {
      auto& st = self->state;
      if (!st.reader)
        return make_job_error("learner " + std::to_string(st.cfg.id) + " was asked to train before preprocessing");
      st.done = self->make_response_promise<learner_progress>();
      st.last_report = st.last_reply = clock::now();
      if (st.part_words == 0)
        st.input_done = true; // an empty part: nothing to train
      if (start_fused(self))
        return st.done;
      self->delayed_send(self, watchdog_interval, tick_atom::value);
      pump(self);
      return st.done;
    },
    [self](tick_atom) {
      auto& st = self->state;
      if (st.fused) { // no shard to wait for: a tick continues training
        fused_pump(self);
        return;
      }
      if (st.failed || (st.input_done && st.in_flight == 0))
        return;
      if (st.in_flight > 0 && clock::now() - st.last_reply > shard_timeout) {
        fail(self, make_job_error("learner " + std::to_string(st.cfg.id) +
                                  ": no shard answered for 120 s"));
        return;
      }
      self->delayed_send(self, watchdog_interval, tick_atom::value);
    },
  };
}

} // namespace

learner_actor spawn_learner(caf::actor_system& sys, learner_config config, vocabulary_ptr vocab,
                            std::vector<shard_actor> shards, coordinator_actor coordinator) {
  return sys.spawn(learner_behavior, config, std::move(vocab), std::move(shards),
                   std::move(coordinator));
}

} // namespace gridvec
