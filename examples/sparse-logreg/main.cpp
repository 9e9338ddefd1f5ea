// sparse-logreg: trains a model that is not word2vec on gridvec's parameter
// server (docs/tables.md): logistic regression over sparse, hashed features
// ("country=fr", "query=shoes", ...), the shape of click and ad models.
// The weights live in a map table on the shards, one row per feature,
// created on first read (zeros) with Adagrad's G kept beside each row;
// the program only sends feature keys and gradients, and reads weights.
//
//   sparse-logreg (--config CLUSTER.conf | --local SHARDS) [--epochs N] [--save] [--stats] [--sync]
//                 [--batch N] [--per-example K] [--ahead D] [--compare RUNS]
//   sparse-logreg --config CLUSTER.conf --node NAME
//
// --config: the tables of a running cluster (its shard nodes); --local: that
// many table shards in this process. --node: run node NAME of the cluster
// in this process instead of `gridvec node`, with this program's own table
// operation "logreg.stats" linked in (a user operation, the Spark + parameter server talk: it runs on
// each shard's slice and returns a few numbers); --stats then asks every
// shard for it after training, which needs shard nodes started so. It makes a synthetic data set with a
// known answer (a hidden weight per feature; each example has 12 (--per-example) of 5,000
// features; its label is drawn from the hidden model), trains on 50,000
// examples, and prints the held-out accuracy next to the hidden model's own
// (the best any learner can do). Exits 0 when done, 1 with one error line.
// Its calls are asynchronous (gridvec/tables/async.hpp): the next --ahead
// batches' weights (default 1) are on their way while this one is
// computed, and gradients are pushed without waiting; --sync waits for each
// call instead, and each epoch's line says how many examples a second
// either way and how long it computed and waited. --batch (examples per
// batch, default 256) and --per-example (features per example, default 12)
// size the compute beside each round trip; --compare R trains R times each
// way, alternating, and prints the medians and their ratio. What the
// overlap bought on a 2-core machine (docs/tables.md): 1.4x to 1.5x over 10
// epochs, in-process and on a loopback cluster, where waiting was half or
// more of the synchronous time; nothing where compute was most of it.
#include <caf/all.hpp>

#include <gridvec/cluster.hpp>
#include <gridvec/tables.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <csignal>
#include <cstring>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace {

constexpr int features = 5000;

struct example {
  std::vector<uint64_t> keys; // hashed feature names
  float label = 0;
};

struct data_set {
  std::vector<example> train, test;
  double bayes_accuracy = 0; // the hidden model's own accuracy on `test`
};

float sigmoid(double x) { return static_cast<float>(1.0 / (1.0 + std::exp(-x))); }

data_set make_data(uint64_t seed, int per_example) {
  std::mt19937_64 rng{seed};
  std::normal_distribution<double> weight(0.0, 1.2);
  std::uniform_int_distribution<int> pick(0, features - 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> hidden(features);
  std::vector<uint64_t> key(features);
  for (int f = 0; f < features; ++f) {
    hidden[f] = weight(rng);
    key[f] = gridvec::table_key("feature=" + std::to_string(f)); // string keys, hashed
  }
  data_set d;
  size_t right = 0;
  for (int i = 0; i < 54000; ++i) {
    example e;
    double score = 0;
    for (int j = 0; j < per_example; ++j) {
      // Skewed: low ids are frequent, as real features are.
      int f = std::min(pick(rng), pick(rng));
      e.keys.push_back(key[f]);
      score += hidden[f];
    }
    const double p = sigmoid(score);
    e.label = unit(rng) < p ? 1.0f : 0.0f;
    if (i < 50000) {
      d.train.push_back(std::move(e));
    } else {
      right += (p > 0.5) == (e.label > 0.5f) ? 1 : 0;
      d.test.push_back(std::move(e));
    }
  }
  d.bayes_accuracy = static_cast<double>(right) / static_cast<double>(d.test.size());
  return d;
}

// The distinct keys of examples [begin, end) and, per example, where its
// keys stand among them.
struct batch_keys {
  std::vector<uint64_t> keys;
  std::vector<std::vector<size_t>> at;
};

batch_keys collect(const std::vector<example>& xs, size_t begin, size_t end) {
  batch_keys b;
  std::unordered_map<uint64_t, size_t> index;
  for (size_t i = begin; i < end; ++i) {
    b.at.emplace_back();
    for (uint64_t k : xs[i].keys) {
      auto [it, added] = index.try_emplace(k, b.keys.size());
      if (added)
        b.keys.push_back(k);
      b.at.back().push_back(it->second);
    }
  }
  return b;
}

// The user operation: on one shard's slice of the weights, how many rows it
// holds and the sum and largest of |w|, as three doubles.
gridvec::expected<gridvec::wire_bytes> logreg_stats(gridvec::table_slice& slice, const gridvec::wire_bytes& args) {
  if (!args.empty())
    return gridvec::failure{"logreg.stats takes no arguments"};
  double stats[3] = {0, 0, 0};
  slice.for_each([&](uint64_t, const float* row, uint32_t) {
    stats[0] += 1;
    stats[1] += std::abs(row[0]);
    stats[2] = std::max<double>(stats[2], std::abs(row[0]));
  });
  const char* bytes = reinterpret_cast<const char*>(stats);
  return gridvec::wire_bytes(bytes, bytes + sizeof stats);
}

int fail(const std::string& line) {
  std::fprintf(stderr, "sparse-logreg: %s\n", line.c_str());
  return 1;
}

// Accuracy and mean log-loss of the table's weights on `xs`.
gridvec::expected<std::pair<double, double>> evaluate(gridvec::table& weights, const std::vector<example>& xs) {
  auto b = collect(xs, 0, xs.size());
  auto w = weights.get(b.keys);
  if (!w)
    return gridvec::failure{w.error()};
  size_t right = 0;
  double loss = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    double score = 0;
    for (size_t at : b.at[i])
      score += (*w)[at];
    const double p = std::clamp<double>(sigmoid(score), 1e-7, 1 - 1e-7);
    right += (p > 0.5) == (xs[i].label > 0.5f) ? 1 : 0;
    loss -= xs[i].label > 0.5f ? std::log(p) : std::log(1 - p);
  }
  return std::make_pair(static_cast<double>(right) / static_cast<double>(xs.size()),
                        loss / static_cast<double>(xs.size()));
}

// What the command line chose.
struct settings {
  int epochs = 3;
  size_t batch = 256;   // examples per batch
  int per_example = 12; // features per example
  unsigned ahead = 1;   // asynchronous: batches whose weights are fetched ahead, and pushes in flight
  int compare = 0;      // --compare N: N synchronous and N asynchronous runs, alternating
  bool save = false, stats = false, sync = false;
};

// Where an epoch's time went: computing (grouping a batch's keys, the
// gradient) and waiting for the shards (a call's answer, or a future).
struct epoch_time {
  double seconds = 0, compute = 0, waiting = 0;
};

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

// The gradient of batch `b` (examples [begin, end)) at weights `w`:
// d loss / d w_f = sum of (p - y) over its examples that have feature f.
std::vector<float> gradient(const data_set& d, size_t begin, size_t end, const batch_keys& b,
                            const std::vector<float>& w) {
  std::vector<float> grad(b.keys.size(), 0.0f);
  for (size_t i = begin; i < end; ++i) {
    double score = 0;
    for (size_t at : b.at[i - begin])
      score += w[at];
    const float g = sigmoid(score) - d.train[i].label;
    for (size_t at : b.at[i - begin])
      grad[at] += g;
  }
  return grad;
}

// One epoch: with `lanes` asynchronous (the next `ahead` batches' weights
// on their way while this one is computed, gradients pushed without
// waiting, at most `ahead` pushes in flight: each batch reads weights at
// most `ahead` pushes behind, as a parameter server's bounded delay
// allows); without, every call waits for its answer.
gridvec::expected<epoch_time> run_epoch(gridvec::table& weights, gridvec::async_table* lanes, const data_set& d,
                                        const settings& s) {
  epoch_time t;
  const auto started = clock_type::now();
  const size_t n = d.train.size();
  auto timed = [](double& into, auto&& f) {
    const auto at = clock_type::now();
    auto r = f();
    into += since(at);
    return r;
  };
  if (!lanes) {
    for (size_t begin = 0; begin < n; begin += s.batch) {
      const size_t end = std::min(n, begin + s.batch);
      auto b = timed(t.compute, [&] { return collect(d.train, begin, end); });
      // Rows never seen are created, as zeros.
      auto w = timed(t.waiting, [&] { return weights.get(b.keys); });
      if (!w)
        return gridvec::failure{w.error()};
      auto grad = timed(t.compute, [&] { return gradient(d, begin, end, b, *w); });
      if (auto ok = timed(t.waiting, [&] { return weights.push(b.keys, grad); }); !ok)
        return gridvec::failure{ok.error()};
    }
    t.seconds = since(started);
    return t;
  }
  struct in_flight {
    size_t begin, end;
    batch_keys b;
    std::future<gridvec::expected<std::vector<float>>> w;
  };
  std::deque<in_flight> fetched;
  std::deque<std::future<gridvec::status>> pushed;
  size_t next = 0; // the first example not fetched yet
  auto fetch_ahead = [&] {
    while (fetched.size() < s.ahead && next < n) {
      const size_t end = std::min(n, next + s.batch);
      auto b = timed(t.compute, [&] { return collect(d.train, next, end); });
      auto w = lanes->get(b.keys);
      fetched.push_back({next, end, std::move(b), std::move(w)});
      next = end;
    }
  };
  fetch_ahead();
  while (!fetched.empty()) {
    in_flight batch = std::move(fetched.front());
    fetched.pop_front();
    fetch_ahead(); // the following batches' rows, while this one is computed
    auto w = timed(t.waiting, [&] { return batch.w.get(); });
    if (!w)
      return gridvec::failure{w.error()};
    auto grad = timed(t.compute, [&] { return gradient(d, batch.begin, batch.end, batch.b, *w); });
    if (pushed.size() >= s.ahead) {
      if (auto ok = timed(t.waiting, [&] { return pushed.front().get(); }); !ok)
        return gridvec::failure{ok.error()};
      pushed.pop_front();
    }
    pushed.push_back(lanes->push(std::move(batch.b.keys), std::move(grad))); // Adagrad, on the shards
  }
  for (auto& p : pushed)
    if (auto ok = timed(t.waiting, [&] { return p.get(); }); !ok)
      return gridvec::failure{ok.error()};
  t.seconds = since(started);
  return t;
}

// --compare: the same training from zeros, synchronous then asynchronous,
// `runs` times each, alternating (each on a fresh table, dropped after), and
// what the overlap bought: examples/s per run, the time split, and the
// ratio of the medians.
int compare(caf::actor_system& sys, const std::vector<gridvec::table_shard_actor>& shards, gridvec::table_spec spec,
            const data_set& d, const settings& s) {
  gridvec::table_client client{sys, shards};
  std::vector<double> rate[2]; // [0]: synchronous, [1]: asynchronous
  double compute[2] = {0, 0}, waiting[2] = {0, 0}, total[2] = {0, 0};
  const std::string base = spec.name;
  for (int run = 1; run <= s.compare; ++run)
    for (int async = 0; async < 2; ++async) {
      spec.name = base + "-compare-" + std::to_string(run) + (async ? "-async" : "-sync");
      auto weights = client.open(spec);
      if (!weights)
        return fail(weights.error());
      std::unique_ptr<gridvec::async_table> lanes;
      if (async) {
        auto opened = gridvec::async_table::open(sys, shards, spec, 2 * s.ahead);
        if (!opened)
          return fail(opened.error());
        lanes = std::move(*opened);
      }
      epoch_time sum;
      for (int epoch = 1; epoch <= s.epochs; ++epoch) {
        auto t = run_epoch(*weights, lanes.get(), d, s);
        if (!t)
          return fail(t.error());
        sum.seconds += t->seconds;
        sum.compute += t->compute;
        sum.waiting += t->waiting;
      }
      lanes.reset();
      auto score = evaluate(*weights, d.test);
      if (!score)
        return fail(score.error());
      const double r = double(d.train.size()) * s.epochs / sum.seconds;
      rate[async].push_back(r);
      compute[async] += sum.compute;
      waiting[async] += sum.waiting;
      total[async] += sum.seconds;
      std::printf("run %d %-12s %9.0f examples/s, compute %.3f s, waiting %.3f s of %.3f s, held-out accuracy %.4f\n",
                  run, async ? "asynchronous" : "synchronous", r, sum.compute, sum.waiting, sum.seconds, score->first);
      std::fflush(stdout);
      if (auto dropped = weights->drop(); !dropped)
        return fail(dropped.error());
    }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  for (int async = 0; async < 2; ++async)
    std::printf("%s: median %.0f examples/s (%.0f to %.0f); compute %.0f%%, waiting %.0f%% of the time\n",
                async ? "asynchronous" : "synchronous", median(rate[async]),
                *std::min_element(rate[async].begin(), rate[async].end()),
                *std::max_element(rate[async].begin(), rate[async].end()), 100 * compute[async] / total[async],
                100 * waiting[async] / total[async]);
  std::printf("asynchronous / synchronous (medians): %.2fx\n", median(rate[1]) / median(rate[0]));
  return 0;
}

int train(caf::actor_system& sys, std::vector<gridvec::table_shard_actor> shards, const settings& s) {
  gridvec::table_client client{sys, shards};
  gridvec::table_spec spec;
  spec.name = "logreg-weights";
  spec.dim = 1; // one weight per feature
  spec.optimizer = gridvec::table_optimizer::adagrad;
  spec.learning_rate = 0.1f;
  const data_set d = make_data(42, s.per_example);
  std::printf("data: %zu training and %zu held-out examples of %d features each over %d hashed features, batches of "
              "%zu; %u shards\n",
              d.train.size(), d.test.size(), s.per_example, features, s.batch, client.shards());
  if (s.compare > 0)
    return compare(sys, shards, spec, d, s);
  auto weights = client.open(spec);
  if (!weights)
    return fail(weights.error());
  // --sync: every call waits for its answer; otherwise (the default) the
  // calls are asynchronous, on lanes of their own (run_epoch).
  std::unique_ptr<gridvec::async_table> lanes;
  if (!s.sync) {
    auto opened = gridvec::async_table::open(sys, shards, spec, 2 * s.ahead);
    if (!opened)
      return fail(opened.error());
    lanes = std::move(*opened);
  }
  for (int epoch = 1; epoch <= s.epochs; ++epoch) {
    auto t = run_epoch(*weights, lanes.get(), d, s);
    if (!t)
      return fail(t.error());
    auto train_score = evaluate(*weights, d.train);
    auto test_score = evaluate(*weights, d.test);
    if (!train_score || !test_score)
      return fail(!train_score ? train_score.error() : test_score.error());
    std::printf("epoch %d: training log-loss %.4f, held-out accuracy %.4f, %.0f examples/s (%s; compute %.3f s, "
                "waiting %.3f s)\n",
                epoch, train_score->second, test_score->first, double(d.train.size()) / t->seconds,
                lanes ? "asynchronous" : "synchronous", t->compute, t->waiting);
  }
  auto count = weights->reduce("count");
  auto infos = weights->info();
  if (!count || !infos)
    return fail(!count ? count.error() : infos.error());
  uint64_t memory = 0;
  for (auto& i : *infos)
    memory += i.memory_bytes;
  auto test_score = evaluate(*weights, d.test);
  if (!test_score)
    return fail(test_score.error());
  std::printf("rows: %.0f features on the shards, %llu bytes with their Adagrad slots\n", (*count)[0],
              static_cast<unsigned long long>(memory));
  std::printf("held-out accuracy %.4f (the hidden model's: %.4f; always guessing the majority: about 0.5)\n",
              test_score->first, d.bayes_accuracy);
  if (s.stats) {
    auto parts = weights->call("logreg.stats");
    if (!parts)
      return fail(parts.error());
    for (size_t i = 0; i < parts->size(); ++i) {
      double v[3];
      if ((*parts)[i].size() != sizeof v)
        return fail("logreg.stats of shard " + std::to_string(i) + " sent " + std::to_string((*parts)[i].size()) +
                    " bytes");
      std::memcpy(v, (*parts)[i].data(), sizeof v);
      std::printf("logreg.stats on shard %zu: %.0f rows, mean |w| %.4f, max |w| %.4f\n", i, v[0],
                  v[0] > 0 ? v[1] / v[0] : 0.0, v[2]);
    }
  }
  if (s.save) {
    if (auto saved = weights->save(); !saved)
      return fail(saved.error());
    std::printf("saved: every shard wrote its slice to the cluster's table-dir\n");
  }
  return 0;
}

// --node: one node of the cluster, as `gridvec node` runs it, until it is
// stopped (the cluster's shutdown) or this process gets SIGTERM/SIGINT.
int run_node(const std::string& config, const std::string& name) {
  auto cluster = gridvec::load_cluster_config(config);
  if (!cluster)
    return fail(cluster.error());
  const gridvec::node_spec* spec = cluster->find(name);
  if (!spec)
    return fail("there is no node '" + name + "' in " + config);
  caf::actor_system_config cfg;
  if (auto ok = gridvec::configure_cluster_system(cfg, *cluster, *spec); !ok)
    return fail(ok.error());
  caf::actor_system sys{cfg};
  auto started = gridvec::start_cluster_node(sys, *cluster, name);
  if (!started)
    return fail(started.error());
  std::printf("node %s listening on port %u with the user operation logreg.stats\n", name.c_str(), started->port);
  std::fflush(stdout);
  static std::atomic<bool> stop{false};
  std::signal(SIGTERM, [](int) { stop = true; });
  std::signal(SIGINT, [](int) { stop = true; });
  // As `gridvec node`: a shutdown unfinished 15 s after the stop ends the process.
  std::string died = gridvec::serve_cluster_node(sys, *started, name, stop, std::chrono::seconds(15));
  if (!died.empty())
    return fail("node " + name + " failed: " + died);
  return 0;
}

} // namespace

// A count from the command line: digits only, from 1 to `most`.
bool count_arg(const char* text, long most, long& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtol(text, &end, 10);
  return *text != 0 && *end == 0 && errno == 0 && out >= 1 && out <= most;
}

int main(int argc, char** argv) {
  std::string config, node;
  long local = 0;
  settings s;
  const char* usage =
    "usage: sparse-logreg (--config CLUSTER.conf | --local SHARDS) [--epochs N] [--save] [--stats] [--sync]\n"
    "         [--batch N] [--per-example K] [--ahead D] [--compare RUNS]\n"
    "       sparse-logreg --config CLUSTER.conf --node NAME";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    long v = 0;
    auto counted = [&](long most, auto& into) {
      if (i + 1 >= argc || !count_arg(argv[i + 1], most, v))
        return false;
      into = static_cast<std::remove_reference_t<decltype(into)>>(v);
      ++i;
      return true;
    };
    if (a == "--config" && i + 1 < argc)
      config = argv[++i];
    else if (a == "--node" && i + 1 < argc)
      node = argv[++i];
    else if (a == "--save")
      s.save = true;
    else if (a == "--stats")
      s.stats = true;
    else if (a == "--sync")
      s.sync = true;
    else if (a == "--local" || a == "--epochs" || a == "--batch" || a == "--per-example" || a == "--ahead" ||
             a == "--compare") {
      const bool ok = a == "--local"         ? counted(1024, local)
                      : a == "--epochs"      ? counted(1000, s.epochs)
                      : a == "--batch"       ? counted(50000, s.batch)
                      : a == "--per-example" ? counted(1000, s.per_example)
                      : a == "--ahead"       ? counted(64, s.ahead)
                                             : counted(100, s.compare);
      if (!ok)
        return fail(a + " needs a whole number from 1 to " +
                    (a == "--local"         ? "1024"
                     : a == "--epochs"      ? "1000"
                     : a == "--batch"       ? "50000"
                     : a == "--per-example" ? "1000"
                     : a == "--ahead"       ? "64"
                                            : "100"));
    } else
      return fail(usage);
  }
  // Registered before any shard serves: in-process shards and --node's.
  gridvec::register_table_operation("logreg.stats", logreg_stats);
  if (!node.empty())
    return run_node(config, node);
  if (config.empty() == (local <= 0))
    return fail("give either --config CLUSTER.conf or --local SHARDS");
  if (s.compare > 0 && s.sync)
    return fail("--compare runs both ways; leave out --sync");
  caf::actor_system_config cfg;
  if (local > 0) {
    caf::actor_system sys{cfg};
    auto shards = gridvec::spawn_table_shards(sys, static_cast<uint32_t>(local));
    int code = train(sys, shards, s);
    for (auto& shard : shards)
      caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
    return code;
  }
  auto cluster = gridvec::load_cluster_config(config);
  if (!cluster)
    return fail(cluster.error());
  if (auto ok = gridvec::configure_cluster_system(cfg, *cluster); !ok)
    return fail(ok.error());
  caf::actor_system sys{cfg};
  auto shards = gridvec::connect_table_shards(sys, *cluster);
  if (!shards)
    return fail(shards.error());
  return train(sys, *shards, s);
}
