// start phase: see phases.hpp for where it stands among the others.
// The first phase: a supervisor for the job's nodes, the checkpoint store
// and work directory, then either counting (a fresh job) or placing and
// recovering from the newest checkpoint (--resume).
#include "actors/coordinator/phases.hpp"
#include "src/access/guarded_open.hpp"
#include "src/access/path_policy.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>

#include <gridvec/roles/supervisor.hpp>
#include <gridvec/roles/vocabulary.hpp>

namespace gridvec {

namespace {

void spawn_vocab_partitions(coordinator_ptr self, std::function<void()> then);

void start_fresh(coordinator_ptr self) {
  auto& st = self->state;
  // Counted in one range per learner; trained in --parts-per-learner parts
  // per learner, handed out as a work queue (a replicated host's are its
  // own, so many per thread).
  auto counted = split_corpus(st.opt.train, st.learner_node.size());
  const uint32_t most_threads =
    st.learner_threads.empty() ? 1 : *std::max_element(st.learner_threads.begin(), st.learner_threads.end());
  const uint32_t part_count = st.opt.parts_for(static_cast<uint32_t>(st.learner_node.size()), most_threads);
  auto parts = counted && part_count != counted->size() ? split_corpus(st.opt.train, part_count) : counted;
  if (!counted || !parts) {
    fail(self, make_job_error(!counted ? counted.error() : parts.error()));
    return;
  }
  st.count_ranges = std::move(*counted);
  st.ranges = std::move(*parts);
  spawn_vocab_partitions(self, [self] { count_words(self); });
}

// One vocabulary partition on every node with the vocabulary role, in the
// config's order (which orders equal counts: docs/vocabulary.md), into
// st.vocab_partitions; then `then`.
void spawn_vocab_partitions(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  std::vector<size_t> vocab_nodes;
  for (size_t i = 0; i < st.nodes.size(); ++i)
    if (st.nodes[i].vocabulary && !st.nodes[i].standby)
      vocab_nodes.push_back(i);
  st.vocab_partitions.assign(vocab_nodes.size(), vocabulary_partition_actor{});
  auto pending = std::make_shared<size_t>(vocab_nodes.size());
  for (size_t p = 0; p < vocab_nodes.size(); ++p)
    self->request(st.nodes[vocab_nodes[p]].handle, placement_timeout, new_vocab_atom::value)
      .then(
        [self, p, pending, then](vocabulary_partition_actor v) {
          track(self, v);
          self->state.vocab_partitions[p] = v;
          if (--*pending == 0)
            then();
        },
        fail_with(self));
}

// The partitions that counted the words ended with the first run. A
// resumed job that needs the words (a part's id file gone, or --init's row
// map) starts a partition on every vocabulary node again, and each reads its
// share of the words and their ids back from the job's vocabulary file;
// then `then`.
void read_back_partitions(coordinator_ptr self, std::function<void()> then) {
  spawn_vocab_partitions(self, [self, then] {
    auto& st = self->state;
    const auto partitions = static_cast<uint32_t>(st.vocab_partitions.size());
    auto loaded = std::make_shared<size_t>(partitions);
    for (uint32_t p = 0; p < partitions; ++p)
      self
        ->request(st.vocab_partitions[p], long_phase, load_atom::value, st.vocab.path, p, partitions,
                  uint64_t{st.vocab.size}, st.vocab_crc)
        .then(
          [loaded, then](uint64_t) {
            if (--*loaded == 0)
              then();
          },
          fail_with(self));
  });
}

void end_partitions(coordinator_ptr self) {
  auto& st = self->state;
  for (auto& v : st.vocab_partitions)
    self->send_exit(v, caf::exit_reason::user_shutdown);
  st.vocab_partitions.clear();
}

// The parts `missing` (their id files are gone) turned into ids again
// through the partitions; then `then`.
void preprocess_again(coordinator_ptr self, const std::vector<uint32_t>& missing, std::function<void()> then) {
  if (missing.empty()) {
    then();
    return;
  }
  auto& st = self->state;
  auto pending = std::make_shared<size_t>(missing.size());
  for (uint32_t part : missing) {
    auto& c = st.cursors[part];
    say(self, "preprocessing part " + std::to_string(part) + " again: " + c.ids_path + " is gone");
    self
      ->request(st.learners[part % st.learners.size()], long_phase, preprocess_atom::value, st.opt.train,
                st.ranges[part].begin, st.ranges[part].end, c.ids_path, st.vocab_partitions)
      .then(
        [pending, then](uint64_t) {
          if (--*pending == 0)
            then();
        },
        fail_with(self));
  }
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
  // The manifest's sizes are checked as a client's would be: its
  // vocabulary size against the vocabulary file it names.
  if (st.counts->size != m.vocab_size) {
    fail(self, make_job_error("checkpoint " + std::to_string(m.sequence) + " in " + st.store->root() + " records " +
                              std::to_string(m.vocab_size) + " words; its vocabulary file holds " +
                              std::to_string(st.counts->size)));
    return;
  }
  if (st.vocab_crc != m.vocab_crc) {
    fail(self, make_job_error("the vocabulary in " + st.store->root() + " does not match its checkpoints"));
    return;
  }
  st.vocab.train_words = st.counts->train_words;
  st.ranges = m.ranges;
  st.cursors = m.parts;
  st.owner.resize(m.parts.size());
  for (uint32_t p = 0; p < m.parts.size(); ++p)
    st.owner[p] = p % static_cast<uint32_t>(st.learner_node.size());
  if (st.opt.work_queue()) // the rollback to the checkpoint hands the parts out
    st.queue.emplace(st.cursors.size(), st.opt.iter);
  st.resuming = true;
  say(self, "resuming from checkpoint " + std::to_string(m.sequence) + " in " + st.store->root() + ": " +
              std::to_string(m.processed_words()) + " words of " + std::to_string(st.total_words()) + " done");
  std::vector<uint32_t> missing;
  for (uint32_t p = 0; p < st.cursors.size(); ++p)
    if (!std::filesystem::exists(st.cursors[p].ids_path))
      missing.push_back(p);
  // --init's row map, from the first run's work directory where it is
  // still there (its header names the vocabulary it was made for).
  if (!st.opt.init.empty() && std::filesystem::exists(init_rows_path(st)))
    st.init_rows = init_rows_path(st);
  const bool remap_init = !st.opt.init.empty() && st.init_rows.empty();
  auto place_and_restore = [self, missing, remap_init] {
    auto placed = [self, missing] {
      place_all_shards(self, [self, missing] {
        place_learners(self, [self, missing] {
          preprocess_again(self, missing, [self] {
            end_partitions(self);
            self->state.phase = job_phase::recovering;
            self->state.recovery_started = coordinator_clock::now();
            restore_latest(self);
          });
        });
      });
    };
    if (remap_init)
      map_init_rows(self, placed);
    else
      placed();
  };
  if (!missing.empty() || remap_init)
    read_back_partitions(self, place_and_restore);
  else
    place_and_restore();
}

status make_work_dir(coordinator_state& st) {
  if (!st.opt.work_dir.empty() || st.store) {
    st.work_dir = !st.opt.work_dir.empty() ? st.opt.work_dir : st.store->work_dir();
    return access::make_directories(st.work_dir, "the work directory");
  }
  // The job names none: a temporary one, in the system's temporary
  // directory, or in the first allow-write directory when the lists do not
  // include that (every file of a job lies in the lists).
  std::filesystem::path base = access::process_policy()->scratch_root();
  if (base.empty())
    base = "/tmp"; // no allow-write at all: the job's first file there gets the policy's refusal
  std::string tmpl = (base / "gridvec-XXXXXX").string();
  if (!::mkdtemp(tmpl.data()))
    return failure{"cannot create a temporary directory in " + base.string()};
  st.work_dir = tmpl;
  st.own_work_dir = true;
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

} // namespace

void start(coordinator_ptr self) {
  auto& st = self->state;
  // A learner each learner thread of a node; in the replicated mode a
  // learner each host, which trains its copy with its threads together.
  for (size_t i = 0; i < st.nodes.size(); ++i) {
    const uint32_t threads = st.nodes[i].learners;
    const uint32_t learners = st.opt.replicated() ? st.opt.hosts_on_node(threads) : threads;
    for (uint32_t k = 0; k < learners; ++k) {
      st.learner_node.push_back(i);
      st.learner_threads.push_back(st.opt.replicated() ? st.opt.threads_of_host(threads, k) : 1);
    }
  }
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
    // Every path read back from the manifest is checked as if a client had
    // sent it: the job's options, and each part's word ids (rewritten if
    // they are gone).
    auto policy = access::process_policy();
    status allowed = policy->check_job(*opt);
    for (size_t p = 0; allowed && p < m->parts.size(); ++p)
      allowed = policy->may_write(m->parts[p].ids_path, "the checkpoint's word ids of part " + std::to_string(p));
    if (!allowed) {
      fail(self, make_job_error("cannot resume: " + allowed.error()));
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
  st.summary.word_split = st.opt.word_split();
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

} // namespace gridvec
