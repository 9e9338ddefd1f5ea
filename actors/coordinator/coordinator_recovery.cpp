// The coordinator's answers to everything that interrupts training: pause
// and resume, checkpoints, and the loss of a shard or a learner.
//
// A checkpoint is one consistent point of the run: every learner is paused
// at a sentence boundary with nothing in flight (so every update it sent has
// been applied), then every shard writes its slices and the coordinator the
// manifest with the parts' exact cursors (src/formats/checkpoint.hpp for the files).
//
// A lost shard is restored by rolling the whole job back to the newest
// usable checkpoint: the learners are halted (their minibatches in flight
// are forgotten, and each syncs with the live shards so none still holds an
// old message), a new shard is placed where the supervisor said, every
// shard loads the checkpoint's slices, and the learners continue from its
// cursors. A damaged checkpoint makes it fall back to the one before; with
// no checkpoint at all the job starts over from the initial vectors.
//
// A lost learner needs no rollback: the shards still hold everything it
// did, and its parts go to the other learners from its last safe cursors.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "actors/coordinator/coordinator_state.hpp"
#include "actors/coordinator/phases.hpp"
#include "actors/layouts/layouts.hpp"
#include "src/corpus/id_stream.hpp"

namespace gridvec {

namespace {

constexpr auto learner_timeout = std::chrono::seconds(180);
constexpr auto shard_io_timeout = std::chrono::seconds(3600);

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

double since(coordinator_clock::time_point t) {
  return std::chrono::duration<double>(coordinator_clock::now() - t).count();
}

// A checkpoint that could not be written. When its files could not be
// written (`storage`: a full disk, a directory gone), the job stops unless
// the user chose --checkpoint-failures warn: hours of training that cannot
// be saved should not go on as if they could. A checkpoint interrupted by
// a lost shard or learner is the recovery's business, not a failure.
void abort_checkpoint(coordinator_ptr self, const std::string& why, job_phase before, bool storage = false) {
  auto& st = self->state;
  warn(self, "checkpoint failed: " + why);
  for (auto& rp : st.checkpoint_waiters)
    rp.deliver(make_job_error("checkpoint failed: " + why));
  st.checkpoint_waiters.clear();
  if (storage && !st.opt.checkpoint_failures_warn) {
    fail(self, make_job_error("checkpoint failed: " + why +
                              " (the job stops: its progress cannot be saved; --checkpoint-failures warn trains on)"));
    return;
  }
  if (st.phase == job_phase::checkpointing) {
    st.phase = before;
    if (before == job_phase::training)
      resume_learners(self);
  }
  // Try again after a full interval rather than at once.
  st.last_checkpoint_time = coordinator_clock::now();
  st.words_at_last_checkpoint = st.processed_words();
}

checkpoint_manifest make_manifest(const coordinator_state& st, uint64_t sequence,
                                  const std::vector<file_digest>& digests) {
  checkpoint_manifest m;
  m.sequence = sequence;
  m.options = to_args(st.opt);
  m.vocabulary_file = "vocabulary.txt";
  m.vocab_size = st.vocab.size;
  m.vocab_crc = st.vocab_crc;
  m.raw_words = st.vocab.raw_words;
  m.trained_words = st.totals.trained_words;
  m.pairs = st.totals.pairs;
  m.training_seconds = st.summary.training_seconds + since(st.training_started);
  m.alpha = st.alpha;
  m.parts = st.cursors;
  m.ranges = st.ranges;
  for (uint32_t s = 0; s < digests.size(); ++s)
    m.shards.push_back({s, "shard-" + std::to_string(s) + ".bin", digests[s]});
  m.loss_history = st.loss_history;
  return m;
}

void write_shard_slices(coordinator_ptr self, uint64_t attempt, job_phase before, coordinator_clock::time_point t0) {
  auto& st = self->state;
  const uint64_t sequence = st.next_sequence++;
  if (auto s = st.store->prepare(sequence); !s) {
    abort_checkpoint(self, s.error(), before, true);
    return;
  }
  auto digests = std::make_shared<std::vector<file_digest>>(st.shards.size());
  auto pending = std::make_shared<size_t>(st.shards.size());
  auto failed = std::make_shared<bool>(false);
  for (uint32_t s = 0; s < st.shards.size(); ++s) {
    auto file = st.store->partial_dir(sequence) + "/shard-" + std::to_string(s) + ".bin";
    self->request(st.shards[s].lanes.front(), shard_io_timeout, save_atom::value, file, uint64_t{st.vocab_crc})
      .then(
        [=](const file_digest& d) {
          auto& st = self->state;
          if (*failed || st.checkpoint_attempt != attempt)
            return;
          (*digests)[s] = d;
          if (--*pending > 0)
            return;
          auto m = make_manifest(st, sequence, *digests);
          if (auto w = write_manifest(st.store->partial_dir(sequence) + "/MANIFEST", m); !w) {
            st.store->discard(sequence);
            abort_checkpoint(self, w.error(), before, true);
            return;
          }
          if (auto c = st.store->commit(sequence, st.opt.checkpoint_keep); !c) {
            st.store->discard(sequence);
            abort_checkpoint(self, c.error(), before, true);
            return;
          }
          st.last_checkpoint = sequence;
          st.last_checkpoint_time = coordinator_clock::now();
          st.words_at_last_checkpoint = st.processed_words();
          ++st.summary.checkpoints;
          checkpoint_info info{sequence, st.store->final_dir(sequence), since(t0)};
          say(self, "checkpoint " + std::to_string(sequence) + " written to " + info.path + " in " +
                      seconds_text(info.seconds) + " (" + std::to_string(m.processed_words()) + " words done)");
          for (auto& rp : st.checkpoint_waiters)
            rp.deliver(info);
          st.checkpoint_waiters.clear();
          st.phase = before;
          if (before == job_phase::training)
            resume_learners(self);
        },
        [=](caf::error& err) {
          if (*failed || self->state.checkpoint_attempt != attempt)
            return;
          *failed = true;
          // Nothing of this attempt stays (the other shards' files are
          // complete, but a checkpoint is all of them or none).
          self->state.store->discard(sequence);
          // The shard answered with its own error (it could not write its
          // file); a lost shard is a system error, and the supervisor's.
          const bool storage = err.category() != caf::atom("system");
          abort_checkpoint(self, "shard " + std::to_string(s) + ": " + error_text(err), before, storage);
        });
  }
}

void apply_rollback(coordinator_ptr self, const checkpoint_manifest* m, const std::string& from,
                    const std::vector<uint32_t>& restored);

void load_into_shards(coordinator_ptr self, std::optional<checkpoint_manifest> m, std::vector<uint32_t> restored) {
  auto& st = self->state;
  auto pending = std::make_shared<size_t>(st.shards.size());
  auto failed = std::make_shared<bool>(false);
  const std::string from = m ? "checkpoint " + std::to_string(m->sequence) : std::string{"the initial vectors"};
  for (uint32_t s = 0; s < st.shards.size(); ++s) {
    auto done = [self, pending, failed, m, from, restored](bool) {
      if (*failed || --*pending > 0)
        return;
      apply_rollback(self, m ? &*m : nullptr, from, restored);
    };
    // A shard lost since this recovery began is not loaded now: it is
    // restored by the next round (apply_rollback starts one), and the load
    // would only wait for a dead lane.
    if (st.lost_shards.count(s)) {
      done(true);
      continue;
    }
    auto on_error = [self, failed, m, s, done](caf::error& err) {
      if (*failed)
        return;
      auto& st = self->state;
      // The shard died under the load (its loss may not be reported yet):
      // the checkpoint is not to blame, and the next round restores it.
      if (err == caf::sec::request_receiver_down || st.lost_shards.count(s)) {
        done(true);
        return;
      }
      *failed = true;
      if (!m) {
        fail(self, make_job_error("shard " + std::to_string(s) + " cannot be reset: " + error_text(err)));
        return;
      }
      warn(self, "checkpoint " + std::to_string(m->sequence) + " is unusable (" + error_text(err) +
                   "); falling back to the previous checkpoint");
      st.bad_checkpoints.insert(m->sequence);
      restore_latest(self);
    };
    const auto& lane = st.shards[s].lanes.front();
    if (m)
      self
        ->request(lane, shard_io_timeout, load_atom::value, st.store->final_dir(m->sequence) + "/" + m->shards[s].file,
                  uint64_t{st.vocab_crc})
        .then(done, on_error);
    else
      self->request(lane, shard_io_timeout, reset_atom::value).then(done, on_error);
  }
}

void begin_recovery(coordinator_ptr self);

void apply_rollback(coordinator_ptr self, const checkpoint_manifest* m, const std::string& from,
                    const std::vector<uint32_t>& restored) {
  auto& st = self->state;
  if (st.resuming)
    st.resumed_words = m ? m->processed_words() : 0;
  if (m) {
    st.cursors = m->parts;
    st.totals.trained_words = m->trained_words;
    st.totals.pairs = m->pairs;
    st.loss_history = m->loss_history;
    st.alpha = m->alpha;
    st.last_checkpoint = m->sequence;
  } else {
    for (auto& c : st.cursors) {
      c.epoch = 0;
      c.offset = id_reader::first_offset;
      c.processed = 0;
    }
    st.totals.trained_words = 0;
    st.totals.pairs = 0;
    st.loss_history.clear();
  }
  const uint64_t now_at = st.processed_words();
  const uint64_t redone = st.words_before_recovery > now_at ? st.words_before_recovery - now_at : 0;
  if (!st.resuming)
    st.summary.redone_words += redone;
  st.words_before_recovery = 0; // counted; a further loss counts from here
  if (!st.lost_shards.empty()) {
    begin_recovery(self); // more shards were lost meanwhile: once more, with them
    return;
  }
  // Reports sent before a learner takes the rollback carry older cursors.
  const uint64_t generation = ++st.generation;
  if (st.queue) { // every lease starts over from the rolled-back cursors
    st.queue->clear();
    st.owner.assign(st.cursors.size(), work_queue::nobody);
  }
  rebalance_parts(st);
  learner_round(
    self,
    [self, generation](uint32_t l, std::function<void(bool)> done) {
      auto& st = self->state;
      std::vector<part_cursor> mine;
      for (size_t p = 0; p < st.cursors.size(); ++p)
        if (st.owner[p] == l)
          mine.push_back(st.cursors[p]);
      // The hosts left, before the rollback reloads the model.
      if (layout_entry_of(st.opt.layout_of_shards()).learners_share_rounds)
        self->request(st.learners[l], learner_timeout, hosts_atom::value, live_hosts(st))
          .then([](bool) {}, [](caf::error&) {});
      self->request(st.learners[l], learner_timeout, rollback_atom::value, generation, mine, lanes_for(st, l))
        .then([done](bool) { done(true); }, [done](caf::error&) { done(false); });
    },
    [self, from, restored, redone, generation](bool ok) {
      auto& st = self->state;
      if (st.finished || st.generation != generation)
        return;
      if (!ok) {
        fail(self, make_job_error("the learners could not be rolled back to " + from));
        return;
      }
      std::string what;
      if (st.resuming) {
        what = "resumed from " + from + " in " + seconds_text(since(st.recovery_started));
        st.resuming = false;
      } else if (restored.empty()) { // a replicated job's host
        ++st.summary.recoveries;
        what = "recovered: " + st.lost_learner + "; the other hosts restarted from " + from + " in " +
               seconds_text(since(st.recovery_started)) + "; " + std::to_string(redone) + " words to train again";
      } else {
        std::string shards, where;
        for (uint32_t s : restored) {
          shards += (shards.empty() ? "" : ", ") + std::to_string(s);
          where += (where.empty() ? "" : ", ") + st.nodes[st.shard_node[s]].name;
        }
        ++st.summary.recoveries;
        what = "recovered: shard " + shards + " restored on node " + where + " from " + from + " in " +
               seconds_text(since(st.recovery_started)) + "; " + std::to_string(redone) + " words to train again";
      }
      say(self, what);
      st.phase = job_phase::training;
      st.learner_idle.assign(st.learners.size(), false);
      // A resumed job's training begins here; a recovery within a run
      // keeps the training clock going.
      if (st.training_started == coordinator_clock::time_point{}) {
        st.start_rate_clock();
        st.training_started = st.last_line = st.last_checkpoint_time = st.rate_started;
      }
      st.words_at_last_checkpoint = st.processed_words();
      resume_learners(self);
    });
}

// Places the lost shards anew, then loads one checkpoint into every shard.
void place_lost_shards(coordinator_ptr self, std::map<uint32_t, uint32_t> lost) {
  auto& st = self->state;
  // The halted learners' cursors include what they trained since their
  // last progress report: all of it is to be trained again.
  st.words_before_recovery = std::max(st.words_before_recovery, st.processed_words());
  for (const auto& [s, node] : lost)
    if (std::find(st.restoring.begin(), st.restoring.end(), s) == st.restoring.end())
      st.restoring.push_back(s);
  if (lost.empty()) { // a replicated job's host was lost: only a rollback
    restore_latest(self);
    return;
  }
  auto pending = std::make_shared<size_t>(lost.size());
  for (const auto& [s, node] : lost)
    place_shard(self, s, node, [self, pending] {
      if (--*pending == 0) // the other shards' visits go to the new one
        connect_shards(self, [self] { restore_latest(self); });
    });
}

// First the learners halt: each stops sending and syncs with every live
// shard, so that no minibatch from before the loss is still on its way.
// A shard lost while they halt restarts the halt without it (a sync with
// a dead shard would only wait for its timeout); one lost later, while the
// shards are placed and loaded, is taken along by apply_rollback, and the
// learners, halted already, are not halted again.
void begin_recovery(coordinator_ptr self) {
  auto& st = self->state;
  if (st.phase == job_phase::checkpointing || st.phase == job_phase::exporting) {
    for (auto& rp : st.checkpoint_waiters)
      rp.deliver(make_job_error("a shard was lost while the checkpoint was written"));
    st.checkpoint_waiters.clear();
  }
  ++st.checkpoint_attempt;                 // voids a checkpoint or export under way
  if (st.phase != job_phase::recovering) { // not a further loss within one recovery
    st.recovery_started = coordinator_clock::now();
    st.restoring.clear();
  }
  st.phase = job_phase::recovering;
  auto lost = std::move(st.halting_for);
  st.halting_for.clear();
  for (const auto& [s, node] : st.lost_shards)
    lost[s] = node;
  st.lost_shards.clear();
  const uint64_t generation = ++st.generation;
  if (st.learners_halted) {
    place_lost_shards(self, std::move(lost));
    return;
  }
  std::vector<uint32_t> live;
  for (uint32_t s = 0; s < st.shards.size(); ++s)
    if (!lost.count(s))
      live.push_back(s);
  st.halting_for = lost;
  learner_round(
    self,
    [self, generation, live](uint32_t l, std::function<void(bool)> done) {
      self->request(self->state.learners[l], learner_timeout, halt_atom::value, generation, live)
        .then(
          [self, l, done, generation](const std::vector<part_cursor>& cursors) {
            // A halt that a later loss restarted may answer late, after a
            // rollback: its cursors are no longer the learner's.
            if (self->state.generation == generation)
              take_reported_parts(self, l, cursors);
            done(true);
          },
          [done](caf::error&) { done(false); });
    },
    [self, generation](bool) {
      auto& st = self->state;
      if (st.finished || st.generation != generation)
        return; // a later loss restarted the halt
      st.learners_halted = true;
      auto lost = std::move(st.halting_for);
      st.halting_for.clear();
      place_lost_shards(self, std::move(lost));
    });
}

} // namespace

void learner_round(coordinator_ptr self, std::function<void(uint32_t, std::function<void(bool)>)> ask,
                   std::function<void(bool)> then) {
  auto& st = self->state;
  auto round = std::make_shared<coordinator_state::learner_round>();
  round->then = std::move(then);
  for (uint32_t l = 0; l < st.learners.size(); ++l)
    if (st.learner_alive[l])
      round->waiting.insert(l);
  if (round->waiting.empty()) {
    round->then(true);
    return;
  }
  st.rounds.push_back(round);
  auto waiting = round->waiting;
  for (uint32_t l : waiting)
    ask(l, [self, round, l](bool ok) {
      if (!round->waiting.erase(l))
        return;
      round->ok &= ok;
      if (round->waiting.empty()) {
        auto& rounds = self->state.rounds;
        rounds.erase(std::remove(rounds.begin(), rounds.end(), round), rounds.end());
        round->then(round->ok);
      }
    });
}

void pause_learners(coordinator_ptr self, std::function<void(bool)> then) {
  learner_round(
    self,
    [self](uint32_t l, std::function<void(bool)> done) {
      self->request(self->state.learners[l], learner_timeout, pause_atom::value)
        .then(
          [self, l, done](const std::vector<part_cursor>& cursors) {
            take_reported_parts(self, l, cursors);
            done(true);
          },
          [done](caf::error&) { done(false); });
    },
    std::move(then));
}

void resume_learners(coordinator_ptr self) {
  auto& st = self->state;
  st.learners_halted = false;
  for (uint32_t l = 0; l < st.learners.size(); ++l)
    if (st.learner_alive[l])
      self->request(st.learners[l], learner_timeout, resume_atom::value).then([](bool) {}, [](caf::error&) {});
  hand_out_parts(self); // leases that ended while paused
}

void take_checkpoint(coordinator_ptr self, std::optional<caf::typed_response_promise<checkpoint_info>> rp) {
  auto& st = self->state;
  if (rp)
    st.checkpoint_waiters.push_back(*rp);
  if (st.phase == job_phase::checkpointing)
    return; // the one under way answers every waiter
  const job_phase before = st.phase;
  st.phase = job_phase::checkpointing;
  const uint64_t attempt = ++st.checkpoint_attempt;
  const auto t0 = coordinator_clock::now();
  auto after_pause = [self, attempt, before, t0](bool ok) {
    auto& st = self->state;
    if (st.checkpoint_attempt != attempt || st.finished)
      return; // a recovery took over
    if (!ok) {
      abort_checkpoint(self, "the learners could not be paused", before);
      return;
    }
    write_shard_slices(self, attempt, before, t0);
  };
  if (before == job_phase::paused)
    after_pause(true);
  else
    pause_learners(self, after_pause);
}

void maybe_checkpoint(coordinator_ptr self) {
  auto& st = self->state;
  if (!st.store || st.phase != job_phase::training)
    return;
  const bool by_time = st.opt.checkpoint_seconds > 0 && since(st.last_checkpoint_time) >= st.opt.checkpoint_seconds;
  const bool by_words =
    st.opt.checkpoint_words > 0 && st.processed_words() >= st.words_at_last_checkpoint + st.opt.checkpoint_words;
  if (by_time || by_words)
    take_checkpoint(self, std::nullopt);
}

void restore_latest(coordinator_ptr self) {
  auto& st = self->state;
  if (st.store)
    for (uint64_t seq : st.store->complete()) {
      if (st.bad_checkpoints.count(seq))
        continue;
      auto m = read_manifest(st.store->final_dir(seq) + "/MANIFEST");
      if (!m) {
        warn(self, "checkpoint " + std::to_string(seq) + " is unusable (" + m.error() +
                     "); falling back to the previous checkpoint");
        st.bad_checkpoints.insert(seq);
        continue;
      }
      if (m->shards.size() != st.shards.size() || m->parts.size() != st.cursors.size()) {
        warn(self, "checkpoint " + std::to_string(seq) + " belongs to another job layout; skipping it");
        st.bad_checkpoints.insert(seq);
        continue;
      }
      load_into_shards(self, std::move(*m), st.restoring);
      return;
    }
  if (st.resuming) {
    fail(self, make_job_error("cannot resume: no usable checkpoint is left in " + st.store->root()));
    return;
  }
  warn(self, "no usable checkpoint: every shard starts over from the initial vectors");
  load_into_shards(self, std::nullopt, st.restoring);
}

void on_shard_lost(coordinator_ptr self, uint32_t shard, uint32_t node) {
  auto& st = self->state;
  // Lost whatever the job does about it: nothing waits on that node again.
  if (shard < st.shard_node.size())
    st.lost_nodes.insert(st.shard_node[shard]);
  if (st.finished) {
    if (st.phase == job_phase::done)
      warn(self, "shard " + std::to_string(shard) + " is lost; the job's vectors were already written");
    return;
  }
  if (!st.training_like() && st.phase != job_phase::exporting) {
    fail(self, make_job_error("shard " + std::to_string(shard) + " was lost before training started (while " +
                              phase_name(st.phase) + "); submit the job again"));
    return;
  }
  if (node == no_node) {
    fail(self, make_job_error("shard " + std::to_string(shard) +
                              " is lost and no node has room to restore it (add a standby shard node to the "
                              "cluster config)"));
    return;
  }
  warn(self, "shard " + std::to_string(shard) + " on node " + st.nodes[st.shard_node[shard]].name +
               " is lost; restoring it on node " + st.nodes[node].name + " from the last checkpoint");
  st.lost_shards[shard] = node;
  if (st.phase == job_phase::recovering && st.halting_for.empty())
    return;             // the shards are being placed and loaded: apply_rollback takes it along
  begin_recovery(self); // a new recovery, or the halt under way again without this shard
}

void on_learner_lost(coordinator_ptr self, uint32_t learner, const std::string& why) {
  auto& st = self->state;
  if (why.empty() && learner < st.learner_node.size())
    st.lost_nodes.insert(st.learner_node[learner]);
  if (st.finished || learner >= st.learners.size() || !st.learner_alive[learner])
    return;
  if (!why.empty()) {
    fail(self, make_job_error(why));
    return;
  }
  const std::string node = st.nodes[st.learner_node[learner]].name;
  st.learner_alive[learner] = false;
  st.learner_idle[learner] = true;
  // A lost learner counts as having answered whatever round waits for it.
  for (auto round : std::vector(st.rounds))
    if (round->waiting.erase(learner) && round->waiting.empty()) {
      st.rounds.erase(std::remove(st.rounds.begin(), st.rounds.end(), round), st.rounds.end());
      round->then(round->ok);
    }
  bool any = false;
  for (bool alive : st.learner_alive)
    any |= alive;
  if (!any) {
    fail(self,
         make_job_error("every learner is lost (the last, " + std::to_string(learner) + ", on node " + node + ")"));
    return;
  }
  if (!st.training_like() && st.phase != job_phase::exporting) {
    fail(self, make_job_error("learner " + std::to_string(learner) + " on node " + node +
                              " was lost before training started (while " + phase_name(st.phase) +
                              "); submit the job again"));
    return;
  }
  if (st.phase == job_phase::recovering)
    return; // the rollback hands its parts out
  if (layout_entry_of(st.opt.layout_of_shards()).learners_share_rounds) {
    // Every host takes part in every round, and the lost one's changes
    // since the last round are gone: every host starts again from the last
    // checkpoint (the shards hold it), with the lost one's parts shared out.
    warn(self, "learner " + std::to_string(learner) + " on node " + node +
                 " is lost; the other hosts start again from the last checkpoint without it");
    st.lost_learner = "learner " + std::to_string(learner) + " on node " + node + " lost";
    begin_recovery(self);
    return;
  }
  if (st.queue) {
    // Its parts go back to the queue from their last safe cursors: only
    // what it had not yet made safe is trained again.
    std::string parts;
    for (uint32_t p : st.queue->held_by(learner)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%u (epoch %u, %.0f%% done)", parts.empty() ? "" : ", ", p,
                    st.cursors[p].epoch + 1, 100.0 * st.cursors[p].fraction(st.opt.iter));
      parts += buf;
    }
    warn(self,
         "learner " + std::to_string(learner) + " on node " + node + " is lost" +
           (parts.empty() ? std::string{"; it held no part"} : "; part " + parts + " goes back to the work queue"));
    hand_out_parts(self);
    return;
  }
  auto moved = rebalance_parts(st);
  for (uint32_t l = 0; l < moved.size(); ++l) {
    if (moved[l].empty())
      continue;
    std::string parts;
    for (const auto& c : moved[l]) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%u (epoch %u, %.0f%% done)", parts.empty() ? "" : ", ", c.part, c.epoch + 1,
                    100.0 * c.fraction(st.opt.iter));
      parts += buf;
    }
    warn(self, "learner " + std::to_string(learner) + " on node " + node + " is lost; part " + parts +
                 " goes to learner " + std::to_string(l) + " on node " + st.nodes[st.learner_node[l]].name);
    st.learner_idle[l] = false;
    self->request(st.learners[l], placement_timeout, assign_atom::value, moved[l]).then([](bool) {}, fail_with(self));
  }
}

} // namespace gridvec
