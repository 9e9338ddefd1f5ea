// The coordinator actor: its behaviour (run, progress from the learners,
// queries, pause/resume/checkpoint/cancel requests, ticks) and how a job
// ends (finish, fail, cleanup). The phases a job goes through are in their
// own files, listed in phases.hpp.
#include <gridvec/roles/coordinator.hpp>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>

#include "actors/coordinator/phases.hpp"

namespace gridvec {

namespace {

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
  st.vocab_partitions.clear();
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

} // namespace

void take_totals(coordinator_state& st) {
  st.ended = coordinator_clock::now();
  st.summary.seconds = std::chrono::duration<double>(st.ended - st.started).count();
  st.summary.paused_seconds = st.paused_seconds(st.ended);
  if (st.summary.memory.empty()) // else the nodes' peaks since the job began (collect_node_memory)
    st.summary.peak_rss_bytes = peak_rss_bytes();
  st.summary.processed_words = st.processed_words();
  st.summary.resumed_words = st.resumed_words;
  st.summary.trained_words = st.totals.trained_words;
  st.summary.pairs = st.totals.pairs;
  st.summary.wire = st.totals.wire;
  st.summary.replicated = st.opt.replicated();
}

namespace {
void write_summary(coordinator_ptr self);
} // namespace

void finish(coordinator_ptr self) {
  collect_node_memory(self, [self] { write_summary(self); });
}

namespace {

void write_summary(coordinator_ptr self) {
  auto& st = self->state;
  if (st.finished)
    return;
  take_totals(st);
  if (!st.opt.report.empty())
    if (auto s = write_report(st.opt.report, st.summary); !s) {
      fail(self, make_job_error(s.error()));
      return;
    }
  st.phase = job_phase::done;
  st.message = "vectors written to " + st.opt.output;
  st.finished = true;
  note_event(st, "info", "job " + std::to_string(st.job_id) + " done: " + st.message);
  record_history(st);
  cleanup(self, st.keep_shards);
  st.done.deliver(st.summary);
}

} // namespace

void finish_explained(coordinator_ptr self) {
  auto& st = self->state;
  take_totals(st);
  st.phase = job_phase::done;
  st.message = "explained the partition model; nothing trained";
  st.finished = true;
  record_history(st);
  cleanup(self, false);
  st.done.deliver(st.summary);
}

size_t node_with(const coordinator_state& st, bool job_node::*role) {
  for (size_t i = 0; i < st.nodes.size(); ++i)
    if (st.nodes[i].*role && !st.nodes[i].standby)
      return i;
  return 0;
}

namespace {

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

coordinator_actor::behavior_type coordinator_behavior(coordinator_ptr self, uint64_t job, train_options opt,
                                                      std::vector<job_node> nodes, progress_sink sink, bool keep_shards,
                                                      placing_hook before_placing, bool choose_shards) {
  auto& st = self->state;
  st.before_placing = std::move(before_placing);
  st.choose_shards = choose_shards;
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
      st.started_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
      note_event(st, "info",
                 "job " + std::to_string(st.job_id) + " started: " + st.opt.train + " -> " + st.opt.output + ", " +
                   std::to_string(st.opt.iter) + " epoch(s), dimension " + std::to_string(st.opt.size));
      st.done = self->make_response_promise<job_summary>();
      if (auto s = check_nodes(st); !s)
        return make_job_error(s.error());
      self->send(self, tick_atom::value); // progress lines, checkpoints, cancellation
      fetch_budgets(self, [self] {
        if (!self->state.finished)
          start(self);
      });
      return st.done;
    },
    [self](status_atom) { return make_status(self->state); },
    [self](history_atom) { return make_history(self->state); },
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
        return make_job_error(error_code::busy,
                              std::string{"the job is not training (it is "} + phase_name(st.phase) + ")");
      auto rp = self->make_response_promise<bool>();
      st.phase = job_phase::pausing;
      pause_learners(self, [self, rp](bool ok) mutable {
        auto& st = self->state;
        if (!ok) {
          rp.deliver(make_job_error("the learners could not be paused"));
          return;
        }
        st.phase = job_phase::paused;
        st.paused_since = coordinator_clock::now();
        say(self, "paused at " + std::to_string(st.processed_words()) + " words");
        rp.deliver(true);
      });
      return rp;
    },
    [self](resume_atom) -> caf::result<bool> {
      auto& st = self->state;
      if (st.phase != job_phase::paused)
        return make_job_error(error_code::busy,
                              std::string{"the job is not paused (it is "} + phase_name(st.phase) + ")");
      st.phase = job_phase::training;
      if (st.paused_since != coordinator_clock::time_point{})
        st.paused_for += coordinator_clock::now() - st.paused_since;
      st.paused_since = {};
      resume_learners(self);
      say(self, "resumed");
      return true;
    },
    [self](checkpoint_atom) -> caf::result<checkpoint_info> {
      auto& st = self->state;
      if (!st.store)
        return make_job_error("this job has no --checkpoint-dir");
      if (st.phase != job_phase::training && st.phase != job_phase::paused && st.phase != job_phase::checkpointing)
        return make_job_error(error_code::busy,
                              std::string{"cannot checkpoint while the job is "} + phase_name(st.phase));
      auto rp = self->make_response_promise<checkpoint_info>();
      take_checkpoint(self, rp);
      return rp;
    },
    [self](cancel_atom) -> caf::result<bool> {
      auto& st = self->state;
      if (st.finished)
        return make_job_error(error_code::busy, std::string{"the job is already "} + phase_name(st.phase));
      fail(self, make_job_error("the job was cancelled; no vectors were written"));
      st.phase = job_phase::cancelled;
      record_history(st);
      return true;
    },
    [self](export_atom, const std::string& path, bool binary) -> caf::result<uint64_t> {
      auto& st = self->state;
      if (st.shards.empty() || !(st.training_like() || st.phase == job_phase::done))
        return make_job_error(error_code::busy, std::string{"there are no trained vectors to export (the job is "} +
                                                  phase_name(st.phase) + ")");
      auto rp = self->make_response_promise<uint64_t>();
      auto& node = st.nodes[node_with(st, &job_node::exporter)];
      self->request(node.handle, placement_timeout, new_export_atom::value, st.vocab.path, st.shards, st.opt.size)
        .then(
          [self, rp, path, binary](exporter_actor exporter) mutable {
            self->request(exporter, long_phase, export_atom::value, path, binary, uint32_t{0})
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
    [self](vector_atom, const std::string& word) {
      auto rp = self->make_response_promise<wire_bytes>();
      query_vector(self, word, rp);
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
      // Every live host of --partition replicated takes part in every round.
      st.learner_rounds[id] += p.sync_rounds;
      st.summary.sync_rounds = std::max(st.summary.sync_rounds, st.learner_rounds[id]);
      if (p.alpha > 0)
        st.alpha = p.alpha;
      st.recent_loss += p.loss_sum;
      st.recent_pairs += p.loss_pairs;
      st.history.add_loss(p.loss_sum, p.loss_pairs);
      st.learner_idle[id] = p.idle;
      take_reported_parts(self, id, p.cursors); // the work queue hands out more
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
      // The request is taken by the job it stops: a process that goes on
      // (the Python module after Ctrl-C) can run the next job.
      if (cancel_requested.exchange(false)) {
        fail(self, make_job_error("interrupted; no output was written"));
        return;
      }
      record_history(st);
      const double every = st.opt.log_every > 0 ? st.opt.log_every : (st.tty ? 1.0 : 10.0);
      auto now = coordinator_clock::now();
      auto since = [now](coordinator_clock::time_point t) { return std::chrono::duration<double>(now - t).count(); };
      if (st.phase == job_phase::training || st.phase == job_phase::paused) {
        // The log gets a line every `every` seconds; a listener (a terminal
        // of `gridvec submit`, the shell) every second, to redraw.
        const bool log_due = since(st.last_line) >= every;
        const bool sink_due = st.sink && since(st.last_sink_line) >= 1.0;
        if (log_due)
          st.last_line = now;
        if (log_due || sink_due) {
          st.last_sink_line = now;
          print_progress(self, false, log_due);
        }
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
  note_event(st, "info", line);
  spdlog::info("{}", line);
  if (st.sink)
    st.sink(line);
}

void warn(coordinator_ptr self, const std::string& line) {
  auto& st = self->state;
  end_progress_line(st);
  st.message = line;
  note_event(st, "warning", line);
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
  if (st.ended == coordinator_clock::time_point{})
    st.ended = coordinator_clock::now();
  st.message = error_text(err);
  end_progress_line(st);
  note_event(st, "error", st.message);
  record_history(st);
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

void request_cancel() { cancel_requested.store(true); }

coordinator_actor spawn_coordinator(caf::actor_system& sys, uint64_t job, train_options options,
                                    std::vector<job_node> nodes, progress_sink sink, bool keep_shards,
                                    placing_hook before_placing, bool choose_shards) {
  return sys.spawn(coordinator_behavior, job, std::move(options), std::move(nodes), std::move(sink), keep_shards,
                   std::move(before_placing), choose_shards);
}

} // namespace gridvec
