// sparse-logreg: trains a model that is not word2vec on gridvec's parameter
// server (docs/tables.md): logistic regression over sparse, hashed features
// ("country=fr", "query=shoes", ...), the shape of click and ad models.
// The weights live in a map table on the shards, one row per feature,
// created on first read (zeros) with Adagrad's G kept beside each row;
// the program only sends feature keys and gradients, and reads weights.
//
//   sparse-logreg (--config CLUSTER.conf | --local SHARDS) [--epochs N] [--save] [--stats] [--sync]
//   sparse-logreg --config CLUSTER.conf --node NAME
//
// --config: the tables of a running cluster (its shard nodes); --local: that
// many table shards in this process. --node: run node NAME of the cluster
// in this process instead of `gridvec node`, with this program's own table
// operation "logreg.stats" linked in (a user operation, the Spark + parameter server talk: it runs on
// each shard's slice and returns a few numbers); --stats then asks every
// shard for it after training, which needs shard nodes started so. It makes a synthetic data set with a
// known answer (a hidden weight per feature; each example has 12 of 5,000
// features; its label is drawn from the hidden model), trains on 50,000
// examples, and prints the held-out accuracy next to the hidden model's own
// (the best any learner can do). Exits 0 when done, 1 with one error line.
// Its calls are asynchronous (gridvec/tables/async.hpp): the next batch's
// weights are on their way while this one is computed, and gradients are
// pushed without waiting; --sync waits for each call instead, and each
// epoch's line says how many examples a second either way.
#include <caf/all.hpp>

#include <gridvec/cluster.hpp>
#include <gridvec/tables.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <csignal>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int features = 5000;
constexpr int per_example = 12;
constexpr int batch = 256;

struct example {
  std::vector<uint64_t> keys; // hashed feature names
  float label = 0;
};

struct data_set {
  std::vector<example> train, test;
  double bayes_accuracy = 0; // the hidden model's own accuracy on `test`
};

float sigmoid(double x) { return static_cast<float>(1.0 / (1.0 + std::exp(-x))); }

data_set make_data(uint64_t seed) {
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

int train(caf::actor_system& sys, std::vector<gridvec::table_shard_actor> shards, int epochs, bool save, bool stats,
          bool sync) {
  gridvec::table_client client{sys, shards};
  gridvec::table_spec spec;
  spec.name = "logreg-weights";
  spec.dim = 1; // one weight per feature
  spec.optimizer = gridvec::table_optimizer::adagrad;
  spec.learning_rate = 0.1f;
  auto weights = client.open(spec);
  if (!weights)
    return fail(weights.error());
  const data_set d = make_data(42);
  std::printf("data: %zu training and %zu held-out examples over %d hashed features; %u shards\n", d.train.size(),
              d.test.size(), features, client.shards());
  // --sync: every call waits for its answer. Otherwise (the default) the
  // calls are asynchronous, on two lanes: the next batch's weights are
  // fetched while this one is computed, and gradients are pushed without
  // waiting (each batch reads weights at most one push behind, as a
  // parameter server's bounded delay allows).
  std::unique_ptr<gridvec::async_table> lanes;
  if (!sync) {
    auto opened = gridvec::async_table::open(sys, shards, spec, 2);
    if (!opened)
      return fail(opened.error());
    lanes = std::move(*opened);
  }
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const auto started = std::chrono::steady_clock::now();
    std::future<gridvec::expected<std::vector<float>>> next;
    std::future<gridvec::status> pushed;
    if (lanes)
      next = lanes->get(collect(d.train, 0, std::min<size_t>(batch, d.train.size())).keys);
    for (size_t begin = 0; begin < d.train.size(); begin += batch) {
      const size_t end = std::min(d.train.size(), begin + batch);
      auto b = collect(d.train, begin, end);
      gridvec::expected<std::vector<float>> w = gridvec::failure{""};
      if (lanes) {
        w = next.get();
        if (end < d.train.size()) // the next batch's rows, while this one is computed
          next = lanes->get(collect(d.train, end, std::min(d.train.size(), end + batch)).keys);
      } else {
        w = weights->get(b.keys); // rows never seen are created, as zeros
      }
      if (!w)
        return fail(w.error());
      // d loss / d w_f = (p - y) for each example that has feature f.
      std::vector<float> grad(b.keys.size(), 0.0f);
      for (size_t i = begin; i < end; ++i) {
        double score = 0;
        for (size_t at : b.at[i - begin])
          score += (*w)[at];
        const float g = sigmoid(score) - d.train[i].label;
        for (size_t at : b.at[i - begin])
          grad[at] += g;
      }
      if (lanes) {
        if (pushed.valid())
          if (auto ok = pushed.get(); !ok)
            return fail(ok.error());
        pushed = lanes->push(std::move(b.keys), std::move(grad)); // Adagrad, on the shards
      } else if (auto ok = weights->push(b.keys, grad); !ok) {
        return fail(ok.error());
      }
    }
    if (pushed.valid())
      if (auto ok = pushed.get(); !ok)
        return fail(ok.error());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    auto train_score = evaluate(*weights, d.train);
    auto test_score = evaluate(*weights, d.test);
    if (!train_score || !test_score)
      return fail(!train_score ? train_score.error() : test_score.error());
    std::printf("epoch %d: training log-loss %.4f, held-out accuracy %.4f, %.0f examples/s (%s)\n", epoch,
                train_score->second, test_score->first, double(d.train.size()) / seconds,
                lanes ? "asynchronous" : "synchronous");
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
  if (stats) {
    auto parts = weights->call("logreg.stats");
    if (!parts)
      return fail(parts.error());
    for (size_t s = 0; s < parts->size(); ++s) {
      double v[3];
      if ((*parts)[s].size() != sizeof v)
        return fail("logreg.stats of shard " + std::to_string(s) + " sent " + std::to_string((*parts)[s].size()) +
                    " bytes");
      std::memcpy(v, (*parts)[s].data(), sizeof v);
      std::printf("logreg.stats on shard %zu: %.0f rows, mean |w| %.4f, max |w| %.4f\n", s, v[0],
                  v[0] > 0 ? v[1] / v[0] : 0.0, v[2]);
    }
  }
  if (save) {
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
  caf::scoped_actor self{sys};
  self->monitor(started->node);
  for (bool running = true; running;)
    self->receive([&](caf::down_msg&) { running = false; }, caf::after(std::chrono::milliseconds(100)) >>
                                                              [&] {
                                                                if (stop)
                                                                  self->send(started->node, gridvec::stop_atom::value);
                                                              });
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  std::string config, node;
  int local = 0, epochs = 3;
  bool save = false, stats = false, sync = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--config" && i + 1 < argc)
      config = argv[++i];
    else if (a == "--local" && i + 1 < argc)
      local = std::atoi(argv[++i]);
    else if (a == "--epochs" && i + 1 < argc)
      epochs = std::atoi(argv[++i]);
    else if (a == "--save")
      save = true;
    else if (a == "--stats")
      stats = true;
    else if (a == "--sync")
      sync = true;
    else if (a == "--node" && i + 1 < argc)
      node = argv[++i];
    else
      return fail(
        "usage: sparse-logreg (--config CLUSTER.conf | --local SHARDS) [--epochs N] [--save] [--stats] [--sync]\n"
        "       sparse-logreg --config CLUSTER.conf --node NAME");
  }
  // Registered before any shard serves: in-process shards and --node's.
  gridvec::register_table_operation("logreg.stats", logreg_stats);
  if (!node.empty())
    return run_node(config, node);
  if (config.empty() == (local <= 0) || epochs < 1)
    return fail("give either --config CLUSTER.conf or --local SHARDS (at least 1), and --epochs of at least 1");
  caf::actor_system_config cfg;
  if (local > 0) {
    caf::actor_system sys{cfg};
    auto shards = gridvec::spawn_table_shards(sys, static_cast<uint32_t>(local));
    int code = train(sys, shards, epochs, save, stats, sync);
    for (auto& s : shards)
      caf::anon_send_exit(s, caf::exit_reason::user_shutdown);
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
  return train(sys, *shards, epochs, save, stats, sync);
}
