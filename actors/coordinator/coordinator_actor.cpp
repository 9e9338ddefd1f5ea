#include "actors/coordinator/coordinator_actor.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>

#include "actors/coordinator/coordinator_state.hpp"
#include "actors/supervisor_actor.hpp"
#include "actors/vocabulary_actor.hpp"
#include "src/corpus/id_stream.hpp"

namespace gridvec {

namespace {

// Phases that read or write a whole corpus may take long on a big one; a
// dead node is noticed by the supervisor, not through this.
constexpr auto long_phase = std::chrono::seconds(30 * 24 * 3600);
constexpr auto placement_timeout = std::chrono::seconds(120);
std::atomic<bool> cancel_requested{false};

void cleanup(coordinator_ptr self, bool keep_shards) {
  auto& st = self->state;
  if (st.supervisor)
    self->send_exit(st.supervisor, caf::exit_reason::user_shutdown);
  st.supervisor = nullptr;
  std::vector<caf::actor> kept;
  for (auto& a : st.spawned) {
    bool is_shard = false;
    if (keep_shards)
      for (const auto& s : st.shards)
        for (const auto& lane : s.lanes)
          is_shard |= lane.address() == a.address();
    if (is_shard)
      kept.push_back(a);
    else
      self->send_exit(a, caf::exit_reason::user_shutdown);
  }
  st.spawned = std::move(kept);
  st.learners.clear();
  st.vocab_actor = nullptr;
  if (!keep_shards)
    st.shards.clear();
  // Kept shards still need the vocabulary file (export, queries): the
  // temporary work directory goes with them.
  if (!keep_shards && st.own_work_dir && !st.work_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(st.work_dir, ec);
    st.own_work_dir = false;
  }
}

void end_progress_line(coordinator_state& st) {
  if (st.printed_progress_line) {
    std::fputc('\n', stderr);
    st.printed_progress_line = false;
  }
}

// The summary's counters as they stand now.
void take_totals(coordinator_state& st) {
  st.summary.seconds = std::chrono::duration<double>(coordinator_clock::now() - st.started).count();
  st.summary.peak_rss_bytes = peak_rss_bytes();
  st.summary.processed_words = st.processed_words();
  st.summary.resumed_words = st.resumed_words;
  st.summary.trained_words = st.totals.trained_words;
  st.summary.pairs = st.totals.pairs;
  st.summary.wire = st.totals.wire;
}

void finish(coordinator_ptr self) {
  auto& st = self->state;
  take_totals(st);
  if (!st.opt.report.empty())
    if (auto s = write_report(st.opt.report, st.summary); !s) {
      fail(self, make_job_error(s.error()));
      return;
    }
  st.phase = job_phase::done;
  st.message = "vectors written to " + st.opt.output;
  st.finished = true;
  cleanup(self, st.keep_shards);
  st.done.deliver(st.summary);
}

size_t node_with(const coordinator_state& st, bool job_node::*role) {
  for (size_t i = 0; i < st.nodes.size(); ++i)
    if (st.nodes[i].*role && !st.nodes[i].standby)
      return i;
  return 0;
}

// Bytes each node sent and received during training, by message kind.
// Learners count their own messages; every shard gets the same requests
// and sends equal-sized replies, so a shard's share is 1/S of the total.
void account_nodes(coordinator_state& st) {
  std::vector<node_traffic> per_node(st.nodes.size());
  for (size_t n = 0; n < st.nodes.size(); ++n)
    per_node[n].node = st.nodes[n].name;
  auto is_request = [](size_t k) {
    return k == static_cast<size_t>(message_kind::dotprod_request) ||
           k == static_cast<size_t>(message_kind::adjust_request);
  };
  const traffic& total = st.totals.wire;
  for (size_t i = 0; i < st.learner_wire.size(); ++i) {
    auto& node = per_node[st.learner_node[i]];
    for (size_t k = 0; k < total.bytes.size(); ++k) {
      traffic& t = is_request(k) ? node.sent : node.received;
      t.bytes[k] += st.learner_wire[i].bytes[k];
      t.messages[k] += st.learner_wire[i].messages[k];
    }
  }
  const uint64_t shards = st.shard_node.size();
  for (size_t s = 0; s < shards; ++s) {
    auto& node = per_node[st.shard_node[s]];
    for (size_t k = 0; k < total.bytes.size(); ++k) {
      traffic& t = is_request(k) ? node.received : node.sent;
      t.bytes[k] += total.bytes[k] / shards;
      t.messages[k] += total.messages[k] / shards;
    }
  }
  st.summary.nodes = std::move(per_node);
}

void start_training(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::training;
  st.training_started = st.rate_started = st.last_line = st.last_checkpoint_time = coordinator_clock::now();
  st.words_at_last_checkpoint = st.words_at_start = st.processed_words();
  st.learner_idle.assign(st.learners.size(), false);
  say(self, "training: " + std::to_string(st.learners.size()) + " learners, " + std::to_string(st.shards.size()) +
              " shards of " + std::to_string(st.shards.front().width) + " columns, minibatch " +
              std::to_string(st.opt.minibatch) + ", " + std::to_string(st.opt.in_flight) + " in flight, " +
              std::to_string(st.opt.coalesce) + " per message");
  for (size_t i = 0; i < st.learners.size(); ++i) {
    std::vector<part_cursor> mine;
    for (size_t p = 0; p < st.cursors.size(); ++p)
      if (st.owner[p] == i)
        mine.push_back(st.cursors[p]);
    self->request(st.learners[i], placement_timeout, assign_atom::value, mine).then([](bool) {}, fail_with(self));
  }
}

void run_preprocessing(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::preprocessing;
  say(self, "preprocessing: corpus -> word ids in " + st.work_dir);
  auto pending = std::make_shared<size_t>(st.ranges.size());
  st.cursors.resize(st.ranges.size());
  st.owner.resize(st.ranges.size());
  for (uint32_t p = 0; p < st.ranges.size(); ++p) {
    auto ids = st.work_dir + "/part-" + std::to_string(p) + ".ids";
    const uint32_t learner = p % static_cast<uint32_t>(st.learners.size());
    st.owner[p] = learner;
    self->request(st.learners[learner], long_phase, preprocess_atom::value, st.opt.train, st.ranges[p].begin,
                  st.ranges[p].end, ids)
      .then(
        [self, pending, p, ids](uint64_t words) {
          auto& st = self->state;
          st.cursors[p] = part_cursor{p, ids, words, 0, id_reader::first_offset, 0};
          if (--*pending == 0)
            start_training(self);
        },
        fail_with(self));
  }
}

learner_config learner_config_for(const train_options& opt, uint32_t id, uint32_t learners) {
  learner_config lc;
  lc.id = id;
  lc.window = opt.window;
  lc.negatives = opt.negative;
  lc.minibatch_words = opt.minibatch;
  lc.in_flight = opt.in_flight;
  lc.coalesce = opt.coalesce;
  lc.iterations = opt.iter;
  lc.cbow = opt.cbow;
  lc.start_alpha = opt.start_alpha();
  lc.sample = opt.sample;
  lc.seed = opt.seed;
  lc.fused = opt.fused;
  lc.shared_negatives = opt.shared_negatives;
  lc.interleave = opt.interleave;
  lc.damping = opt.damping;
  lc.learners = learners;
  return lc;
}

void place_learners(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  const auto count = static_cast<uint32_t>(st.learner_node.size());
  st.learners.resize(count);
  st.learner_alive.assign(count, true);
  st.learner_idle.assign(count, false);
  st.learner_wire.assign(count, traffic{});
  auto pending = std::make_shared<size_t>(count);
  for (uint32_t i = 0; i < count; ++i) {
    auto& node = st.nodes[st.learner_node[i]];
    self->request(node.handle, placement_timeout, new_learner_atom::value, learner_config_for(st.opt, i, count),
                  st.vocab.path, lanes_for(st, i), caf::actor_cast<coordinator_actor>(self))
      .then(
        [self, pending, i, then](learner_actor learner) {
          auto& st = self->state;
          track(self, learner);
          st.learners[i] = learner;
          self->send(st.supervisor, watch_atom::value, i, learner);
          if (--*pending == 0)
            then();
        },
        fail_with(self));
  }
}

void place_all_shards(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  st.phase = job_phase::placing;
  std::vector<size_t> shard_nodes;
  for (size_t i = 0; i < st.nodes.size(); ++i)
    if (st.nodes[i].shard_capacity > 0 && !st.nodes[i].standby)
      shard_nodes.push_back(i);
  st.shards.resize(st.opt.shards);
  st.shard_node.resize(st.opt.shards);
  st.shard_requests_seen.assign(st.opt.shards, 0);
  auto pending = std::make_shared<size_t>(st.opt.shards);
  for (uint32_t s = 0; s < st.opt.shards; ++s)
    place_shard(self, s, shard_nodes[s % shard_nodes.size()], [pending, then] {
      if (--*pending == 0)
        then();
    });
}

void use_vocabulary(coordinator_ptr self, const vocabulary_info& info) {
  auto& st = self->state;
  st.vocab = info;
  st.summary.vocab_size = info.size;
  st.summary.raw_words = info.raw_words;
  auto crc = file_crc32(info.path);
  auto words = load_shared_vocabulary(info.path);
  if (!crc || !words) {
    fail(self, make_job_error(!crc ? crc.error() : words.error()));
    return;
  }
  st.vocab_crc = *crc;
  st.words = *words;
}

void build_vocabulary(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::vocabulary;
  auto path = st.store ? st.store->vocabulary_path() : st.work_dir + "/vocabulary.txt";
  self->request(st.vocab_actor, long_phase, build_atom::value, st.opt.min_count, st.opt.max_vocab, path)
    .then(
      [self](const vocabulary_info& info) {
        auto& st = self->state;
        self->send_exit(st.vocab_actor, caf::exit_reason::user_shutdown);
        use_vocabulary(self, info);
        if (st.finished)
          return;
        say(self, "vocabulary: " + std::to_string(info.size) + " words (" + std::to_string(info.distinct_words) +
                    " distinct, " + std::to_string(info.raw_words) + " tokens; " +
                    std::to_string(info.train_words) + " in vocabulary)");
        place_all_shards(self, [self] { place_learners(self, [self] { run_preprocessing(self); }); });
      },
      fail_with(self));
}

// Map: part i is counted on the node of learner i (where its data is).
// Reduce: every table is merged into the vocabulary actor.
void count_words(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::counting;
  say(self, "counting words of " + st.opt.train + " in " + std::to_string(st.ranges.size()) + " parts");
  auto pending = std::make_shared<size_t>(st.ranges.size());
  for (size_t i = 0; i < st.ranges.size(); ++i) {
    auto& node = st.nodes[st.learner_node[i % st.learner_node.size()]];
    self->request(node.handle, placement_timeout, new_counter_atom::value)
      .then(
        [self, pending, i](count_worker_actor worker) {
          auto& st = self->state;
          track(self, worker);
          self->request(worker, long_phase, count_atom::value, st.opt.train, st.ranges[i].begin, st.ranges[i].end)
            .then(
              [self, pending, worker](const count_table& table) {
                auto& st = self->state;
                self->send_exit(worker, caf::exit_reason::user_shutdown);
                self->request(st.vocab_actor, long_phase, merge_atom::value, table)
                  .then(
                    [self, pending](uint64_t) {
                      if (--*pending == 0)
                        build_vocabulary(self);
                    },
                    fail_with(self));
              },
              fail_with(self));
        },
        fail_with(self));
  }
}

void start_fresh(coordinator_ptr self) {
  auto& st = self->state;
  auto parts = split_corpus(st.opt.train, st.learner_node.size());
  if (!parts) {
    fail(self, make_job_error(parts.error()));
    return;
  }
  st.ranges = std::move(*parts);
  auto& node = st.nodes[node_with(st, &job_node::vocabulary)];
  self->request(node.handle, placement_timeout, new_vocab_atom::value)
    .then(
      [self](vocabulary_actor v) {
        track(self, v);
        self->state.vocab_actor = v;
        count_words(self);
      },
      fail_with(self));
}

// Resuming from a checkpoint: the vocabulary and the preprocessed parts
// come from the checkpoint directory, the shards load their slices and the
// learners continue from the manifest's cursors (restore_latest, in
// coordinator_recovery.cpp, also falls back to older checkpoints).
void start_from_checkpoint(coordinator_ptr self, const checkpoint_manifest& m) {
  auto& st = self->state;
  vocabulary_info info;
  info.path = st.store->vocabulary_path();
  info.size = m.vocab_size;
  info.raw_words = m.raw_words;
  use_vocabulary(self, info);
  if (st.finished)
    return;
  if (st.vocab_crc != m.vocab_crc) {
    fail(self, make_job_error("the vocabulary in " + st.store->root() + " does not match its checkpoints"));
    return;
  }
  st.vocab.train_words = st.words->train_words();
  st.ranges = m.ranges;
  st.cursors = m.parts;
  st.owner.resize(m.parts.size());
  for (uint32_t p = 0; p < m.parts.size(); ++p)
    st.owner[p] = p % static_cast<uint32_t>(st.learner_node.size());
  st.resuming = true;
  say(self, "resuming from checkpoint " + std::to_string(m.sequence) + " in " + st.store->root() + ": " +
              std::to_string(m.processed_words()) + " words of " + std::to_string(st.total_words()) + " done");
  place_all_shards(self, [self] {
    place_learners(self, [self] {
      // Parts whose preprocessed file is gone are preprocessed again.
      auto& st = self->state;
      std::vector<uint32_t> missing;
      for (uint32_t p = 0; p < st.cursors.size(); ++p)
        if (!std::filesystem::exists(st.cursors[p].ids_path))
          missing.push_back(p);
      auto pending = std::make_shared<size_t>(missing.size() + 1);
      auto next = [self, pending] {
        if (--*pending == 0) {
          self->state.phase = job_phase::recovering;
          self->state.recovery_started = coordinator_clock::now();
          restore_latest(self);
        }
      };
      for (uint32_t p : missing) {
        auto& c = st.cursors[p];
        say(self, "preprocessing part " + std::to_string(p) + " again: " + c.ids_path + " is gone");
        self->request(st.learners[p % st.learners.size()], long_phase, preprocess_atom::value, st.opt.train,
                      st.ranges[p].begin, st.ranges[p].end, c.ids_path)
          .then([next](uint64_t) { next(); }, fail_with(self));
      }
      next();
    });
  });
}

status make_work_dir(coordinator_state& st) {
  std::error_code ec;
  if (!st.opt.work_dir.empty() || st.store) {
    st.work_dir = !st.opt.work_dir.empty() ? st.opt.work_dir : st.store->work_dir();
    std::filesystem::create_directories(st.work_dir, ec);
    if (ec)
      return failure{"cannot create the work directory " + st.work_dir + ": " + ec.message()};
    return {};
  }
  auto base = std::filesystem::temp_directory_path(ec);
  if (ec)
    base = "/tmp";
  std::string tmpl = (base / "gridvec-XXXXXX").string();
  if (!::mkdtemp(tmpl.data()))
    return failure{"cannot create a temporary directory in " + base.string()};
  st.work_dir = tmpl;
  st.own_work_dir = true;
  return {};
}

status check_nodes(const coordinator_state& st) {
  bool vocab = false, exporter = false, shard = false;
  uint32_t learners = 0;
  for (const auto& n : st.nodes) {
    if (n.standby)
      continue;
    vocab |= n.vocabulary;
    exporter |= n.exporter;
    shard |= n.shard_capacity > 0;
    learners += n.learners;
  }
  if (!vocab || !exporter || !shard || learners == 0)
    return failure{"the job's nodes lack a role: it needs a vocabulary, an exporter, a shard node and a learner"};
  return {};
}

// Options of a resumed job: the checkpoint's, except where to write.
expected<train_options> resumed_options(const train_options& given, const checkpoint_manifest& m,
                                        const std::string& root) {
  auto opt = parse_train_options(m.options);
  if (!opt)
    return failure{"the checkpoint's options do not parse: " + opt.error()};
  if (!given.output.empty())
    opt->output = given.output;
  if (!given.report.empty())
    opt->report = given.report;
  if (given.log_every > 0)
    opt->log_every = given.log_every;
  opt->checkpoint_dir = root;
  opt->stop_cluster = given.stop_cluster;
  opt->resume = root;
  return opt;
}

void start(coordinator_ptr self) {
  auto& st = self->state;
  for (size_t i = 0; i < st.nodes.size(); ++i)
    for (uint32_t k = 0; k < st.nodes[i].learners; ++k)
      st.learner_node.push_back(i);
  std::vector<supervised_node> watched;
  for (const auto& n : st.nodes)
    watched.push_back({n.name, n.handle, n.shard_capacity, n.standby});
  st.supervisor = spawn_supervisor(self->system(), caf::actor_cast<coordinator_actor>(self), std::move(watched));
  std::optional<checkpoint_manifest> manifest;
  if (!st.opt.resume.empty()) {
    st.store.emplace(st.opt.resume);
    std::vector<std::string> skipped;
    auto m = st.store->latest(&skipped);
    for (const auto& why : skipped)
      warn(self, "skipping a checkpoint: " + why);
    if (!m) {
      fail(self, make_job_error("cannot resume: " + m.error()));
      return;
    }
    auto opt = resumed_options(st.opt, *m, st.opt.resume);
    if (!opt) {
      fail(self, make_job_error(opt.error()));
      return;
    }
    st.opt = *opt;
    st.next_sequence = m->sequence + 1;
    manifest = std::move(*m);
  } else if (!st.opt.checkpoint_dir.empty()) {
    st.store.emplace(st.opt.checkpoint_dir);
    if (!st.store->complete().empty()) {
      fail(self, make_job_error("--checkpoint-dir " + st.opt.checkpoint_dir +
                                " already holds checkpoints of a job; resume it with --resume, or choose another "
                                "directory"));
      return;
    }
    if (auto s = st.store->prepare(0); !s) {
      fail(self, make_job_error(s.error()));
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(st.store->partial_dir(0), ec);
  }
  st.summary.shards = st.opt.shards;
  st.summary.dim = st.opt.size;
  st.summary.iterations = st.opt.iter;
  st.summary.learners = static_cast<uint32_t>(st.learner_node.size());
  if (auto s = make_work_dir(st); !s) {
    fail(self, make_job_error(s.error()));
    return;
  }
  if (manifest)
    start_from_checkpoint(self, *manifest);
  else
    start_fresh(self);
}

coordinator_actor::behavior_type coordinator_behavior(coordinator_ptr self, uint64_t job, train_options opt,
                                                      std::vector<job_node> nodes, progress_sink sink,
                                                      bool keep_shards) {
  auto& st = self->state;
  st.job_id = job;
  st.opt = std::move(opt);
  st.nodes = std::move(nodes);
  st.sink = std::move(sink);
  st.keep_shards = keep_shards;
  st.tty = ::isatty(STDERR_FILENO) == 1 && !st.sink;
  return {
    [self](run_atom) -> caf::result<job_summary> {
      auto& st = self->state;
      st.started = coordinator_clock::now();
      st.done = self->make_response_promise<job_summary>();
      if (auto s = check_nodes(st); !s)
        return make_job_error(s.error());
      self->send(self, tick_atom::value); // progress lines, checkpoints, cancellation
      start(self);
      return st.done;
    },
    [self](status_atom) { return make_status(self->state); },
    [self](shards_atom) {
      auto rp = self->make_response_promise<std::vector<shard_status>>();
      query_shards(self, rp);
      return rp;
    },
    [self](learners_atom) {
      auto rp = self->make_response_promise<std::vector<learner_status>>();
      query_learners(self, rp);
      return rp;
    },
    [self](pause_atom) -> caf::result<bool> {
      auto& st = self->state;
      if (st.phase != job_phase::training)
        return make_job_error(std::string{"the job is not training (it is "} + phase_name(st.phase) + ")");
      auto rp = self->make_response_promise<bool>();
      st.phase = job_phase::pausing;
      pause_learners(self, [self, rp](bool ok) mutable {
        auto& st = self->state;
        if (!ok) {
          rp.deliver(make_job_error("the learners could not be paused"));
          return;
        }
        st.phase = job_phase::paused;
        say(self, "paused at " + std::to_string(st.processed_words()) + " words");
        rp.deliver(true);
      });
      return rp;
    },
    [self](resume_atom) -> caf::result<bool> {
      auto& st = self->state;
      if (st.phase != job_phase::paused)
        return make_job_error(std::string{"the job is not paused (it is "} + phase_name(st.phase) + ")");
      st.phase = job_phase::training;
      resume_learners(self);
      say(self, "resumed");
      return true;
    },
    [self](checkpoint_atom) -> caf::result<checkpoint_info> {
      auto& st = self->state;
      if (!st.store)
        return make_job_error("this job has no --checkpoint-dir");
      if (st.phase != job_phase::training && st.phase != job_phase::paused &&
          st.phase != job_phase::checkpointing)
        return make_job_error(std::string{"cannot checkpoint while the job is "} + phase_name(st.phase));
      auto rp = self->make_response_promise<checkpoint_info>();
      take_checkpoint(self, rp);
      return rp;
    },
    [self](cancel_atom) -> caf::result<bool> {
      auto& st = self->state;
      if (st.finished)
        return make_job_error(std::string{"the job is already "} + phase_name(st.phase));
      fail(self, make_job_error("the job was cancelled; no vectors were written"));
      st.phase = job_phase::cancelled;
      return true;
    },
    [self](export_atom, const std::string& path, bool binary) -> caf::result<uint64_t> {
      auto& st = self->state;
      if (st.shards.empty() || !(st.training_like() || st.phase == job_phase::done))
        return make_job_error(std::string{"there are no trained vectors to export (the job is "} +
                              phase_name(st.phase) + ")");
      auto rp = self->make_response_promise<uint64_t>();
      auto& node = st.nodes[node_with(st, &job_node::exporter)];
      self->request(node.handle, placement_timeout, new_export_atom::value, st.vocab.path, st.shards, st.opt.size)
        .then(
          [self, rp, path, binary](exporter_actor exporter) mutable {
            self->request(exporter, long_phase, export_atom::value, path, binary)
              .then(
                [self, rp, exporter, path](uint64_t rows) mutable {
                  self->send_exit(exporter, caf::exit_reason::user_shutdown);
                  say(self, "exported " + std::to_string(rows) + " vectors to " + path);
                  rp.deliver(rows);
                },
                [self, rp, exporter](caf::error& err) mutable {
                  self->send_exit(exporter, caf::exit_reason::user_shutdown);
                  rp.deliver(err);
                });
          },
          [rp](caf::error& err) mutable { rp.deliver(err); });
      return rp;
    },
    [self](nearest_atom, const std::string& word, uint32_t k) {
      auto rp = self->make_response_promise<std::vector<neighbour>>();
      query_similar(self, {word}, {1.0f}, k, rp);
      return rp;
    },
    [self](analogy_atom, const std::string& a, const std::string& b, const std::string& c, uint32_t k) {
      auto rp = self->make_response_promise<std::vector<neighbour>>();
      query_similar(self, {a, b, c}, {-1.0f, 1.0f, 1.0f}, k, rp);
      return rp;
    },
    [self](progress_atom, uint32_t id, learner_progress& p) {
      auto& st = self->state;
      if (id >= st.learners.size() || !st.learner_alive[id] || p.generation != st.generation)
        return; // stale: from before a rollback
      if (!st.training_like() && st.phase != job_phase::exporting)
        return;
      st.totals.merge_counters(p);
      st.learner_wire[id].merge(p.wire);
      if (p.alpha > 0)
        st.alpha = p.alpha;
      st.recent_loss += p.loss_sum;
      st.recent_pairs += p.loss_pairs;
      st.adopt_cursors(id, p.cursors);
      st.learner_idle[id] = p.idle;
      check_training_done(self);
    },
    [self](shard_lost_atom, uint32_t shard, uint32_t node) { on_shard_lost(self, shard, node); },
    [self](stop_atom) {
      auto& st = self->state;
      if (!st.finished)
        fail(self, make_job_error("the job was stopped"));
      cleanup(self, false);
      self->quit();
    },
    [self](learner_lost_atom, uint32_t learner, const std::string& why) { on_learner_lost(self, learner, why); },
    [self](tick_atom) {
      auto& st = self->state;
      if (st.finished)
        return;
      if (cancel_requested.load()) {
        fail(self, make_job_error("interrupted; no output was written"));
        return;
      }
      const double every = st.opt.log_every > 0 ? st.opt.log_every : (st.tty ? 1.0 : 10.0);
      auto now = coordinator_clock::now();
      if ((st.phase == job_phase::training || st.phase == job_phase::paused) &&
          std::chrono::duration<double>(now - st.last_line).count() >= every) {
        st.last_line = now;
        print_progress(self, false);
      }
      maybe_checkpoint(self);
      self->delayed_send(self, std::chrono::milliseconds(100), tick_atom::value);
    },
  };
}

} // namespace

const char* phase_name(job_phase p) {
  switch (p) {
    case job_phase::starting: return "starting";
    case job_phase::counting: return "counting";
    case job_phase::vocabulary: return "vocabulary";
    case job_phase::placing: return "placing";
    case job_phase::preprocessing: return "preprocessing";
    case job_phase::training: return "training";
    case job_phase::pausing: return "pausing";
    case job_phase::paused: return "paused";
    case job_phase::checkpointing: return "checkpointing";
    case job_phase::recovering: return "recovering";
    case job_phase::exporting: return "exporting";
    case job_phase::done: return "done";
    case job_phase::failed: return "failed";
    case job_phase::cancelled: return "cancelled";
  }
  return "unknown";
}

void say(coordinator_ptr self, const std::string& line) {
  auto& st = self->state;
  end_progress_line(st);
  st.message = line;
  spdlog::info("{}", line);
  if (st.sink)
    st.sink(line);
}

void warn(coordinator_ptr self, const std::string& line) {
  auto& st = self->state;
  end_progress_line(st);
  st.message = line;
  spdlog::warn("{}", line);
  if (st.sink)
    st.sink(line);
}

void fail(coordinator_ptr self, const caf::error& err) {
  auto& st = self->state;
  if (st.finished)
    return;
  st.finished = true;
  st.phase = job_phase::failed;
  st.message = error_text(err);
  end_progress_line(st);
  // A run that blew up still reports what it did, with a null loss.
  if (!st.opt.report.empty() && is_divergence(st.message)) {
    take_totals(st);
    if (auto s = write_failure_report(st.opt.report, st.summary, st.message); !s)
      spdlog::warn("{}", s.error());
  }
  for (auto& rp : st.checkpoint_waiters)
    rp.deliver(err);
  st.checkpoint_waiters.clear();
  cleanup(self, false);
  st.done.deliver(err);
}

std::vector<shard_actor> lanes_for(const coordinator_state& st, uint32_t learner) {
  std::vector<shard_actor> lanes;
  for (const auto& s : st.shards)
    lanes.push_back(s.lanes[learner % s.lanes.size()]);
  return lanes;
}

std::vector<std::vector<part_cursor>> rebalance_parts(coordinator_state& st) {
  std::vector<std::vector<part_cursor>> moved(st.learners.size());
  std::vector<size_t> load(st.learners.size(), 0);
  for (size_t p = 0; p < st.owner.size(); ++p)
    if (st.owner[p] < st.learners.size() && st.learner_alive[st.owner[p]] &&
        !st.cursors[p].finished(st.opt.iter))
      ++load[st.owner[p]];
  for (size_t p = 0; p < st.owner.size(); ++p) {
    if (st.owner[p] < st.learners.size() && st.learner_alive[st.owner[p]])
      continue;
    size_t best = st.learners.size();
    for (size_t l = 0; l < st.learners.size(); ++l)
      if (st.learner_alive[l] && (best == st.learners.size() || load[l] < load[best]))
        best = l;
    if (best == st.learners.size())
      break; // no learner left; the caller fails the job
    st.owner[p] = static_cast<uint32_t>(best);
    ++load[best];
    moved[best].push_back(st.cursors[p]);
  }
  return moved;
}

void check_training_done(coordinator_ptr self) {
  auto& st = self->state;
  if (st.phase != job_phase::training)
    return;
  for (const auto& c : st.cursors)
    if (!c.finished(st.opt.iter))
      return;
  for (size_t l = 0; l < st.learners.size(); ++l)
    if (st.learner_alive[l] && !st.learner_idle[l])
      return;
  st.summary.training_seconds =
    std::chrono::duration<double>(coordinator_clock::now() - st.training_started).count();
  print_progress(self, true);
  st.summary.final_loss = st.last_loss;
  if (st.nodes.size() > 1)
    account_nodes(st);
  run_export(self);
}

void run_export(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::exporting;
  say(self, "exporting " + std::to_string(st.vocab.size) + " vectors to " + st.opt.output);
  auto& node = st.nodes[node_with(st, &job_node::exporter)];
  const uint64_t attempt = ++st.checkpoint_attempt; // a recovery meanwhile voids this export
  self->request(node.handle, placement_timeout, new_export_atom::value, st.vocab.path, st.shards, st.opt.size)
    .then(
      [self, attempt](exporter_actor exporter) {
        auto& st = self->state;
        track(self, exporter);
        self->request(exporter, long_phase, export_atom::value, st.opt.output, st.opt.binary)
          .then(
            [self, attempt](uint64_t) {
              if (self->state.checkpoint_attempt == attempt && self->state.phase == job_phase::exporting)
                finish(self);
            },
            [self, attempt](caf::error& err) {
              if (self->state.checkpoint_attempt == attempt && self->state.phase == job_phase::exporting)
                fail(self, err);
            });
      },
      fail_with(self));
}

void place_shard(coordinator_ptr self, uint32_t s, size_t n, std::function<void()> then) {
  auto& st = self->state;
  shard_spec spec;
  spec.index = s;
  spec.count = st.opt.shards;
  spec.dim = st.opt.size;
  spec.vocabulary = st.vocab.path;
  spec.seed = st.opt.seed;
  spec.lanes = std::max<uint32_t>(1, static_cast<uint32_t>(st.learner_node.size()));
  spec.vocab_crc = st.vocab_crc;
  self->request(st.nodes[n].handle, placement_timeout, new_shard_atom::value, spec)
    .then(
      [self, s, n, then](shard_info info) {
        auto& st = self->state;
        for (auto& lane : info.lanes)
          track(self, lane);
        st.shards[s] = std::move(info);
        st.shard_node[s] = n;
        self->send(st.supervisor, watch_atom::value, s, static_cast<uint32_t>(n), st.shards[s].lanes);
        then();
      },
      [self, s, n](caf::error& err) {
        fail(self, make_job_error("cannot place shard " + std::to_string(s) + " on node " +
                                  self->state.nodes[n].name + ": " + error_text(err)));
      });
}

void request_cancel() {
  cancel_requested.store(true);
}

coordinator_actor spawn_coordinator(caf::actor_system& sys, uint64_t job, train_options options,
                                    std::vector<job_node> nodes, progress_sink sink, bool keep_shards) {
  return sys.spawn(coordinator_behavior, job, std::move(options), std::move(nodes), std::move(sink), keep_shards);
}

} // namespace gridvec
