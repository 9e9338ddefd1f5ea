#include "actors/learner_actor.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <deque>

#include "actors/local_lanes.hpp"
#include "src/corpus/id_stream.hpp"
#include "src/sgns/local_trainer.hpp"
#include "src/corpus/part_walker.hpp"
#include "src/corpus/passage.hpp"
#include "src/sgns/sgns.hpp"
#include "src/corpus/text_corpus.hpp"

namespace gridvec {

namespace {

using clock = std::chrono::steady_clock;
constexpr auto report_interval = std::chrono::milliseconds(200);
constexpr auto sync_timeout = std::chrono::seconds(60);
// The fused path trains for at most this long before it lets the mailbox in
// (pause, status, reports), by sending itself a `run` message.
constexpr auto fused_slice = std::chrono::milliseconds(5);
// An interleaved passage holds about this many words per unit of stride, so
// that each phase of the stride spans more examples than a learner keeps in
// flight by default (10 x 64), and a pause or rollback re-does at most
// 64 x 1024 words.
constexpr uint32_t passage_words_per_stride = 1024;

/// One minibatch between its dotprod and the last adjust reply.
struct batch_state {
  minibatch mb;
  std::vector<float> sum; // summed partial dot products
  uint64_t generation = 0;
  part_cursor start;      // the passage its first example came from
  bool has_start = false;
  uint64_t trained = 0;   // input words it trains
};
using batch_ptr = std::shared_ptr<batch_state>;

//   running --pause--> pausing --(passage done, nothing in flight)--> paused
//   running --shard error--> stalled --halt--> paused --rollback/resume--> running
enum class mode { running, pausing, paused, stalled };

struct learner_state {
  learner_config cfg;
  vocabulary_ptr vocab;
  std::unique_ptr<subsampler> sampler;
  std::vector<shard_actor> shards;
  coordinator_actor coordinator;
  std::unique_ptr<part_walker> walker;
  std::unique_ptr<rng> random;
  std::unique_ptr<example_builder> builder;

  std::vector<uint32_t> raw_sentence;
  std::vector<uint32_t> sentence; // after subsampling
  passage current;                // what is being trained (src/corpus/passage.hpp)
  part_cursor passage_start;      // its part's cursor before its first sentence
  // The passage: sentences until it holds this many words, visited with
  // this stride (1 and 1 with --interleave 1: word2vec.c's order).
  uint32_t passage_words = 1;
  uint32_t stride = 1;

  mode state = mode::paused;      // until work is assigned
  bool ticking = false;
  uint64_t generation = 0;
  std::deque<batch_ptr> in_flight; // in the order they were formed
  std::vector<caf::typed_response_promise<std::vector<part_cursor>>> pause_waiters;
  learner_progress unreported;
  bool reported_idle = false;
  std::vector<float> weights;
  uint64_t trained_total = 0;
  loss_watch losses;
  clock::time_point started = clock::now();

  // The fused path (src/sgns/local_trainer.hpp): set while every shard lane is in
  // this process; minibatches are then trained on the stores directly.
  std::unique_ptr<local_trainer> fused;
  batch_state fused_batch;
  bool fused_scheduled = false; // a `run` message is on its way

  bool mid_sentence() const { return current.pending(); }
  bool idle() const { return !walker->has_work() && !mid_sentence() && in_flight.empty(); }
  static inline const char* name = "learner";
};

using learner_ptr = learner_actor::stateful_pointer<learner_state>;

status preprocess(const vocabulary& vocab, const std::string& corpus, byte_range range,
                  const std::string& ids_path, uint64_t& words) {
  auto writer = id_writer::create(ids_path);
  if (!writer)
    return failure{writer.error()};
  corpus_scanner scanner{corpus};
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
  words = writer->words();
  return writer->close();
}

// Where each part can be restarted without skipping anything: the start of
// the passage of its oldest unfinished minibatch, or of the passage being
// trained, or its read position.
std::vector<part_cursor> safe_cursors(const learner_state& st) {
  std::vector<part_cursor> out(st.walker->parts().begin(), st.walker->parts().end());
  for (auto& c : out) {
    if (st.mid_sentence() && c.part == st.passage_start.part)
      c = st.passage_start;
    for (const auto& b : st.in_flight)
      if (b->has_start && b->start.part == c.part) {
        c = b->start;
        break;
      }
  }
  return out;
}

void report(learner_ptr self, bool force) {
  auto& st = self->state;
  const bool idle = st.idle();
  if (!force && idle && st.reported_idle && st.unreported.pairs == 0)
    return;
  learner_progress p = std::move(st.unreported);
  st.unreported = learner_progress{};
  p.generation = st.generation;
  p.cursors = safe_cursors(st);
  p.idle = idle;
  p.in_flight = static_cast<uint32_t>(st.in_flight.size());
  st.reported_idle = idle;
  self->send(st.coordinator, progress_atom::value, st.cfg.id, std::move(p));
}

void fail(learner_ptr self, const std::string& what) {
  auto& st = self->state;
  spdlog::error("learner {}: {}", st.cfg.id, what);
  self->quit(make_job_error("learner " + std::to_string(st.cfg.id) + ": " + what));
}

// Reads the next passage: whole sentences of the current part and epoch,
// subsampled, until it holds st.passage_words words or the epoch ends.
// Returns false at the end of a part (the passage may still hold words) or
// of the work.
bool read_passage(learner_state& st, status& error) {
  st.current.clear();
  bool first = true;
  for (;;) {
    auto step = st.walker->next(st.raw_sentence, error);
    if (error && step == part_walker::step::epoch_end) {
      if (first)
        continue;
      break;
    }
    if (!error || step != part_walker::step::sentence) {
      st.current.finish(st.stride);
      return false;
    }
    if (first) {
      st.passage_start = st.walker->sentence_start();
      first = false;
    }
    st.sentence.clear();
    for (uint32_t w : st.raw_sentence)
      if ((st.random->next() >> 32) < st.sampler->threshold(w))
        st.sentence.push_back(w);
    st.current.add_sentence(st.sentence);
    if (st.current.words() >= st.passage_words)
      break;
  }
  st.current.finish(st.stride);
  return true;
}

// Fills the next minibatch from the current passage onwards. While pausing
// it does not start a new passage, so that a pause ends on a sentence
// boundary and the cursors are exact.
void fill(learner_state& st, batch_state& b, status& error) {
  minibatch& mb = b.mb;
  mb.clear();
  mb.seed = st.random->next();
  mb.negatives = st.cfg.negatives;
  mb.mean_inputs = st.cfg.cbow;
  while (mb.examples() < st.cfg.minibatch_words) {
    if (!st.mid_sentence()) {
      if (st.state == mode::pausing)
        break;
      const bool more = read_passage(st, error);
      if (!error)
        break;
      if (!st.mid_sentence()) {
        if (!more && (mb.examples() > 0 || !st.walker->has_work()))
          break; // a part ended (a minibatch never mixes parts), or the work
        continue;
      }
      if (mb.examples() > 0 && st.passage_start.part != b.start.part)
        break; // a minibatch never mixes parts: the passage waits for the next
      continue;
    }
    if (!b.has_start) {
      b.start = st.passage_start;
      b.has_start = true;
    }
    auto ex = st.current.next();
    if (st.builder->add(ex.sentence, ex.length, ex.offset, *st.random, mb))
      ++b.trained;
  }
}

void pump(learner_ptr self);

void settle_pause(learner_ptr self) {
  auto& st = self->state;
  if (st.state != mode::pausing || st.mid_sentence() || !st.in_flight.empty())
    return;
  st.state = mode::paused;
  std::vector<part_cursor> cursors(st.walker->parts().begin(), st.walker->parts().end());
  for (auto& rp : st.pause_waiters)
    rp.deliver(cursors);
  st.pause_waiters.clear();
  report(self, true);
}

void count_trained(learner_state& st, const batch_state& b) {
  st.unreported.trained_words += b.trained;
  st.unreported.pairs += b.mb.pairs();
  st.trained_total += b.trained;
}

// Counts a minibatch as trained and forgets it.
void retire_batch(learner_state& st, const batch_state& b) {
  for (auto it = st.in_flight.begin(); it != st.in_flight.end(); ++it)
    if (it->get() == &b) {
      st.in_flight.erase(it);
      break;
    }
  count_trained(st, b);
}

// word2vec's learning rate for a minibatch: decayed linearly with the words
// processed before its first sentence.
float alpha_for(const learner_state& st, const batch_state& b) {
  return learning_rate(st.cfg.start_alpha, b.start.processed, uint64_t{st.cfg.iterations} * b.start.words);
}

// Counts the loss of a minibatch's weights. If its dot products were no
// longer finite or sane, or the loss has grown far above where it started,
// fails the job instead and returns false.
bool count_weights(learner_ptr self, const weight_result& w, float alpha) {
  auto& st = self->state;
  if (w.diverged) {
    fail(self, diverged_text);
    return false;
  }
  if (!st.losses.add(w.loss, w.pairs)) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "training diverged: the loss per pair grew from %.2f at the start to %.2f (try a lower -alpha, "
                  "--minibatch or --in-flight)",
                  st.losses.start(), st.losses.recent());
    fail(self, line);
    return false;
  }
  st.unreported.loss_sum += w.loss;
  st.unreported.loss_pairs += w.pairs;
  st.unreported.alpha = alpha;
  return true;
}

// A shard did not answer. If it is gone the supervisor will restore it and
// the coordinator will halt and roll back this learner; anything else is a
// bug or bad data, and ends the job.
void on_shard_error(learner_ptr self, uint64_t generation, const caf::error& err) {
  auto& st = self->state;
  if (generation != st.generation)
    return; // minibatches forgotten by halt
  if (err.category() == caf::atom("system") && err != caf::sec::runtime_error) {
    if (st.state != mode::stalled)
      spdlog::warn("learner {}: a shard stopped answering ({}); waiting for recovery", st.cfg.id,
                   error_text(err));
    st.state = mode::stalled;
    return;
  }
  fail(self, error_text(err));
}

// Forms the next minibatch to send, or returns nullptr when none may start
// now: not running, the window of in-flight minibatches is full (not
// counting `releasing` ones that end with the message this one will ride
// in), or the pause point or the end of the work is reached. A minibatch of
// words without context has nothing to send and is counted on the spot.
batch_ptr next_batch(learner_state& st, size_t releasing, status& error) {
  while ((st.state == mode::running || st.state == mode::pausing) &&
         st.in_flight.size() - releasing < st.cfg.in_flight) {
    if (st.state == mode::pausing && !st.mid_sentence())
      break;
    if (!st.walker->has_work() && !st.mid_sentence())
      break;
    auto b = std::make_shared<batch_state>();
    b->generation = st.generation;
    fill(st, *b, error);
    if (!error)
      return nullptr;
    if (b->mb.pairs() == 0) {
      retire_batch(st, *b);
      continue; // a part ended, the pause point was reached, or no context
    }
    return b;
  }
  return nullptr;
}

/// Minibatches that travel together: one message to every shard carries
/// their dotprods, and a later one their adjusts (with the dotprods of the
/// group that follows). Each message and reply costs system calls and
/// thread wake-ups on both sides, so a group of G minibatches costs about
/// 1/G of what they would alone; the shard still applies every minibatch
/// on its own.
struct batch_group {
  std::vector<batch_ptr> batches;
  size_t pending = 0; // shard replies still expected
  uint64_t generation = 0;
};
using group_ptr = std::shared_ptr<batch_group>;

// Every shard has applied the group's adjusts.
void retire_group(learner_state& st, const batch_group& g) {
  for (const auto& b : g.batches)
    retire_batch(st, *b);
}

// Up to `coalesce` new minibatches, entered in the in-flight window.
group_ptr next_group(learner_state& st, size_t releasing, status& error) {
  auto g = std::make_shared<batch_group>();
  g->generation = st.generation;
  while (g->batches.size() < st.cfg.coalesce) {
    auto b = next_batch(st, releasing, error);
    if (!b)
      break;
    st.in_flight.push_back(b);
    g->batches.push_back(std::move(b));
  }
  return g;
}

void send_step(learner_ptr self, const group_ptr& next, const group_ptr& done, std::vector<wire_bytes> adjusts);

// The adjusts of a group with no successor (the end of the work or a pause
// point), each as an `adjust` message of its own; `g` is retired once every
// shard has applied all of them.
void send_adjusts(learner_ptr self, const group_ptr& g, const std::vector<wire_bytes>& adjusts) {
  auto& st = self->state;
  g->pending = st.shards.size() * adjusts.size();
  for (auto& shard : st.shards) {
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
            pump(self);
          },
          [self, generation = g->generation](caf::error& err) { on_shard_error(self, generation, err); });
    }
  }
}

// Every shard has answered the dotprods of `g`: turns the summed dot
// products into weights and sends them back as adjusts, together with the
// dotprods of the group that takes its place in the window.
void finish_dotprods(learner_ptr self, const group_ptr& g) {
  auto& st = self->state;
  std::vector<wire_bytes> adjusts;
  adjusts.reserve(g->batches.size());
  for (const auto& b : g->batches) {
    const float alpha = alpha_for(st, *b);
    st.weights.resize(b->sum.size());
    auto w = compute_weights(b->sum.data(), b->mb.pairs(), b->mb.negatives, alpha, st.weights.data());
    if (!count_weights(self, w, alpha))
      return;
    // The shards damp the weights of pairs that repeat beyond what the
    // minibatches in flight can absorb (src/sgns/staleness_damper.hpp).
    b->mb.alpha = alpha;
    b->mb.staleness = st.cfg.damping ? st.cfg.in_flight * st.cfg.learners : 0;
    adjusts.push_back(encode_adjust_request(b->mb, st.weights.data(), st.weights.size()));
  }
  // `g` leaves the window when these adjusts are done, so its successors
  // may be formed now and ride in the same message.
  status error;
  auto next = next_group(st, g->batches.size(), error);
  if (!error) {
    fail(self, error.error());
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
void send_step(learner_ptr self, const group_ptr& next, const group_ptr& done, std::vector<wire_bytes> adjusts) {
  auto& st = self->state;
  std::vector<wire_bytes> dotprods;
  dotprods.reserve(next->batches.size());
  uint64_t dotprod_bytes = 0, adjust_bytes = 0;
  for (const auto& b : next->batches) {
    dotprods.push_back(encode_dotprod_request(b->mb));
    dotprod_bytes += dotprods.back().size();
    b->sum.assign(b->mb.dot_count(), 0.0f);
  }
  for (const auto& a : adjusts)
    adjust_bytes += a.size();
  next->pending = st.shards.size();
  auto on_reply = [self, next, done](const std::vector<wire_bytes>& replies) {
    auto& st = self->state;
    if (next->generation != st.generation)
      return;
    if (replies.size() != next->batches.size()) {
      fail(self, "a shard answered a step of " + std::to_string(next->batches.size()) + " dotprods with " +
                   std::to_string(replies.size()) + " replies");
      return;
    }
    uint64_t bytes = 0;
    for (size_t i = 0; i < replies.size(); ++i) {
      bytes += replies[i].size();
      if (auto s = accumulate_dotprod_reply(replies[i], next->batches[i]->sum); !s) {
        fail(self, s.error());
        return;
      }
    }
    st.unreported.wire.add(message_kind::dotprod_reply, bytes);
    if (--next->pending > 0)
      return;
    if (done)
      retire_group(st, *done);
    finish_dotprods(self, next);
    if (done)
      pump(self);
  };
  const uint64_t generation = next->generation;
  auto on_error = [self, generation](caf::error& err) { on_shard_error(self, generation, err); };
  for (auto& shard : st.shards) {
    st.unreported.wire.add(message_kind::dotprod_request, dotprod_bytes);
    st.unreported.wire.add_part(message_kind::adjust_request, adjust_bytes);
    self->request(shard, caf::infinite, step_atom::value, adjusts, dotprods).then(on_reply, on_error);
  }
}

// Decides whether this learner trains on its shards directly: only if the
// job allows it (--fused) and every lane is in this process (never so in a
// cluster of one role per node).
void choose_path(learner_state& st) {
  st.fused.reset();
  if (st.cfg.fused) {
    auto stores = find_local_stores(st.shards);
    if (!stores.empty())
      st.fused = std::make_unique<local_trainer>(std::move(stores), st.cfg.shared_negatives);
  }
  // Examples are interleaved (src/corpus/passage.hpp) on both paths: the
  // protocol's minibatches in flight then do not all come from one stretch
  // of repetitive text, and either path learns more per epoch than in
  // corpus order (docs/quality.md).
  const bool interleave = st.cfg.interleave > 1;
  st.stride = interleave ? st.cfg.interleave : 1;
  st.passage_words = interleave ? st.cfg.interleave * passage_words_per_stride : 1;
}

// Trains minibatches on the local stores for one time slice; the same
// minibatches, seeds, noise words and weights as the protocol, but nothing
// is in flight, so a pause settles at the end of the current sentence.
void fused_pump(learner_ptr self) {
  auto& st = self->state;
  const auto until = clock::now() + fused_slice;
  while (st.state == mode::running || st.state == mode::pausing) {
    if (!st.mid_sentence() && (st.state == mode::pausing || !st.walker->has_work()))
      break;
    batch_state& b = st.fused_batch;
    b.has_start = false;
    b.trained = 0;
    status error;
    fill(st, b, error);
    if (!error) {
      fail(self, error.error());
      return;
    }
    if (b.mb.examples() == 0 && !b.has_start)
      continue; // a part ended or the pause point was reached
    const float alpha = alpha_for(st, b);
    if (!count_weights(self, st.fused->train(b.mb, alpha), alpha))
      return;
    count_trained(st, b);
    if (clock::now() >= until) {
      // The next slice comes through the clock, not a message to itself:
      // with a self-message always waiting, a scheduler without a
      // max-throughput (CAF's default) would never give this worker to
      // another actor, and the coordinator would starve.
      if (!st.fused_scheduled) {
        st.fused_scheduled = true;
        self->delayed_send(self, std::chrono::microseconds(1), run_atom::value);
      }
      return;
    }
  }
  settle_pause(self);
  if (st.idle() && !st.reported_idle)
    report(self, true);
}

void pump(learner_ptr self) {
  auto& st = self->state;
  if (st.fused) {
    fused_pump(self);
    return;
  }
  status error;
  for (auto g = next_group(st, 0, error); !g->batches.empty(); g = next_group(st, 0, error))
    send_step(self, g, nullptr, {});
  if (!error) {
    fail(self, error.error());
    return;
  }
  settle_pause(self);
  if (st.idle() && !st.reported_idle)
    report(self, true);
}

learner_actor::behavior_type learner_behavior(learner_ptr self, learner_config cfg, vocabulary_ptr vocab,
                                              std::vector<shard_actor> shards, coordinator_actor coordinator) {
  auto& st = self->state;
  st.cfg = cfg;
  st.vocab = std::move(vocab);
  st.shards = std::move(shards);
  st.coordinator = std::move(coordinator);
  st.walker = std::make_unique<part_walker>(cfg.iterations, st.vocab->size());
  st.random = std::make_unique<rng>(mix64(cfg.seed, 0x1EA27E5ull + cfg.id));
  st.builder = std::make_unique<example_builder>(cfg.window, cfg.cbow);
  st.sampler = std::make_unique<subsampler>(*st.vocab, cfg.sample);
  st.losses = loss_watch{cfg.negatives};
  return {
    [self](preprocess_atom, const std::string& corpus, uint64_t begin, uint64_t end,
           const std::string& ids_path) -> caf::result<uint64_t> {
      uint64_t words = 0;
      if (auto s = preprocess(*self->state.vocab, corpus, {begin, end}, ids_path, words); !s)
        return make_job_error(s.error());
      return words;
    },
    [self](assign_atom, const std::vector<part_cursor>& parts) -> caf::result<bool> {
      auto& st = self->state;
      if (auto s = st.walker->add(parts); !s)
        return make_job_error(s.error());
      st.reported_idle = false;
      if (!st.ticking) {
        st.ticking = true;
        st.state = mode::running;
        choose_path(st);
        self->send(self, tick_atom::value);
      }
      pump(self);
      return true;
    },
    [self](pause_atom) -> caf::result<std::vector<part_cursor>> {
      auto& st = self->state;
      if (st.state == mode::paused)
        return std::vector<part_cursor>(st.walker->parts().begin(), st.walker->parts().end());
      if (st.state == mode::stalled)
        return make_job_error("learner " + std::to_string(st.cfg.id) + " is waiting for a lost shard");
      st.state = mode::pausing;
      auto rp = self->make_response_promise<std::vector<part_cursor>>();
      st.pause_waiters.push_back(rp);
      pump(self); // finishes the current sentence, then settles
      return rp;
    },
    [self](resume_atom) -> caf::result<bool> {
      auto& st = self->state;
      for (auto& rp : st.pause_waiters)
        rp.deliver(make_job_error("the pause was overtaken by a resume"));
      st.pause_waiters.clear();
      st.state = mode::running;
      st.reported_idle = false;
      pump(self);
      return true;
    },
    [self](halt_atom, uint64_t generation, const std::vector<uint32_t>& live) -> caf::result<std::vector<part_cursor>> {
      auto& st = self->state;
      auto cursors = safe_cursors(st);
      st.generation = generation;
      st.in_flight.clear();
      st.current.clear();
      st.state = mode::paused;
      for (auto& rp : st.pause_waiters)
        rp.deliver(make_job_error("the pause was overtaken by a shard failure"));
      st.pause_waiters.clear();
      // Once every live shard has answered a sync, none of them still holds
      // a minibatch of this learner from before the halt.
      auto rp = self->make_response_promise<std::vector<part_cursor>>();
      auto pending = std::make_shared<size_t>(0);
      for (uint32_t s : live)
        if (s < st.shards.size())
          ++*pending;
      if (*pending == 0) {
        rp.deliver(cursors);
        return rp;
      }
      for (uint32_t s : live) {
        if (s >= st.shards.size())
          continue;
        self->request(st.shards[s], sync_timeout, sync_atom::value)
          .then(
            [rp, pending, cursors](bool) mutable {
              if (--*pending == 0)
                rp.deliver(cursors);
            },
            [rp, s](caf::error& err) mutable {
              rp.deliver(make_job_error("shard " + std::to_string(s) + " did not answer a sync: " + error_text(err)));
            });
      }
      return rp;
    },
    [self](rollback_atom, uint64_t generation, const std::vector<part_cursor>& parts,
           const std::vector<shard_actor>& lanes) -> caf::result<bool> {
      auto& st = self->state;
      if (st.state != mode::paused && st.state != mode::stalled)
        return make_job_error("learner " + std::to_string(st.cfg.id) + " must be halted before a rollback");
      st.generation = generation;
      st.in_flight.clear();
      st.current.clear();
      st.shards = lanes;
      choose_path(st);
      st.state = mode::paused;
      st.reported_idle = false;
      if (auto s = st.walker->reset(parts); !s)
        return make_job_error(s.error());
      if (!st.ticking) {
        st.ticking = true;
        self->send(self, tick_atom::value);
      }
      report(self, true);
      return true;
    },
    [self](status_atom) {
      auto& st = self->state;
      learner_status s;
      s.id = st.cfg.id;
      s.parts = safe_cursors(st);
      s.in_flight = static_cast<uint32_t>(st.in_flight.size());
      switch (st.state) {
        case mode::running: s.state = st.idle() ? "idle" : "training"; break;
        case mode::pausing: s.state = "pausing"; break;
        case mode::paused: s.state = "paused"; break;
        case mode::stalled: s.state = "waiting for a lost shard"; break;
      }
      const double secs = std::chrono::duration<double>(clock::now() - st.started).count();
      s.words_per_second = secs > 0 ? static_cast<double>(st.trained_total) / secs : 0;
      return s;
    },
    [self](tick_atom) {
      report(self, false);
      self->delayed_send(self, report_interval, tick_atom::value);
    },
    [self](run_atom) {
      self->state.fused_scheduled = false;
      pump(self);
    },
  };
}

} // namespace

learner_actor spawn_learner(caf::actor_system& sys, learner_config config, vocabulary_ptr vocab,
                            std::vector<shard_actor> shards, coordinator_actor coordinator) {
  return sys.spawn(learner_behavior, config, std::move(vocab), std::move(shards), std::move(coordinator));
}

} // namespace gridvec
