// The learner actor: trains the corpus parts the coordinator assigns it on
// the path its shards' layout makes (training_path.hpp), and answers
// pause/resume, halt and rollback (recovery), and status. Its pieces:
// learner_state.hpp.
#include <gridvec/roles/learner.hpp>

#include <spdlog/spdlog.h>
#include <algorithm>

#include "actors/layouts/layouts.hpp"
#include "actors/learner/learner_state.hpp"
#include <gridvec/roles/vocabulary.hpp>
#include "actors/partition_join.hpp"

namespace gridvec {

namespace learner {

void report(learner_ptr self, bool force) {
  auto& st = self->state;
  const bool idle = st.idle();
  if (!force && idle && st.reported_idle && !st.source->has_untaken())
    return;
  learner_progress p = std::move(st.unreported);
  st.unreported = learner_progress{};
  const trained_count trained = st.source->take_trained();
  p.trained_words += trained.words;
  p.pairs += trained.pairs;
  p.generation = st.generation;
  p.cursors = st.source->safe_cursors();
  p.idle = idle;
  p.in_flight = static_cast<uint32_t>(st.source->in_flight().size());
  st.reported_idle = idle;
  self->send(st.coordinator, progress_atom::value, st.cfg.id, std::move(p));
}

// A shard did not answer. If it is gone the supervisor will restore it and
// the coordinator will halt and roll back this learner; anything else is a
// bug or bad data, and ends the job.
void on_shard_error(learner_ptr self, uint64_t generation, const caf::error& err) {
  auto& st = self->state;
  if (generation != st.generation)
    return; // requests forgotten by halt
  if (err.category() == caf::atom("system") && err != caf::sec::runtime_error) {
    if (st.state != mode::stalled)
      spdlog::warn("learner {}: a shard stopped answering ({}); waiting for recovery", st.cfg.id, error_text(err));
    st.state = mode::stalled;
    return;
  }
  fail(self, error_text(err));
}

void fail(learner_ptr self, const std::string& what) {
  auto& st = self->state;
  spdlog::error("learner {}: {}", st.cfg.id, what);
  self->quit(make_job_error("learner " + std::to_string(st.cfg.id) + ": " + what));
}

void settle_pause(learner_ptr self) {
  auto& st = self->state;
  if (st.state != mode::pausing || st.mid_sentence() || !st.source->in_flight().empty())
    return;
  st.state = mode::paused;
  std::vector<part_cursor> cursors(st.source->walker().parts().begin(), st.source->walker().parts().end());
  for (auto& rp : st.pause_waiters)
    rp.deliver(cursors);
  st.pause_waiters.clear();
  report(self, true);
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

void pump_settled(learner_ptr self) {
  auto& st = self->state;
  settle_pause(self);
  if (st.idle() && !st.reported_idle)
    report(self, true);
}

void pump(learner_ptr self) { self->state.path->pump(self); }

namespace {

learner_actor::behavior_type learner_behavior(learner_ptr self, learner_config cfg, vocabulary_counts_ptr counts,
                                              std::string vocab_path, vocabulary_ptr vocab,
                                              std::vector<shard_actor> shards, coordinator_actor coordinator) {
  self->set_default_handler(caf::drop); // unexpected messages: an error reply, never printed (node_actor.cpp)
  auto& st = self->state;
  st.cfg = cfg;
  st.counts = std::move(counts);
  st.vocab_path = std::move(vocab_path);
  st.vocab = std::move(vocab);
  st.shards = std::move(shards);
  st.coordinator = std::move(coordinator);
  if (cfg.hs)
    st.tree = shared_huffman_tree(st.counts);
  st.layout = layout_of_shards(cfg.partition, static_cast<uint32_t>(st.shards.size()));
  st.path = layout_entry_of(st.layout).make_path(st);
  st.source = std::make_unique<minibatch_source>(cfg, cfg.id, *st.counts, st.tree,
                                                 example_form_for(cfg, st.path->pair_by_pair()));
  st.losses = loss_watch{(cfg.negative > 0 ? cfg.negative + 1.0 : 0.0) + (st.tree ? st.tree->mean_length() : 0.0)};
  return {
    [self](preprocess_atom, const std::string& corpus, uint64_t begin, uint64_t end, const std::string& ids_path,
           const std::vector<vocabulary_partition_actor>& parts) -> caf::result<uint64_t> {
      // Always through the partitions: a learner never loads every word.
      auto& st = self->state;
      if (parts.empty())
        return make_job_error("turning a corpus part into ids needs the vocabulary partitions");
      uint64_t words = 0;
      const auto mode = static_cast<invalid_utf8>(st.cfg.invalid_utf8);
      if (auto s = join_through_partitions(self->system(), parts, corpus, {begin, end}, mode, ids_path, words,
                                           st.counts->size());
          !s)
        return make_job_error(s.error());
      return words;
    },
    [self](assign_atom, const std::vector<part_cursor>& parts) -> caf::result<bool> {
      auto& st = self->state;
      if (auto s = st.source->walker().add(parts); !s)
        return make_job_error(s.error());
      st.reported_idle = false;
      if (!st.ticking) {
        st.ticking = true;
        st.state = mode::running;
        self->send(self, tick_atom::value);
        if (auto s = st.path->bind(self); !s) // (running: a round's early changes count this host in)
          return make_job_error(s.error());
      }
      pump(self);
      return true;
    },
    [self](pause_atom) -> caf::result<std::vector<part_cursor>> {
      auto& st = self->state;
      if (st.state == mode::paused)
        return std::vector<part_cursor>(st.source->walker().parts().begin(), st.source->walker().parts().end());
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
      auto cursors = st.source->safe_cursors();
      st.generation = generation;
      st.source->drop_in_flight();
      st.path->halt();
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
      st.source->drop_in_flight();
      st.shards = lanes;
      st.state = mode::paused;
      st.reported_idle = false;
      if (auto s = st.source->walker().reset(parts); !s)
        return make_job_error(s.error());
      if (auto s = st.path->bind(self); !s) // (the replicated path reloads the model as the shards were restored)
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
      s.parts = st.source->safe_cursors();
      s.in_flight = static_cast<uint32_t>(st.source->in_flight().size());
      switch (st.state) {
        case mode::running: s.state = st.idle() ? "idle" : st.path->activity(); break;
        case mode::pausing: s.state = "pausing"; break;
        case mode::paused: s.state = "paused"; break;
        case mode::stalled: s.state = "waiting for a lost shard"; break;
      }
      // (words_per_second: the coordinator fills it in from the job's clock.)
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
    [self](hosts_atom, const std::vector<caf::actor>& hosts) -> caf::result<bool> {
      auto& st = self->state;
      auto me = std::find(hosts.begin(), hosts.end(), caf::actor_cast<caf::actor>(self));
      if (!layout_entry_of(st.layout).learners_share_rounds || me == hosts.end())
        return make_job_error("learner " + std::to_string(st.cfg.id) + " is not one of these " +
                              std::to_string(hosts.size()) + " hosts of a replicated job");
      st.host_index = static_cast<uint32_t>(me - hosts.begin());
      st.hosts.clear();
      for (const auto& h : hosts)
        st.hosts.push_back(caf::actor_cast<learner_actor>(h));
      on_hosts(self);
      pump(self);
      return true;
    },
    [self](round_atom, const wire_bytes& changes) { on_round_changes(self, changes); },
    [self](synced_atom, const wire_bytes& values) { on_round_values(self, values); },
  };
}

} // namespace

} // namespace learner

learner_actor spawn_learner(caf::actor_system& sys, learner_config config, vocabulary_ptr vocab,
                            std::vector<shard_actor> shards, coordinator_actor coordinator) {
  auto counts = std::make_shared<const vocabulary_counts>(vocabulary_counts::of(*vocab));
  return sys.spawn(learner::learner_behavior, config, std::move(counts), std::string{}, std::move(vocab),
                   std::move(shards), std::move(coordinator));
}

learner_actor spawn_learner(caf::actor_system& sys, learner_config config, vocabulary_counts_ptr counts,
                            std::string vocab_path, std::vector<shard_actor> shards, coordinator_actor coordinator) {
  return sys.spawn(learner::learner_behavior, config, std::move(counts), std::move(vocab_path), vocabulary_ptr{},
                   std::move(shards), std::move(coordinator));
}

} // namespace gridvec
