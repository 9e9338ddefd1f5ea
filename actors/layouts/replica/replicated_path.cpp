// The replicated mode (--partition replicated; the GraphWord2Vec paper's
// RepModel-Opt): this learner is one host. It holds the whole model
// (src/replicated/replica.hpp), trains its corpus parts on it with the fused
// kernel for one synchronisation round, then
//   1. sends each master the rows it changed that the master owns
//      (round_changes; only touched rows travel);
//   2. as master of its own rows, once every host's changes of the round
//      are in, combines them (src/replicated/model_combiner.hpp) and sends
//      the new values to every host (round_values). Every few rounds, in a
//      round a host pauses in, and in the last, it first writes every row
//      it combined since it last did to the shards (store_rows; export,
//      checkpoints and queries read the shards as in every mode) and
//      waits for them: writing every round cost each shard node about a
//      sixth of the CPU a whole one-process run spends;
//   3. once every master's values are in, starts the next round.
// A pause ends the round early and settles only once the shards hold that
// round, so that a checkpoint finds the shards and every cursor at the
// same synchronised state. A host out of work keeps taking part with empty
// rounds until every host is.
#include "actors/layouts/replica/replica.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "actors/learner/learner_state.hpp"
#include "src/corpus/vocabulary_reader.hpp"
#include "src/formats/wire.hpp"
#include "src/replicated/replica.hpp"
#include "src/replicated/sync_round.hpp"
#include "src/util/malloc_policy.hpp"
#include "src/util/thread_crew.hpp"

namespace gridvec::learner {

namespace {

using phase = sync_round::phase;

// A learner of --partition replicated, a host of the GraphWord2Vec paper:
// its copy of the model and where it stands in the current
// synchronisation round. The functions below are its steps.
class replicated_path final : public training_path {
public:
  status bind(learner_ptr self) override;
  void pump(learner_ptr self) override;
  // A halt: forgets the round in progress (loading, until a rollback
  // reloads the model).
  void halt() override {
    if (!model)
      return;
    sync.forget();
    model->next_round();
  }
  bool busy() const override { return model && sync.at() != phase::finished; }
  bool pair_by_pair() const override { return true; } // its own copy, through local_trainer
  std::string activity() const override {
    return model && sync.at() == phase::syncing ? "syncing round " + std::to_string(sync.round() + 1) : "training";
  }

  std::vector<replica_shard_actor> lanes;
  std::unique_ptr<replica> model; // null until the first work
  // The host's threads: one trainer and one minibatch each, all on
  // model->store(); the first is this actor's own thread, the others a
  // crew's (none with one thread).
  std::vector<std::unique_ptr<local_trainer>> trainers;
  struct group_member { // a minibatch of a group, and what training it gave
    batch_state batch;
    float alpha = 0;
    weight_result result;
    std::vector<uint32_t> targets; // the output rows it touched (its inputs are the minibatch's)
  };
  std::vector<group_member> group;
  std::unique_ptr<thread_crew> crew;
  // One minibatch on this thread / a group on every thread; `filled`:
  // how many were trained. False if the job failed.
  bool train_one(learner_ptr self, size_t& filled);
  bool train_group(learner_ptr self, size_t& filled);

  sync_round sync;            // src/replicated/sync_round.hpp
  uint64_t round_words = 1;   // words trained per round (after subsampling)
  uint64_t round_started = 0; // trained_words() when the round began
  uint32_t loads_pending = 0;
  // Round changes from hosts that began before this one had its first
  // work (a tiny round ends fast): kept until it starts, not lost.
  std::vector<row_block> early_changes;
  std::vector<uint32_t> ids_scratch; // a received block's ids, kept from round to round
  // The rounds' buffers, the size of the model's changed rows, reused from
  // round to round instead of mapped afresh (src/util/malloc_policy.hpp).
  std::optional<large_block_reuse> block_reuse;
};

// This learner's path, in the functions that only a replicated learner
// reaches.
replicated_path& path_of(learner_ptr self) { return static_cast<replicated_path&>(*self->state.path); }

// Rows per `rows` request while loading the model: about 4 MiB of floats
// at most, well under any frame limit.
uint32_t rows_per_request(uint32_t width) { return std::max<uint32_t>(1, (4u << 20) / (width * sizeof(float))); }

column_slice slice_of(const learner_state& st, const replicated_path& r, size_t shard) {
  return column_slice::of(static_cast<uint32_t>(shard), static_cast<uint32_t>(r.lanes.size()), st.cfg.size);
}

uint32_t hosts(const learner_state& st) { return static_cast<uint32_t>(st.hosts.size()); }

// The shards get the rows combined since the last store every this many
// rounds (and in every round a host pauses in, and in the last): the
// shell's queries and the HTTP API read the model at most this many rounds
// old while it trains.
constexpr uint64_t rounds_between_stores = 8;

// A host of several threads trains this many minibatches a thread at a
// time: a minibatch is tens of microseconds of work, and threads that met
// after each one would spend as long waiting for each other.
constexpr size_t minibatches_per_thread = 16;

void end_round(learner_ptr self);
void round_complete(learner_ptr self, bool last, bool stored);

// Loads the whole model from the shards into the host's copy (its start,
// which --init may have set, or what a rollback restored).
void load_from_shards(learner_ptr self) {
  auto& st = self->state;
  auto& r = path_of(self);
  r.sync.set(phase::loading);
  r.model->forget_unstored(); // the shards' rows are the model again
  r.loads_pending = 1;        // until every request is out
  const uint32_t rows[2] = {r.model->store()->vocab_size(), r.model->store()->output_rows()};
  for (size_t s = 0; s < r.lanes.size(); ++s) {
    const column_slice slice = slice_of(st, r, s);
    const uint32_t step = rows_per_request(slice.width);
    for (bool output : {false, true})
      for (uint32_t begin = 0; begin < rows[output]; begin += step) {
        const uint32_t end = std::min(rows[output], begin + step);
        ++r.loads_pending;
        self->request(r.lanes[s], sync_timeout, rows_atom::value, begin, end, output)
          .then(
            [self, slice, output, begin, end, generation = st.generation](const wire_bytes& bytes) {
              if (generation != self->state.generation)
                return;
              auto& r = path_of(self);
              if (bytes.size() != size_t{end - begin} * slice.width * sizeof(float)) {
                fail(self, "a shard sent " + std::to_string(bytes.size()) + " bytes for rows [" +
                             std::to_string(begin) + ", " + std::to_string(end) + ")");
                return;
              }
              r.model->load(output, begin, end - begin, slice.first, slice.width,
                            reinterpret_cast<const float*>(bytes.data()));
              if (--r.loads_pending == 0) {
                r.sync.set(phase::training);
                pump(self);
              }
            },
            [self, generation = st.generation](caf::error& err) { on_shard_error(self, generation, err); });
      }
  }
  if (--r.loads_pending == 0) {
    r.sync.set(phase::training);
    pump(self);
  }
}

// A row block as its master encodes it for a shard: that shard's columns.
row_block columns_of(const row_block& whole, column_slice slice) {
  row_block part;
  part.width = slice.width;
  part.first_column = slice.first;
  part.inputs = whole.inputs;
  part.outputs = whole.outputs;
  part.values.resize(whole.rows() * slice.width);
  for (size_t i = 0; i < whole.rows(); ++i)
    std::copy_n(whole.values.data() + i * whole.width + slice.first, slice.width, part.values.data() + i * slice.width);
  return part;
}

// As master: sends a round's new values to every other host and counts
// its own as heard.
void broadcast_values(learner_ptr self, const row_block& values) {
  auto& st = self->state;
  if (hosts(st) == 1) { // alone: nothing to send
    round_complete(self, values.last, values.stored);
    return;
  }
  wire_bytes bytes = encode_row_block(values);
  const uint32_t last_host = st.host_index + 1 == hosts(st) ? st.host_index - 1 : hosts(st) - 1;
  for (uint32_t h = 0; h < hosts(st); ++h)
    if (h != st.host_index) {
      st.unreported.wire.add(message_kind::round_values, bytes.size());
      if (h == last_host) // the last one takes the bytes, the others a copy
        self->send(st.hosts[h], synced_atom::value, std::move(bytes));
      else
        self->send(st.hosts[h], synced_atom::value, bytes);
    }
  round_complete(self, values.last, values.stored);
}

// As master: once every host's changes of `round` are in, combines them
// and sends the new values to every host; in a round that stores (see
// rounds_between_stores), only once the shards hold every row combined
// here since the last store (a checkpoint may read them as soon as any
// host moves on).
void combine_round(learner_ptr self, uint64_t round) {
  auto& st = self->state;
  auto& r = path_of(self);
  auto complete = r.sync.complete_changes(round, hosts(st));
  if (!complete)
    return;
  std::vector<row_block> changes = std::move(*complete);
  const bool every_host_done = std::all_of(changes.begin(), changes.end(), [](const row_block& b) { return b.last; });
  const bool a_host_pauses = std::any_of(changes.begin(), changes.end(), [](const row_block& b) { return b.pausing; });
  // The same choice at every master: from the round and what every host said.
  const bool store = every_host_done || a_host_pauses || (round + 1) % rounds_between_stores == 0;
  auto combined =
    r.model->combine(changes, st.cfg.average_combiner ? combiner::average : combiner::model_combiner, st.host_index);
  if (!combined) {
    fail(self, combined.error());
    return;
  }
  auto values = std::make_shared<row_block>(std::move(*combined));
  values->round = round;
  values->generation = st.generation;
  values->host = st.host_index;
  values->last = every_host_done;
  values->stored = store;
  auto pending = std::make_shared<size_t>(1);
  auto stored = [self, values, pending, generation = st.generation] {
    if (--*pending > 0 || generation != self->state.generation)
      return;
    broadcast_values(self, *values);
  };
  const row_block unstored = store ? r.model->unstored_values() : row_block{};
  if (unstored.rows() > 0)
    for (size_t s = 0; s < r.lanes.size(); ++s) {
      ++*pending;
      const column_slice slice = slice_of(st, r, s);
      // (Not `encode(a ? unstored : columns_of(...))`: the conditional's
      // value would be a copy of the whole block.)
      wire_bytes bytes =
        slice.width == unstored.width ? encode_row_block(unstored) : encode_row_block(columns_of(unstored, slice));
      st.unreported.wire.add(message_kind::round_store, bytes.size());
      self->request(r.lanes[s], sync_timeout, store_rows_atom::value, std::move(bytes))
        .then([stored](bool) { stored(); },
              [self, generation = st.generation](caf::error& err) { on_shard_error(self, generation, err); });
    }
  stored();
}

// A host's changes of rows this host is master of.
void take_changes(learner_ptr self, row_block changes) {
  auto& st = self->state;
  if (changes.generation != st.generation || changes.host >= hosts(st))
    return; // from before a rollback
  const uint64_t round = changes.round;
  auto& r = path_of(self);
  if (auto s = r.sync.receive_changes(std::move(changes)); !s) {
    fail(self, s.error());
    return;
  }
  // A paused host still takes part, with no changes: a pause settles only at
  // a sentence end, which the other hosts may reach rounds later.
  if (st.state == mode::paused && r.sync.at() == phase::training && round == r.sync.round()) {
    end_round(self); // takes part with no changes, and combines
    return;
  }
  combine_round(self, round);
}

// The end of this host's round: its changes to every master.
void end_round(learner_ptr self) {
  auto& st = self->state;
  auto& r = path_of(self);
  r.sync.set(phase::syncing);
  const bool out_of_work = !st.source->has_work();
  auto blocks = r.model->changes(st.host_index);
  for (uint32_t m = 0; m < hosts(st); ++m) {
    row_block& changes = blocks[m];
    changes.round = r.sync.round();
    changes.generation = st.generation;
    changes.host = st.host_index;
    changes.last = out_of_work;
    changes.pausing = st.state == mode::pausing || st.state == mode::paused;
    if (m == st.host_index) {
      take_changes(self, std::move(changes));
      continue;
    }
    wire_bytes bytes = encode_row_block(changes);
    st.unreported.wire.add(message_kind::round_changes, bytes.size());
    self->send(st.hosts[m], round_atom::value, std::move(bytes));
  }
}

// A master's values of the round are applied; once every master's are,
// the next round, or the end.
void round_complete(learner_ptr self, bool last, bool stored) {
  auto& st = self->state;
  auto& r = path_of(self);
  if (!r.sync.hear_values(last, stored, hosts(st)))
    return;
  r.model->next_round();
  ++st.unreported.sync_rounds;
  r.round_started = st.source->trained_words();
  // A pause settles where the shards hold the model; otherwise the pausing
  // host ends the next round at once, and that one stores.
  if (r.sync.shards_current())
    settle_pause(self);
  if (r.sync.at() == phase::finished) {
    r.block_reuse.reset(); // no more rounds
    report(self, true);
  } else
    pump(self);
}

// word_key of every word, in id order: from the vocabulary in memory where
// this process has it, else read from its file one word at a time.
expected<std::vector<uint64_t>> word_keys(const learner_state& st) {
  std::vector<uint64_t> keys;
  if (st.vocab) {
    keys.resize(st.vocab->size());
    for (uint32_t w = 0; w < keys.size(); ++w)
      keys[w] = word_key(st.vocab->word(w));
    return keys;
  }
  auto words = vocabulary_reader::open_guarded(st.vocab_path);
  if (!words)
    return failure{words.error()};
  keys.reserve(words->size());
  std::string word;
  uint64_t count = 0;
  while (words->position() < words->size()) {
    if (auto s = words->next(word, count); !s)
      return failure{s.error()};
    keys.push_back(word_key(word));
  }
  return keys;
}

// Makes this learner a host (on its first work, or after a rollback): its
// model is loaded from the shards, then it trains.
status replicated_path::bind(learner_ptr self) {
  auto& st = self->state;
  lanes = lanes_as<replica_shard_actor>(st.shards);
  if (!block_reuse)
    block_reuse.emplace();
  if (!model) {
    // Rows are keyed by word: each word's key, read from the vocabulary one
    // word at a time (the words themselves are not kept).
    auto keys = word_keys(st);
    if (!keys)
      return failure{keys.error()};
    auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(st.counts->counts));
    model = std::make_unique<replica>(st.cfg.size, std::move(*keys), st.cfg.seed, std::move(noise), st.tree);
    const uint32_t threads = std::max(1u, st.cfg.threads);
    for (uint32_t t = 0; t < threads; ++t)
      trainers.push_back(std::make_unique<local_trainer>(std::vector{model->store()}));
    if (threads > 1) {
      group.resize(threads * minibatches_per_thread);
      crew = std::make_unique<thread_crew>(threads - 1);
    }
  }
  model->set_hosts(hosts(st)); // again when the hosts change (a rollback)
  // A round is a share of the words this host trains per epoch: its parts'
  // words times the share subsampling keeps. (Counted in words trained, not
  // read: a passage reads 64k words at once, far more than a round of a
  // small corpus.)
  double read = 0, kept = 0, corpus = 0;
  for (const auto& p : st.source->walker().parts())
    read += static_cast<double>(p.words);
  const auto& counts = st.counts->counts;
  for (uint32_t w = 0; w < counts.size(); ++w) {
    corpus += static_cast<double>(counts[w]);
    kept += static_cast<double>(counts[w]) * st.source->sampler().keep_probability(w);
  }
  const double per_epoch = corpus > 0 ? read * kept / corpus : read;
  round_words = std::max<uint64_t>(1, static_cast<uint64_t>(per_epoch / std::max<uint32_t>(1, st.cfg.sync_rounds)));
  sync.restart();
  round_started = st.source->trained_words();
  // Changes that came before this host started are this round's too.
  auto early = std::move(early_changes);
  early_changes.clear();
  for (auto& changes : early)
    take_changes(self, std::move(changes));
  load_from_shards(self);
  return {};
}

// Whether this round is over: a pause, or the end of the work, ends it at
// the next sentence end; the round's words end it anywhere (`pending`:
// words filled but not yet trained).
bool round_over(const learner_state& st, const replicated_path& r, uint64_t pending = 0) {
  return (!st.mid_sentence() && (st.state == mode::pausing || !st.source->walker().has_work())) ||
         st.source->trained_words() + pending - r.round_started >= r.round_words;
}

// Trains this round's minibatches on the host's own model, one time slice.
// With one thread, one minibatch at a time, as gridvec train's fused path
// (the same vectors, bit for bit). With more, a group at a time into the
// same copy, as gridvec train's threads share one model: this thread fills
// the group's minibatches and every thread, this one too once it has
// filled them, trains the next one filled that no other has taken.
void replicated_path::pump(learner_ptr self) {
  auto& st = self->state;
  auto& r = *this;
  if (!r.model) // until bind has begun loading the model
    return;
  if (r.sync.at() == phase::finished) {
    settle_pause(self);
    return;
  }
  if (r.sync.at() != phase::training || st.hosts.empty())
    return;
  const auto until = clock::now() + fused_slice;
  while (st.state == mode::running || st.state == mode::pausing) {
    if (round_over(st, r)) {
      end_round(self);
      return;
    }
    size_t filled = 0;
    if (!(r.crew ? train_group(self, filled) : train_one(self, filled)))
      return;
    if (filled > 0 && slice_over(self, until))
      return;
  }
}

bool replicated_path::train_one(learner_ptr self, size_t& filled) {
  bool trained = false;
  if (!train_next(self, *trainers.front(), trained))
    return false;
  if (trained) {
    model->mark(local_trainer::inputs_updated(self->state.fused_batch.mb), trainers.front()->last_targets());
    filled = 1;
  }
  return true;
}

bool replicated_path::train_group(learner_ptr self, size_t& filled) {
  auto& st = self->state;
  const size_t threads = trainers.size();
  std::atomic<size_t> published{0}, next{0};
  std::atomic<bool> all_filled{false};
  status read;
  // Fills the group, each minibatch taken as soon as it is published,
  // until the round's words, a part's end, a pause point or the work's end.
  auto fill = [&] {
    uint64_t words = 0;
    size_t n = 0;
    while (n < group.size() && (n == 0 || !round_over(st, *this, words))) {
      group_member& m = group[n];
      if (!fill_next(st, m.batch, read))
        break;
      m.alpha = st.source->alpha_for(m.batch);
      words += m.batch.trained;
      published.store(++n, std::memory_order_release);
    }
    all_filled.store(true, std::memory_order_release);
  };
  auto train = [&](size_t thread) {
    local_trainer& trainer = *trainers[thread];
    for (;;) {
      const size_t k = next.fetch_add(1);
      while (k >= published.load(std::memory_order_acquire)) {
        if (all_filled.load(std::memory_order_acquire) && k >= published.load(std::memory_order_acquire))
          return;
        std::this_thread::yield();
      }
      group_member& m = group[k];
      m.result = trainer.train(m.batch.mb, m.alpha);
      // Its targets, marked in the model once the group is done (the next
      // minibatch this trainer takes replaces them).
      trainer.swap_last_targets(m.targets);
    }
  };
  try {
    crew->run(threads, [&](size_t thread) {
      if (thread == 0) {
        try {
          fill();
        } catch (...) {
          all_filled.store(true, std::memory_order_release); // the others stop once the filled ones are trained
          throw;
        }
      }
      train(thread);
    });
  } catch (const std::exception& e) {
    fail(self, std::string{"training a minibatch failed: "} + e.what());
    return false;
  }
  if (!read) {
    fail(self, read.error());
    return false;
  }
  filled = published.load();
  for (size_t k = 0; k < filled; ++k) {
    group_member& m = group[k];
    if (!count_weights(self, m.result, m.alpha))
      return false;
    st.source->count_trained(m.batch);
    model->mark(local_trainer::inputs_updated(m.batch.mb), m.targets);
  }
  return true;
}

} // namespace

std::unique_ptr<training_path> make_replicated_path(const learner_state&) {
  return std::make_unique<replicated_path>();
}

namespace {

// The path of a learner that shares rounds, or null (the job's job error
// sent) if this learner's is another.
replicated_path* sharing_path(learner_ptr self, const char* message) {
  auto* r = dynamic_cast<replicated_path*>(self->state.path.get());
  if (!r)
    fail(self, std::string{"a "} + message + " message came to a learner that does not share rounds");
  return r;
}

} // namespace

void on_hosts(learner_ptr self) {
  auto* r = dynamic_cast<replicated_path*>(self->state.path.get());
  if (r && r->model)
    r->model->set_hosts(hosts(self->state));
}

void on_round_changes(learner_ptr self, const wire_bytes& bytes) {
  auto* r = sharing_path(self, "round");
  if (!r)
    return;
  row_block changes;
  if (auto s = decode_row_block(bytes, changes); !s) {
    fail(self, s.error());
    return;
  }
  auto& st = self->state;
  if (r->model) {
    take_changes(self, std::move(changes));
    return;
  }
  // This host has not started yet: each other host sends at most two
  // rounds' changes before it hears from this one.
  if (r->early_changes.size() >= 2 * size_t{std::max<uint32_t>(1, st.cfg.learners)}) {
    fail(self, "host " + std::to_string(changes.host) + " sent round changes before this host started, too many");
    return;
  }
  r->early_changes.push_back(std::move(changes));
}

void on_round_values(learner_ptr self, const wire_bytes& bytes) {
  auto* r = sharing_path(self, "synced");
  if (!r)
    return;
  auto& st = self->state;
  // Applied where the values arrived, without a copy of them.
  bool stale = false, last = false, stored = false;
  auto s = with_row_block(bytes, r->ids_scratch, [&](const row_block& head, row_block_ref values) -> status {
    if (!r->model || head.generation != st.generation) {
      stale = true;
      return {};
    }
    if (auto s = r->sync.check_values(head); !s)
      return s;
    last = head.last;
    stored = head.stored;
    return r->model->apply(values);
  });
  if (!s) {
    fail(self, s.error());
    return;
  }
  if (!stale)
    round_complete(self, last, stored);
}

} // namespace gridvec::learner
