#include "actors/coordinator_actor.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "actors/exporter_actor.hpp"
#include "actors/learner_actor.hpp"
#include "actors/shard_actor.hpp"
#include "actors/vocabulary_actor.hpp"
#include "src/alias_sampler.hpp"
#include "src/text_corpus.hpp"

namespace gridvec {

namespace {

using clock = std::chrono::steady_clock;
constexpr auto long_phase = std::chrono::seconds(30 * 24 * 3600);
std::atomic<bool> cancel_requested{false};

struct coordinator_state {
  train_options opt;
  clock::time_point started, training_started;
  caf::typed_response_promise<job_summary> done;
  bool finished = false;

  vocabulary_actor vocab_actor;
  vocabulary_ptr vocab;
  std::vector<shard_handle> shards;
  std::vector<learner_actor> learners;
  std::vector<byte_range> parts;
  std::filesystem::path work_dir;
  bool own_work_dir = false;

  job_summary summary;
  learner_progress progress;       // summed over learners
  std::vector<float> learner_alpha;
  // Recent loss for the progress line: since the previous line.
  double recent_loss = 0;
  uint64_t recent_pairs = 0;
  double last_loss = 0;
  bool training = false;
  bool tty = false;
  bool printed_progress_line = false;
  clock::time_point last_line;
  static inline const char* name = "coordinator";
};

using coordinator_ptr = coordinator_actor::stateful_pointer<coordinator_state>;

std::string human_count(double x) {
  char buf[32];
  if (x >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2fM", x / 1e6);
  else if (x >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1fk", x / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

std::string human_duration(double s) {
  char buf[32];
  auto t = static_cast<long>(s + 0.5);
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

void cleanup(coordinator_ptr self) {
  auto& st = self->state;
  for (auto& l : st.learners)
    self->send_exit(l, caf::exit_reason::user_shutdown);
  for (auto& s : st.shards)
    for (auto& lane : s.lanes)
      self->send_exit(lane, caf::exit_reason::user_shutdown);
  if (st.vocab_actor)
    self->send_exit(st.vocab_actor, caf::exit_reason::user_shutdown);
  st.learners.clear();
  st.shards.clear();
  if (st.own_work_dir && !st.work_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(st.work_dir, ec);
  }
}

void end_progress_line(coordinator_state& st) {
  if (st.printed_progress_line) {
    std::fputc('\n', stderr);
    st.printed_progress_line = false;
  }
}

void fail(coordinator_ptr self, const caf::error& err) {
  auto& st = self->state;
  if (st.finished)
    return;
  st.finished = true;
  end_progress_line(st);
  cleanup(self);
  st.done.deliver(err);
}

void print_progress(coordinator_ptr self, bool final_line) {
  auto& st = self->state;
  const double total = static_cast<double>(st.vocab->train_words()) * st.opt.iter;
  const double done = static_cast<double>(st.progress.processed_words);
  const double elapsed = std::chrono::duration<double>(clock::now() - st.training_started).count();
  const double rate = elapsed > 0 ? done / elapsed : 0;
  const double eta = rate > 0 ? (total - done) / rate : 0;
  if (st.recent_pairs > 0)
    st.last_loss = st.recent_loss / static_cast<double>(st.recent_pairs);
  st.recent_loss = 0;
  st.recent_pairs = 0;
  char line[256];
  std::snprintf(line, sizeof line, "%5.1f%%  %s words/s  eta %s  alpha %.5f  loss %.4f",
                total > 0 ? 100.0 * done / total : 100.0, human_count(rate).c_str(),
                human_duration(eta).c_str(), st.progress.alpha, st.last_loss);
  if (st.tty) {
    std::fprintf(stderr, "\r%s", line);
    std::fflush(stderr);
    st.printed_progress_line = true;
    if (final_line)
      end_progress_line(st);
  } else {
    spdlog::info("{}", line);
  }
}

void finish(coordinator_ptr self) {
  auto& st = self->state;
  st.summary.seconds = std::chrono::duration<double>(clock::now() - st.started).count();
  st.summary.peak_rss_bytes = peak_rss_bytes();
  if (!st.opt.report.empty())
    if (auto s = write_report(st.opt.report, st.summary); !s) {
      fail(self, make_job_error(s.error()));
      return;
    }
  st.finished = true;
  cleanup(self);
  st.done.deliver(st.summary);
}

void run_export(coordinator_ptr self) {
  auto& st = self->state;
  spdlog::info("exporting {} vectors to {}", st.vocab->size(), st.opt.output);
  auto exporter = spawn_exporter(self->system(), st.vocab, st.shards, st.opt.size);
  self->request(exporter, long_phase, export_atom::value, st.opt.output, st.opt.binary)
    .then(
      [self, exporter](uint64_t) {
        self->send_exit(exporter, caf::exit_reason::user_shutdown);
        finish(self);
      },
      [self, exporter](caf::error& err) {
        self->send_exit(exporter, caf::exit_reason::user_shutdown);
        fail(self, err);
      });
}

void run_training(coordinator_ptr self) {
  auto& st = self->state;
  spdlog::info("training: {} learners, {} shards of {} columns, minibatch {}, {} in flight",
               st.learners.size(), st.shards.size(), st.shards.front().slice.width,
               st.opt.minibatch, st.opt.in_flight);
  st.training = true;
  st.training_started = clock::now();
  st.last_line = st.training_started;
  auto pending = std::make_shared<size_t>(st.learners.size());
  for (auto& learner : st.learners)
    self->request(learner, long_phase, train_atom::value)
      .then(
        [self, pending](const learner_progress& totals) {
          auto& st = self->state;
          st.summary.trained_words += totals.trained_words;
          st.summary.processed_words += totals.processed_words;
          st.summary.pairs += totals.pairs;
          st.summary.wire.merge(totals.wire);
          if (--*pending > 0)
            return;
          st.training = false;
          st.summary.training_seconds =
            std::chrono::duration<double>(clock::now() - st.training_started).count();
          print_progress(self, true);
          st.summary.final_loss = st.last_loss;
          run_export(self);
        },
        [self](caf::error& err) { fail(self, err); });
}

void run_preprocessing(coordinator_ptr self) {
  auto& st = self->state;
  auto& opt = st.opt;
  // Shards: each holds its column slice of every vector, served by one lane
  // per thread so a single shard can use every core.
  auto noise = std::make_shared<const alias_sampler>(alias_sampler::from_counts(st.vocab->counts()));
  for (uint32_t s = 0; s < opt.shards; ++s)
    st.shards.push_back(spawn_shard(self->system(), s, opt.shards, opt.size, *st.vocab, opt.seed,
                                    noise, opt.threads));
  for (uint32_t i = 0; i < st.parts.size(); ++i) {
    learner_config lc;
    lc.id = i;
    lc.window = opt.window;
    lc.negatives = opt.negative;
    lc.minibatch_words = opt.minibatch;
    lc.in_flight = opt.in_flight;
    lc.iterations = opt.iter;
    lc.cbow = opt.cbow;
    lc.start_alpha = opt.start_alpha();
    lc.sample = opt.sample;
    lc.seed = opt.seed;
    std::vector<shard_actor> lanes;
    for (auto& s : st.shards)
      lanes.push_back(s.lanes[i % s.lanes.size()]);
    st.learners.push_back(spawn_learner(self->system(), lc, st.vocab, std::move(lanes),
                                        caf::actor_cast<coordinator_actor>(self)));
  }
  spdlog::info("preprocessing: corpus -> word ids in {}", st.work_dir.string());
  auto pending = std::make_shared<size_t>(st.learners.size());
  for (uint32_t i = 0; i < st.learners.size(); ++i) {
    auto ids = (st.work_dir / ("part-" + std::to_string(i) + ".ids")).string();
    self->request(st.learners[i], long_phase, preprocess_atom::value, opt.train,
                  st.parts[i].begin, st.parts[i].end, ids)
      .then(
        [self, pending](uint64_t) {
          if (--*pending == 0)
            run_training(self);
        },
        [self](caf::error& err) { fail(self, err); });
  }
}

void run_vocabulary(coordinator_ptr self) {
  auto& st = self->state;
  auto parts = split_corpus(st.opt.train, st.opt.threads);
  if (!parts) {
    fail(self, make_job_error(parts.error()));
    return;
  }
  st.parts = std::move(*parts);
  spdlog::info("counting words of {} in {} parts", st.opt.train, st.parts.size());
  st.vocab_actor = spawn_vocabulary(self->system());
  self->request(st.vocab_actor, long_phase, count_atom::value, st.opt.train,
                static_cast<uint32_t>(st.parts.size()))
    .then(
      [self](const corpus_stats& stats) {
        auto& st = self->state;
        st.summary.raw_words = stats.raw_words;
        self->request(st.vocab_actor, long_phase, build_atom::value, st.opt.min_count, st.opt.max_vocab)
          .then(
            [self, stats](const vocabulary_ptr& vocab) {
              auto& st = self->state;
              st.vocab = vocab;
              st.summary.vocab_size = vocab->size();
              spdlog::info("vocabulary: {} words ({} distinct, {} tokens; {} in vocabulary)",
                           vocab->size(), stats.distinct_words, stats.raw_words, vocab->train_words());
              self->send_exit(st.vocab_actor, caf::exit_reason::user_shutdown);
              st.vocab_actor = nullptr;
              run_preprocessing(self);
            },
            [self](caf::error& err) { fail(self, err); });
      },
      [self](caf::error& err) { fail(self, err); });
}

status make_work_dir(coordinator_state& st) {
  std::error_code ec;
  if (!st.opt.work_dir.empty()) {
    st.work_dir = st.opt.work_dir;
    std::filesystem::create_directories(st.work_dir, ec);
    if (ec)
      return failure{"cannot create --work-dir " + st.opt.work_dir + ": " + ec.message()};
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

coordinator_actor::behavior_type coordinator_behavior(coordinator_ptr self, train_options opt) {
  self->state.opt = std::move(opt);
  self->state.tty = ::isatty(STDERR_FILENO) == 1;
  return {
    [self](run_atom) -> caf::result<job_summary> {
      auto& st = self->state;
      st.started = clock::now();
      st.summary.shards = st.opt.shards;
      st.summary.learners = st.opt.threads;
      st.summary.dim = st.opt.size;
      st.summary.iterations = st.opt.iter;
      st.done = self->make_response_promise<job_summary>();
      if (auto s = make_work_dir(st); !s)
        return make_job_error(s.error());
      self->send(self, tick_atom::value); // progress lines and cancellation
      run_vocabulary(self);
      return st.done;
    },
    [self](progress_atom, uint32_t, const learner_progress& delta) {
      auto& st = self->state;
      st.progress.merge(delta);
      st.progress.alpha = delta.alpha > 0 ? delta.alpha : st.progress.alpha;
      st.recent_loss += delta.loss_sum;
      st.recent_pairs += delta.loss_pairs;
    },
    [self](tick_atom) {
      auto& st = self->state;
      if (st.finished)
        return;
      if (cancel_requested.load()) {
        fail(self, make_job_error("interrupted; no output was written"));
        return;
      }
      const double every = st.opt.log_every > 0 ? st.opt.log_every : (st.tty ? 1.0 : 10.0);
      auto now = clock::now();
      if (st.training && std::chrono::duration<double>(now - st.last_line).count() >= every) {
        st.last_line = now;
        print_progress(self, false);
      }
      self->delayed_send(self, std::chrono::milliseconds(100), tick_atom::value);
    },
  };
}

} // namespace

void request_cancel() {
  cancel_requested.store(true);
}

coordinator_actor spawn_coordinator(caf::actor_system& sys, train_options options) {
  return sys.spawn(coordinator_behavior, std::move(options));
}

} // namespace gridvec
