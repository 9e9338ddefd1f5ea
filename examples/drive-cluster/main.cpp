// drive-cluster: a CAF application that drives a running gridvec cluster
// (`gridvec node` processes) from an event-based actor: it connects to the
// cluster's controller, starts a job, polls its status until it is done,
// asks for the nearest neighbours of a few words and, with --stop, stops
// every node of the cluster.
//
//   drive-cluster (--config CLUSTER.conf | --connect HOST:PORT [--secret FILE])
//                 -train CORPUS -output VECTORS [--query W1,W2,...] [--stop]
//                 [--timeout SECONDS] [gridvec train options...]
//
// The nodes read the corpus and write the vectors, so the paths are made
// absolute and must be on a file system they share. Without --query it asks
// about the three most frequent words (the first rows of the vectors file).
// Exits 0 when done; 1 with one error line if anything fails or takes longer
// than --timeout (default 600 s): every request has a finite timeout.
#include <caf/all.hpp>

#include <gridvec/gridvec.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;
using poll_atom = caf::atom_constant<caf::atom("poll")>;

constexpr auto request_timeout = std::chrono::seconds(30);
constexpr auto poll_interval = std::chrono::milliseconds(500);

struct arguments {
  std::string config;
  std::string host;
  uint16_t port = 0;
  std::string secret; // with --connect: the cluster secret file
  std::vector<std::string> query;
  bool stop = false;
  int timeout_seconds = 600;
  std::vector<std::string> train_args;
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in{text};
  for (std::string word; std::getline(in, word, ',');)
    if (!word.empty())
      out.push_back(word);
  return out;
}

std::optional<arguments> parse_arguments(int argc, char** argv) {
  arguments a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (arg == "--config" && (v = value())) {
      a.config = v;
    } else if (arg == "--connect" && (v = value())) {
      std::string hp = v;
      auto colon = hp.rfind(':');
      if (colon == std::string::npos)
        return std::nullopt;
      a.host = hp.substr(0, colon);
      int port = std::atoi(hp.c_str() + colon + 1);
      if (port <= 0 || port > 65535)
        return std::nullopt;
      a.port = static_cast<uint16_t>(port);
    } else if (arg == "--secret" && (v = value())) {
      a.secret = v;
    } else if (arg == "--query" && (v = value())) {
      a.query = split_commas(v);
    } else if (arg == "--timeout" && (v = value())) {
      a.timeout_seconds = std::atoi(v);
    } else if (arg == "--stop") {
      a.stop = true;
    } else if (arg == "--config" || arg == "--connect" || arg == "--secret" || arg == "--query" || arg == "--timeout") {
      return std::nullopt; // missing value
    } else {
      a.train_args.push_back(arg);
    }
  }
  if (a.config.empty() == a.host.empty() || a.timeout_seconds <= 0)
    return std::nullopt; // exactly one of --config and --connect
  return a;
}

std::vector<std::string> most_frequent_words(const std::string& vectors, size_t n) {
  std::vector<std::string> words;
  std::ifstream in{vectors};
  std::string line;
  std::getline(in, line); // "vocabulary-size dimension"
  while (words.size() < n && std::getline(in, line))
    words.push_back(line.substr(0, line.find(' ')));
  return words;
}

// What the driver needs, and what it leaves for main(): the exit status.
struct driver_state {
  driver_state() = default; // not an aggregate: CAF would build it from the actor pointer
  std::string host;
  uint16_t port = 0;
  std::chrono::milliseconds connect_timeout{5000};
  gridvec::train_options options;
  std::vector<std::string> query;
  bool stop = false;
  clock_type::time_point deadline;

  gridvec::controller_actor controller;
  std::string last_phase;
  clock_type::time_point last_print;
  bool stopping = false; // the cluster was told to stop: its going down is expected
  std::shared_ptr<int> status;
};

using driver_ptr = caf::stateful_actor<driver_state>*;

void fail(driver_ptr self, const std::string& what) {
  std::fprintf(stderr, "drive-cluster: %s\n", what.c_str());
  *self->state.status = 1;
  self->quit();
}

auto fail_with(driver_ptr self, const std::string& doing) {
  return [self, doing](caf::error& err) { fail(self, doing + ": " + gridvec::error_text(err)); };
}

void finish(driver_ptr self) {
  auto& st = self->state;
  *st.status = 0;
  if (!st.stop) {
    self->quit();
    return;
  }
  // Stop the cluster, then wait for the controller to go away (its down
  // message, below), so that the stop has left this process before it exits.
  std::printf("stopping the cluster\n");
  st.stopping = true;
  self->send(st.controller, gridvec::stop_atom::value);
  self->delayed_send(self, std::chrono::seconds(10), poll_atom::value);
}

void ask_nearest(driver_ptr self, size_t i) {
  auto& st = self->state;
  if (i == st.query.size()) {
    finish(self);
    return;
  }
  const std::string word = st.query[i];
  self->request(st.controller, request_timeout, gridvec::nearest_atom::value, word, uint32_t{5})
    .then(
      [self, i, word](const std::vector<gridvec::neighbour>& neighbours) {
        std::printf("nearest to %s:", word.c_str());
        for (const auto& n : neighbours)
          std::printf(" %s %.3f", n.word.c_str(), n.score);
        std::printf("\n");
        ask_nearest(self, i + 1);
      },
      fail_with(self, "nearest " + word));
}

// The job is over: `wait` gives its summary (or its error) at once.
void collect(driver_ptr self) {
  auto& st = self->state;
  self->request(st.controller, request_timeout, gridvec::wait_atom::value)
    .then(
      [self](const gridvec::job_summary& s) {
        auto& st = self->state;
        std::printf("done: %llu words in %.1f s on %u shards and %u learners, %llu vectors written to %s\n",
                    static_cast<unsigned long long>(s.raw_words), s.seconds, s.shards, s.learners,
                    static_cast<unsigned long long>(s.vocab_size), st.options.output.c_str());
        if (st.query.empty())
          st.query = most_frequent_words(st.options.output, 3);
        ask_nearest(self, 0);
      },
      fail_with(self, "the job failed"));
}

void poll(driver_ptr self) {
  auto& st = self->state;
  if (clock_type::now() > st.deadline) {
    fail(self, "the job did not finish in time (--timeout)");
    return;
  }
  self->request(st.controller, request_timeout, gridvec::status_atom::value)
    .then(
      [self](const gridvec::job_status& s) {
        auto& st = self->state;
        const auto now = clock_type::now();
        if (s.phase != st.last_phase || now - st.last_print >= std::chrono::seconds(2)) {
          std::printf("status: job %llu %s %.1f%% epoch %u/%u %.0f words/s: %s\n",
                      static_cast<unsigned long long>(s.job), s.phase.c_str(), 100 * s.progress, s.epoch, s.iterations,
                      s.words_per_second, s.message.c_str());
          std::fflush(stdout);
          st.last_phase = s.phase;
          st.last_print = now;
        }
        if (s.phase == "done" || s.phase == "failed" || s.phase == "cancelled")
          collect(self);
        else
          self->delayed_send(self, poll_interval, poll_atom::value);
      },
      fail_with(self, "status"));
}

caf::behavior driver(driver_ptr self, driver_state init) {
  self->state = std::move(init);
  auto& st = self->state;
  self->set_down_handler([self](const caf::down_msg& dm) {
    if (self->state.stopping)
      self->quit(); // the stop arrived: done
    else
      fail(self, "the cluster's controller went away (" + gridvec::error_text(dm.reason) + ")");
  });
  gridvec::connect_to_controller(self, st.host, st.port, st.connect_timeout,
                                 [self](gridvec::expected<gridvec::controller_actor> controller) {
                                   if (!controller) {
                                     fail(self, controller.error());
                                     return;
                                   }
                                   auto& st = self->state;
                                   st.controller = *controller;
                                   self->monitor(st.controller);
                                   // start answers at once with the job's number; the job runs on.
                                   self->request(st.controller, request_timeout, gridvec::start_atom::value, st.options)
                                     .then(
                                       [self](uint64_t job) {
                                         std::printf("job %llu started\n", static_cast<unsigned long long>(job));
                                         poll(self);
                                       },
                                       fail_with(self, "start"));
                                 });
  return {
    [self](poll_atom) {
      if (self->state.stopping)
        fail(self, "the cluster did not stop within 10 s");
      else
        poll(self);
    },
  };
}

int usage_error(const std::string& what) {
  std::fprintf(stderr, "drive-cluster: %s\n", what.c_str());
  return 1;
}

std::string absolute(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.string();
}

} // namespace

int main(int argc, char** argv) {
  auto args = parse_arguments(argc, argv);
  if (!args)
    return usage_error(
      "usage: drive-cluster (--config CLUSTER.conf | --connect HOST:PORT [--secret FILE]) -train CORPUS "
      "-output VECTORS [--query W1,W2,...] [--stop] [--timeout SECONDS] [train options]");
  auto options = gridvec::parse_train_options(args->train_args);
  if (!options)
    return usage_error(options.error());
  // The nodes open these from their own working directories.
  options->train = absolute(options->train);
  options->output = absolute(options->output);

  driver_state init;
  init.options = *options;
  init.query = args->query;
  init.stop = args->stop;
  init.deadline = clock_type::now() + std::chrono::seconds(args->timeout_seconds);
  init.status = std::make_shared<int>(1);
  caf::actor_system_config cfg;
  if (!args->config.empty()) {
    auto cluster = gridvec::load_cluster_config(args->config);
    if (!cluster)
      return usage_error(cluster.error());
    if (auto ok = gridvec::configure_cluster_system(cfg, *cluster); !ok)
      return usage_error(ok.error());
    init.host = cluster->coordinator().host;
    init.port = cluster->coordinator().port;
    init.connect_timeout = std::chrono::milliseconds(cluster->connect_timeout_ms);
  } else {
    // --connect: the cluster secret is in --secret FILE (none: an insecure cluster).
    if (auto ok = gridvec::configure_cluster_system(cfg, args->secret); !ok)
      return usage_error(ok.error());
    init.host = args->host;
    init.port = args->port;
  }
  auto status = init.status;
  {
    caf::actor_system sys{cfg};
    sys.spawn(driver, std::move(init));
    sys.await_all_actors_done();
  }
  return *status;
}
