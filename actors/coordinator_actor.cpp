#include "actors/coordinator_actor.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "src/text_corpus.hpp"

namespace gridvec {

namespace {

using clock = std::chrono::steady_clock;
// Phases that read or write a whole corpus may take long on a big one; a
// dead node is noticed through the request failing, not through this.
constexpr auto long_phase = std::chrono::seconds(30 * 24 * 3600);
constexpr auto placement_timeout = std::chrono::seconds(120);
std::atomic<bool> cancel_requested{false};

struct coordinator_state {
  train_options opt;
  std::vector<job_node> nodes;
  progress_sink sink;
  clock::time_point started, training_started;
  caf::typed_response_promise<job_summary> done;
  bool finished = false;

  vocabulary_actor vocab_actor;
  vocabulary_info vocab;
  std::vector<shard_info> shards;
  std::vector<learner_actor> learners;
  std::vector<size_t> learner_node; // node index of each learner
  std::vector<size_t> shard_node;   // node index of each shard
  std::vector<traffic> learner_wire;  // each learner's totals
  std::vector<byte_range> parts;    // one per learner
  std::vector<caf::actor> spawned;  // everything to stop at the end
  std::filesystem::path work_dir;
  bool own_work_dir = false;

  job_summary summary;
  learner_progress progress; // summed over learners
  double recent_loss = 0;    // since the previous progress line
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

void say(coordinator_ptr self, const std::string& line) {
  spdlog::info("{}", line);
  if (self->state.sink)
    self->state.sink(line);
}

template <class Handle>
void track(coordinator_ptr self, const Handle& h) {
  self->state.spawned.push_back(caf::actor_cast<caf::actor>(h));
}

void cleanup(coordinator_ptr self) {
  auto& st = self->state;
  for (auto& a : st.spawned)
    self->send_exit(a, caf::exit_reason::user_shutdown);
  st.spawned.clear();
  st.learners.clear();
  st.shards.clear();
  st.vocab_actor = nullptr;
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

auto fail_with(coordinator_ptr self) {
  return [self](caf::error& err) { fail(self, err); };
}

void print_progress(coordinator_ptr self, bool final_line) {
  auto& st = self->state;
  const double total = static_cast<double>(st.vocab.train_words) * st.opt.iter;
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
  if (st.sink)
    st.sink(line);
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

size_t node_with(coordinator_state& st, bool job_node::*role) {
  for (size_t i = 0; i < st.nodes.size(); ++i)
    if (st.nodes[i].*role)
      return i;
  return 0;
}

void run_export(coordinator_ptr self) {
  auto& st = self->state;
  say(self, "exporting " + std::to_string(st.vocab.size) + " vectors to " + st.opt.output);
  auto& node = st.nodes[node_with(st, &job_node::exporter)];
  self->request(node.handle, placement_timeout, new_export_atom::value, st.vocab.path, st.shards, st.opt.size)
    .then(
      [self](exporter_actor exporter) {
        auto& st = self->state;
        track(self, exporter);
        self->request(exporter, long_phase, export_atom::value, st.opt.output, st.opt.binary)
          .then([self](uint64_t) { finish(self); }, fail_with(self));
      },
      fail_with(self));
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
  const traffic& total = st.summary.wire;
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

void run_training(coordinator_ptr self) {
  auto& st = self->state;
  say(self, "training: " + std::to_string(st.learners.size()) + " learners, " +
              std::to_string(st.shards.size()) + " shards of " + std::to_string(st.shards.front().width) +
              " columns, minibatch " + std::to_string(st.opt.minibatch) + ", " +
              std::to_string(st.opt.in_flight) + " in flight");
  st.training = true;
  st.training_started = clock::now();
  st.last_line = st.training_started;
  auto pending = std::make_shared<size_t>(st.learners.size());
  st.learner_wire.resize(st.learners.size());
  for (size_t i = 0; i < st.learners.size(); ++i)
    self->request(st.learners[i], long_phase, train_atom::value)
      .then(
        [self, pending, i](const learner_progress& totals) {
          auto& st = self->state;
          st.learner_wire[i] = totals.wire;
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
          if (st.nodes.size() > 1)
            account_nodes(st);
          run_export(self);
        },
        fail_with(self));
}

void run_preprocessing(coordinator_ptr self) {
  auto& st = self->state;
  say(self, "preprocessing: corpus -> word ids in " + st.work_dir.string());
  auto pending = std::make_shared<size_t>(st.learners.size());
  for (uint32_t i = 0; i < st.learners.size(); ++i) {
    auto ids = (st.work_dir / ("part-" + std::to_string(i) + ".ids")).string();
    self->request(st.learners[i], long_phase, preprocess_atom::value, st.opt.train,
                  st.parts[i].begin, st.parts[i].end, ids)
      .then(
        [self, pending](uint64_t) {
          if (--*pending == 0)
            run_training(self);
        },
        fail_with(self));
  }
}

learner_config learner_config_for(const train_options& opt, uint32_t id) {
  learner_config lc;
  lc.id = id;
  lc.window = opt.window;
  lc.negatives = opt.negative;
  lc.minibatch_words = opt.minibatch;
  lc.in_flight = opt.in_flight;
  lc.iterations = opt.iter;
  lc.cbow = opt.cbow;
  lc.start_alpha = opt.start_alpha();
  lc.sample = opt.sample;
  lc.seed = opt.seed;
  return lc;
}

void place_learners(coordinator_ptr self) {
  auto& st = self->state;
  st.learners.resize(st.learner_node.size());
  auto pending = std::make_shared<size_t>(st.learners.size());
  for (uint32_t i = 0; i < st.learner_node.size(); ++i) {
    // Learner i uses lane i of every shard: lanes are not shared while
    // there are as many lanes as learners.
    std::vector<shard_actor> lanes;
    for (auto& s : st.shards)
      lanes.push_back(s.lanes[i % s.lanes.size()]);
    auto& node = st.nodes[st.learner_node[i]];
    self->request(node.handle, placement_timeout, new_learner_atom::value,
                  learner_config_for(st.opt, i), st.vocab.path, lanes,
                  caf::actor_cast<coordinator_actor>(self))
      .then(
        [self, pending, i](learner_actor learner) {
          track(self, learner);
          self->state.learners[i] = learner;
          if (--*pending == 0)
            run_preprocessing(self);
        },
        fail_with(self));
  }
}

void place_shards(coordinator_ptr self) {
  auto& st = self->state;
  std::vector<size_t> shard_nodes;
  for (size_t i = 0; i < st.nodes.size(); ++i)
    if (st.nodes[i].shard)
      shard_nodes.push_back(i);
  const uint32_t lanes = std::max<uint32_t>(1, static_cast<uint32_t>(st.learner_node.size()));
  st.shards.resize(st.opt.shards);
  st.shard_node.resize(st.opt.shards);
  auto pending = std::make_shared<size_t>(st.opt.shards);
  for (uint32_t s = 0; s < st.opt.shards; ++s) {
    st.shard_node[s] = shard_nodes[s % shard_nodes.size()];
    auto& node = st.nodes[st.shard_node[s]];
    self->request(node.handle, placement_timeout, new_shard_atom::value, s, st.opt.shards, st.opt.size,
                  st.vocab.path, st.opt.seed, lanes)
      .then(
        [self, pending, s](shard_info info) {
          for (auto& lane : info.lanes)
            track(self, lane);
          self->state.shards[s] = std::move(info);
          if (--*pending == 0)
            place_learners(self);
        },
        fail_with(self));
  }
}

void build_vocabulary(coordinator_ptr self) {
  auto& st = self->state;
  auto path = (st.work_dir / "vocabulary.txt").string();
  self->request(st.vocab_actor, long_phase, build_atom::value, st.opt.min_count, st.opt.max_vocab, path)
    .then(
      [self](const vocabulary_info& info) {
        auto& st = self->state;
        st.vocab = info;
        st.summary.vocab_size = info.size;
        st.summary.raw_words = info.raw_words;
        say(self, "vocabulary: " + std::to_string(info.size) + " words (" +
                    std::to_string(info.distinct_words) + " distinct, " +
                    std::to_string(info.raw_words) + " tokens; " + std::to_string(info.train_words) +
                    " in vocabulary)");
        place_shards(self);
      },
      fail_with(self));
}

// Map: part i is counted on the node of learner i (where its data is).
// Reduce: every table is merged into the vocabulary actor.
void count_words(coordinator_ptr self) {
  auto& st = self->state;
  say(self, "counting words of " + st.opt.train + " in " + std::to_string(st.parts.size()) + " parts");
  auto pending = std::make_shared<size_t>(st.parts.size());
  for (size_t i = 0; i < st.parts.size(); ++i) {
    auto& node = st.nodes[st.learner_node[i]];
    self->request(node.handle, placement_timeout, new_counter_atom::value)
      .then(
        [self, pending, i](count_worker_actor worker) {
          auto& st = self->state;
          track(self, worker);
          self->request(worker, long_phase, count_atom::value, st.opt.train, st.parts[i].begin, st.parts[i].end)
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

void start(coordinator_ptr self) {
  auto& st = self->state;
  for (size_t i = 0; i < st.nodes.size(); ++i)
    for (uint32_t k = 0; k < st.nodes[i].learners; ++k)
      st.learner_node.push_back(i);
  auto parts = split_corpus(st.opt.train, st.learner_node.size());
  if (!parts) {
    fail(self, make_job_error(parts.error()));
    return;
  }
  st.parts = std::move(*parts);
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

status check_nodes(const coordinator_state& st) {
  bool vocab = false, exporter = false, shard = false;
  uint32_t learners = 0;
  for (const auto& n : st.nodes) {
    vocab |= n.vocabulary;
    exporter |= n.exporter;
    shard |= n.shard;
    learners += n.learners;
  }
  if (!vocab || !exporter || !shard || learners == 0)
    return failure{"the job's nodes lack a role: it needs a vocabulary, an exporter, a shard node and a learner"};
  return {};
}

coordinator_actor::behavior_type coordinator_behavior(coordinator_ptr self, train_options opt,
                                                      std::vector<job_node> nodes, progress_sink sink) {
  self->state.opt = std::move(opt);
  self->state.nodes = std::move(nodes);
  self->state.sink = std::move(sink);
  self->state.tty = ::isatty(STDERR_FILENO) == 1;
  return {
    [self](run_atom) -> caf::result<job_summary> {
      auto& st = self->state;
      st.started = clock::now();
      st.summary.shards = st.opt.shards;
      st.summary.dim = st.opt.size;
      st.summary.iterations = st.opt.iter;
      for (auto& n : st.nodes)
        st.summary.learners += n.learners;
      st.done = self->make_response_promise<job_summary>();
      if (auto s = check_nodes(st); !s)
        return make_job_error(s.error());
      if (auto s = make_work_dir(st); !s)
        return make_job_error(s.error());
      self->send(self, tick_atom::value); // progress lines and cancellation
      start(self);
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

coordinator_actor spawn_coordinator(caf::actor_system& sys, train_options options,
                                    std::vector<job_node> nodes, progress_sink sink) {
  return sys.spawn(coordinator_behavior, std::move(options), std::move(nodes), std::move(sink));
}

} // namespace gridvec
