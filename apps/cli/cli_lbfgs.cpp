// `gridvec lbfgs`: L2-regularised logistic regression over hashed sparse
// features (LIBSVM text), trained by L-BFGS whose vectors live on the
// parameter server's shards (docs/lbfgs.md). The model, its gradient, the
// search direction and the m history pairs are the rows of one dense
// table in the columns layout, each row one vector split over the shards;
// the two-loop recursion and the model update are dot/axpy/scal/copy on
// the shards, and only scalars come back. The data passes are spread over
// learners, each reading the model only at the columns its examples touch
// (a sparse fetch) and sending its gradient back the same way (a sparse
// increment): on a cluster its learner nodes (a lost one is replaced and
// the pass done again), in one process learner threads.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <filesystem>

#include <gridvec/cluster.hpp>
#include <gridvec/roles/lbfgs_learner.hpp>
#include <gridvec/tables.hpp>

#include "actors/lbfgs/table_model.hpp"
#include "apps/cli/cli.hpp"
#include "src/lbfgs/lbfgs.hpp"
#include "src/lbfgs/learner_share.hpp"
#include "src/lbfgs/logistic.hpp"
#include "src/lbfgs/lbfgs_state_file.hpp"
#include "src/lbfgs/svm_data.hpp"
#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

const char* const usage =
  "usage: gridvec lbfgs --train DATA.svm [--config CLUSTER.conf | --shards S] [options]\n\n"
  "L2-regularised logistic regression over hashed sparse features, by L-BFGS on the\n"
  "parameter server's shards (docs/lbfgs.md). Minimises\n"
  "  sum_i log(1 + exp(-y_i w.x_i)) + l2/2 |w|^2   (scikit-learn's C = 1/l2, no intercept)\n\n"
  "  --train FILE       LIBSVM text: LABEL FEATURE:VALUE ... (label > 0 positive); a feature\n"
  "                     of digits below --features is that column, any other is hashed\n"
  "  --config FILE      the cluster whose table shards hold the vectors and whose learner\n"
  "                     nodes run the data passes (DATA.svm: a path they read); without it,\n"
  "  --shards S         table shards in this process (default 2)\n"
  "  --features N       columns of the model: a number or 2^K (default 2^24)\n"
  "  --l2 X             regularisation strength (default 1)\n"
  "  --memory M         history pairs kept (default 10)\n"
  "  --max-iter N       iterations at most (default 200)\n"
  "  --tol X            stop when |gradient| <= X * examples (default 1e-6)\n"
  "  --ftol X           stop when the objective's relative decrease is below X (default 1e-10)\n"
  "  --steps K          step sizes tried in one pass over the data (default 6)\n"
  "  --threads T        learner threads over the examples, in one process (default 2)\n"
  "  --table NAME       the model table (default lbfgs; its row 0 is the model)\n"
  "  --output FILE      the weights file: COLUMN WEIGHT per non-zero weight\n"
  "  --timeout SECONDS  the most a shard may take to answer (default 600); a learner node,\n"
  "                     twice that and 10 s\n"
  "  --checkpoint-every N  save the vectors to the cluster's table-dir every N iterations, to\n"
  "                     restore a lost table shard on a standby node from (default 10 on a\n"
  "                     cluster with a table-dir, else 0: never)\n"
  "  --state FILE       at every checkpoint, write the optimiser's state there too, to resume\n"
  "                     from (default: the --output file with .state appended, if given)\n"
  "  --resume FILE      go on from the state in FILE and the model table in the table-dir (a\n"
  "                     run whose gridvec lbfgs process was lost); the same options as it\n";

// The vectors as rows of the model table: the math runs on the shards.
class table_store : public vector_store {
public:
  explicit table_store(table& t) : t_(t) {}
  expected<std::vector<double>> dot(std::span<const uint64_t> a, std::span<const uint64_t> b) override {
    return t_.dot(a, b);
  }
  status axpy(double alpha, uint64_t x, uint64_t y) override {
    return t_.axpy(static_cast<float>(alpha), std::span<const uint64_t>(&x, 1), std::span<const uint64_t>(&y, 1));
  }
  status scal(double alpha, uint64_t x) override {
    return t_.scal(static_cast<float>(alpha), std::span<const uint64_t>(&x, 1));
  }
  status copy(uint64_t from, uint64_t to) override {
    return t_.copy(std::span<const uint64_t>(&from, 1), std::span<const uint64_t>(&to, 1));
  }
  status zero(uint64_t x) override { // a dense row removed is back to its initial zeros
    auto r = t_.remove(std::span<const uint64_t>(&x, 1));
    return r ? status{} : status{failure{r.error()}};
  }

private:
  table& t_;
};

// Learner threads, each with its own client of the table shards (a client
// belongs to one thread) and its share of the examples. run() gives every
// learner the same job and waits for all of them.
class learners {
public:
  using job = std::function<status(size_t learner, table& t, const logistic_part& part)>;

  learners(caf::actor_system& sys, const std::vector<table_shard_actor>& shards, const table_spec& spec,
           const std::vector<logistic_part>& parts, std::chrono::milliseconds timeout)
    : parts_(parts), results_(parts_.size()), traffic_(parts_.size()) {
    for (size_t i = 0; i < parts_.size(); ++i)
      threads_.emplace_back([this, i, &sys, shards, spec, timeout] { loop(i, sys, shards, spec, timeout); });
  }
  ~learners() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_)
      t.join();
  }

  status run(const job& j) {
    {
      std::unique_lock lock(mutex_);
      job_ = &j;
      ++round_;
      pending_ = parts_.size();
    }
    wake_.notify_all();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    for (auto& r : results_)
      if (!r)
        return r;
    return {};
  }
  size_t size() const { return parts_.size(); }
  /// What the learners' clients sent and received, all together.
  table_client::traffic_count traffic() {
    std::lock_guard lock(mutex_);
    table_client::traffic_count sum;
    for (auto& t : traffic_) {
      sum.requests += t.requests;
      sum.bytes_sent += t.bytes_sent;
      sum.bytes_received += t.bytes_received;
    }
    return sum;
  }

private:
  void loop(size_t i, caf::actor_system& sys, std::vector<table_shard_actor> shards, table_spec spec,
            std::chrono::milliseconds timeout) {
    table_client client{sys, std::move(shards), timeout};
    auto t = client.open(spec);
    uint64_t seen = 0;
    for (;;) {
      const job* j = nullptr;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || round_ != seen; });
        if (stopping_)
          return;
        seen = round_;
        j = job_;
      }
      status r = t ? (*j)(i, *t, parts_[i]) : status{failure{t.error()}};
      std::lock_guard lock(mutex_);
      results_[i] = r;
      traffic_[i] = client.traffic();
      if (--pending_ == 0)
        done_.notify_all();
    }
  }

  const std::vector<logistic_part>& parts_;
  std::vector<status> results_;
  std::vector<table_client::traffic_count> traffic_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const job* job_ = nullptr;
  uint64_t round_ = 0;
  size_t pending_ = 0;
  bool stopping_ = false;
};

// The data term and the accuracy, over some learners.
class counting_pass : public data_pass {
public:
  /// Examples whose sign of w.x is their label's (a zero margin counts as wrong).
  virtual expected<uint64_t> correct() = 0;
};

// The data term over the learner threads.
class learner_pass : public counting_pass {
public:
  explicit learner_pass(learners& l) : l_(l) {}

  expected<line_values> evaluate(std::span<const double> steps) override {
    std::vector<line_values> parts(l_.size());
    auto ok = l_.run([&](size_t i, table& t, const logistic_part& part) -> status {
      table_model model{t};
      auto v = share_line(model, part, steps);
      if (!v)
        return failure{v.error()};
      parts[i] = std::move(*v);
      return {};
    });
    if (!ok)
      return failure{ok.error()};
    line_values sum{std::vector<double>(steps.size(), 0.0), std::vector<double>(steps.size(), 0.0)};
    for (auto& p : parts)
      add_line_values(sum, p);
    return sum;
  }

  expected<double> gradient() override {
    std::vector<double> losses(l_.size(), 0.0);
    auto ok = l_.run([&](size_t i, table& t, const logistic_part& part) -> status {
      table_model model{t};
      auto loss = share_gradient(model, part);
      if (!loss)
        return failure{loss.error()};
      losses[i] = *loss;
      return {};
    });
    if (!ok)
      return failure{ok.error()};
    double sum = 0;
    for (double l : losses)
      sum += l;
    return sum;
  }

  expected<uint64_t> correct() override {
    std::vector<uint64_t> counts(l_.size(), 0);
    auto ok = l_.run([&](size_t i, table& t, const logistic_part& part) -> status {
      table_model model{t};
      auto c = share_correct(model, part);
      if (!c)
        return failure{c.error()};
      counts[i] = *c;
      return {};
    });
    if (!ok)
      return failure{ok.error()};
    uint64_t sum = 0;
    for (auto c : counts)
      sum += c;
    return sum;
  }

private:
  learners& l_;
};

// The data term over a cluster's learner nodes. A gradient pass done again
// after a learner was lost starts from a zero gradient row: the lost
// learner may have added part of its share's gradient before it died, and
// the others all of theirs. Its increments may still be on their way (in
// a shard's socket) when the row is zeroed, so the table is fenced first:
// every increment of the failed attempt carries a writer token below the
// fence, and a shard refuses it from then on.
class node_pass : public counting_pass {
public:
  node_pass(node_learners& l, vector_store& store, table& vectors) : l_(l), store_(store), vectors_(vectors) {}

  expected<line_values> evaluate(std::span<const double> steps) override {
    auto values = l_.pass(lbfgs_pass::line, steps);
    if (!values)
      return failure{values.error()};
    line_values sum{std::vector<double>(steps.size(), 0.0), std::vector<double>(steps.size(), 0.0)};
    for (auto& v : *values) {
      if (v.size() != 2 * steps.size())
        return failure{"a learner sent " + std::to_string(v.size()) + " values for " + std::to_string(steps.size()) +
                       " steps"};
      line_values part{std::vector<double>(v.begin(), v.begin() + long(steps.size())),
                       std::vector<double>(v.begin() + long(steps.size()), v.end())};
      add_line_values(sum, part);
    }
    return sum;
  }

  expected<double> gradient() override {
    auto values = l_.pass(lbfgs_pass::gradient, {}, [&](uint64_t fence) {
      if (auto ok = vectors_.fence(fence); !ok)
        return status{failure{ok.error(), ok.code()}};
      spdlog::info("model table fenced at {}: the lost learner's increments still on their way are refused", fence);
      return store_.zero(lbfgs_rows::g_new);
    });
    if (!values)
      return failure{values.error()};
    double sum = 0;
    for (auto& v : *values)
      sum += v.at(0);
    return sum;
  }

  expected<uint64_t> correct() override {
    auto values = l_.pass(lbfgs_pass::correct, {});
    if (!values)
      return failure{values.error()};
    uint64_t sum = 0;
    for (auto& v : *values)
      sum += static_cast<uint64_t>(v.at(0));
    return sum;
  }

private:
  node_learners& l_;
  vector_store& store_;
  table& vectors_;
};

// Everything that talks to the table shards: the optimiser's client and
// table, and the learners (threads, each with its own client; or a
// cluster's learner nodes, told the shards again) and the data pass. Made
// anew, with the new shard list, once a lost shard is replaced.
struct lbfgs_session;
status resume_from(lbfgs_session& session, const lbfgs_checkpoint& checkpoint, const std::string& path);

struct lbfgs_session {
  lbfgs_session(caf::actor_system& sys, const std::vector<table_shard_actor>& shards, std::chrono::milliseconds timeout)
    : client(sys, shards, timeout) {}
  status start(gridvec::table t, caf::actor_system& sys, const std::vector<table_shard_actor>& shards,
               const table_spec& spec, const std::vector<logistic_part>& parts, std::chrono::milliseconds timeout,
               node_learners* nodes, const std::vector<const node_spec*>& shard_nodes) {
    vectors.emplace(std::move(t));
    store = std::make_unique<table_store>(*vectors);
    if (nodes) {
      // An earlier run on this table (a resumed one, or one before it)
      // may have fenced it: this run's writer tokens start above that.
      auto fenced = vectors->fence(0);
      if (!fenced)
        return failure{fenced.error(), fenced.code()};
      nodes->tokens_above(*fenced);
      if (auto ok = nodes->use_table(shard_nodes, spec.name); !ok)
        return ok;
      pass = std::make_unique<node_pass>(*nodes, *store, *vectors);
    } else {
      pool = std::make_unique<learners>(sys, shards, spec, parts, timeout);
      pass = std::make_unique<learner_pass>(*pool);
    }
    return {};
  }
  ~lbfgs_session() { // the learners before what they use
    pass.reset();
    pool.reset();
  }

  table_client client;
  std::optional<gridvec::table> vectors; // the model table
  std::unique_ptr<table_store> store;
  std::unique_ptr<learners> pool; // learner threads (no cluster)
  std::unique_ptr<counting_pass> pass;
};

// Requests and bytes both ways, over several clients.
struct traffic_total {
  double requests = 0, bytes = 0;
  void add(const table_client::traffic_count& t) {
    requests += double(t.requests);
    bytes += double(t.bytes_sent + t.bytes_received);
  }
};

// The weights file: a header line, then COLUMN WEIGHT per non-zero weight,
// read from the shards a block of columns at a time.
status write_weights(table& t, const std::string& path, uint32_t features, double l2, double objective) {
  auto file = atomic_file::create(path, "the weights file");
  if (!file)
    return failure{file.error()};
  std::fprintf(file->stream(), "# gridvec lbfgs weights: features %u l2 %.17g objective %.17g\n", features, l2,
               objective);
  const uint32_t block = 1u << 20;
  std::vector<uint32_t> cols;
  for (uint64_t from = 0; from < features; from += block) {
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(block, features - from));
    cols.resize(n);
    for (uint32_t j = 0; j < n; ++j)
      cols[j] = static_cast<uint32_t>(from + j);
    auto w = t.fetch(lbfgs_rows::w, cols);
    if (!w)
      return failure{w.error()};
    for (uint32_t j = 0; j < n; ++j)
      if ((*w)[j] != 0.0f)
        std::fprintf(file->stream(), "%u %.9g\n", cols[j], double{(*w)[j]});
  }
  return file->commit();
}

template <class T>
bool parse_number(const std::string& flag, const std::string& text, T& out) {
  try {
    size_t used = 0;
    if constexpr (std::is_floating_point_v<T>)
      out = static_cast<T>(std::stod(text, &used));
    else {
      if (text.empty() || text[0] == '-')
        throw std::invalid_argument("negative");
      out = static_cast<T>(std::stoull(text, &used));
    }
    if (used != text.size())
      throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    std::fprintf(stderr, "error: %s expects a number, not '%s'\n", flag.c_str(), text.c_str());
    return false;
  }
  return true;
}

// Loads the model table of the checkpoint from its save slot in the table-dir and
// checks that it is the state's: its gradient row's norm must be the one the
// state recorded (a table-dir edited by hand, or another run's table of the
// same name, would not match; a save cut short went to the other slot).
status resume_from(lbfgs_session& session, const lbfgs_checkpoint& checkpoint, const std::string& path) {
  const lbfgs_state& state = checkpoint.state;
  if (auto ok = session.vectors->load(checkpoint.table_slot); !ok)
    return failure{"cannot resume: the model table of the checkpoint could not be loaded from the table-dir: " +
                   ok.error()};
  const uint64_t g = lbfgs_rows::g;
  auto gg = session.store->dot(std::span<const uint64_t>(&g, 1), std::span<const uint64_t>(&g, 1));
  if (!gg)
    return failure{gg.error()};
  const double norm = std::sqrt(gg->front());
  if (std::abs(norm - state.gradient_norm) > 1e-9 * std::max(1.0, state.gradient_norm))
    return failure{"cannot resume: the table-dir's model table is not of the checkpoint of iteration " +
                   std::to_string(state.iteration) + " in " + path + " (|gradient| " + std::to_string(norm) +
                   " against " + std::to_string(state.gradient_norm) + ")"};
  spdlog::info("resuming from the checkpoint of iteration {} ({}, the model table in the table-dir)", state.iteration,
               path);
  return {};
}

} // namespace

int cli_lbfgs(const std::vector<std::string>& args) {
  std::string config, train, output, table_name = "lbfgs", features_text = "2^24", state_path, resume_path;
  uint32_t shards = 2, threads = 2;
  bool threads_given = false;
  double timeout_seconds = 600;
  std::optional<uint32_t> checkpoint_every;
  lbfgs_options o;
  o.gtol = 1e-6;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (i + 1 >= args.size()) {
      std::fprintf(stderr, "error: %s\n",
                   (a.rfind("-", 0) == 0 ? a + " needs a value" : "unexpected '" + a + "'").c_str());
      return 2;
    }
    const std::string& v = args[++i];
    bool ok = true;
    if (a == "--config")
      config = v;
    else if (a == "--train")
      train = v;
    else if (a == "--output")
      output = v;
    else if (a == "--table")
      table_name = v;
    else if (a == "--features")
      features_text = v;
    else if (a == "--shards")
      ok = parse_number(a, v, shards);
    else if (a == "--threads") {
      ok = parse_number(a, v, threads);
      threads_given = true;
    } else if (a == "--l2")
      ok = parse_number(a, v, o.l2);
    else if (a == "--memory")
      ok = parse_number(a, v, o.memory);
    else if (a == "--max-iter")
      ok = parse_number(a, v, o.max_iterations);
    else if (a == "--tol")
      ok = parse_number(a, v, o.gtol);
    else if (a == "--ftol")
      ok = parse_number(a, v, o.ftol);
    else if (a == "--steps")
      ok = parse_number(a, v, o.steps_per_pass);
    else if (a == "--timeout")
      ok = parse_number(a, v, timeout_seconds);
    else if (a == "--checkpoint-every")
      ok = parse_number(a, v, checkpoint_every.emplace());
    else if (a == "--state")
      state_path = v;
    else if (a == "--resume")
      resume_path = v;
    else {
      std::fprintf(stderr, "error: unknown option '%s' (gridvec lbfgs --help)\n", a.c_str());
      return 2;
    }
    if (!ok)
      return 2;
  }
  auto fail = [](const std::string& line, int code = 2) {
    std::fprintf(stderr, "error: %s\n", line.c_str());
    return code;
  };
  if (train.empty())
    return fail("--train DATA.svm is required (gridvec lbfgs --help)");
  auto features = parse_feature_count(features_text);
  if (!features)
    return fail(features.error());
  if (!(o.l2 > 0 && std::isfinite(o.l2)))
    return fail("--l2 must be a number above 0");
  if (o.memory < 1 || o.memory > 100)
    return fail("--memory must be from 1 to 100");
  if (o.steps_per_pass < 1 || o.steps_per_pass > 32)
    return fail("--steps must be from 1 to 32");
  if (threads < 1 || threads > 256)
    return fail("--threads must be from 1 to 256");
  if (!config.empty() && threads_given)
    return fail("--threads is for one process; on a cluster the learners are its learner nodes (`learners` in "
                "its config)");
  if (config.empty() && (shards < 1 || shards > 64))
    return fail("--shards must be from 1 to 64");
  if (!(timeout_seconds > 0 && timeout_seconds <= 86400))
    return fail("--timeout must be a number of seconds from 0 to 86400");
  if (!output.empty())
    if (auto ok = atomic_file::check_writable(output, "the weights file"); !ok)
      return fail(ok.error());
  setup_logging();
  const auto started = std::chrono::steady_clock::now();
  auto data = read_svm_file(train, *features);
  if (!data)
    return fail(data.error());
  spdlog::info("{}: {} examples, {} non-zeros, {} features", train, data->examples(), data->values.size(), *features);

  std::optional<cluster_config> cluster;
  caf::actor_system_config cfg;
  if (!config.empty()) {
    auto loaded = load_cluster_config(config);
    if (!loaded)
      return fail(loaded.error());
    cluster = std::move(*loaded);
    if (auto ok = configure_cluster_system(cfg, *cluster); !ok)
      return fail(ok.error());
  }
  // Checkpoints: every `checkpoint_every` iterations the shards save the
  // table to the cluster's table-dir and this process keeps the optimiser's
  // scalars (the state) beside it; a lost table shard is then restored on
  // a standby node from there.
  if (!checkpoint_every)
    checkpoint_every = cluster && !cluster->table_dir.empty() ? 10 : 0;
  if (*checkpoint_every > 0 && !(cluster && !cluster->table_dir.empty()))
    return fail("--checkpoint-every needs a cluster config with a table-dir (the shards save there)");
  // The optimiser's state beside each checkpoint, to resume a lost run from.
  if (!resume_path.empty() && *checkpoint_every == 0)
    return fail("--resume needs a cluster config with a table-dir and checkpoints (the model table is saved there)");
  if (state_path.empty())
    state_path = !resume_path.empty() ? resume_path : output.empty() ? std::string{} : output + ".state";
  if (*checkpoint_every == 0)
    state_path.clear();
  std::optional<lbfgs_checkpoint> resumed;
  const lbfgs_run_identity identity{table_name, *features, o.memory, o.l2, data->examples()};
  if (!resume_path.empty()) {
    auto state = read_lbfgs_state(resume_path, identity);
    if (!state)
      return fail(state.error());
    resumed = std::move(*state);
  }
  if (!state_path.empty() && state_path != resume_path)
    if (auto ok = atomic_file::check_writable(state_path, "the L-BFGS state file"); !ok)
      return fail(ok.error());
  caf::actor_system sys{cfg};
  std::vector<table_shard_actor> table_shards;
  std::vector<const node_spec*> shard_nodes; // where each table shard is, on a cluster
  if (cluster) {
    shard_nodes = cluster->table_shard_nodes();
    auto connected = connect_table_shards(sys, *cluster);
    if (!connected)
      return fail(connected.error(), 1);
    table_shards = std::move(*connected);
  } else {
    table_shards = spawn_table_shards(sys, shards);
  }
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
  table_spec spec;
  spec.name = table_name;
  spec.kind = table_kind::matrix;
  spec.rows = lbfgs_rows::count(o.memory);
  spec.dim = *features;
  spec.layout = table_layout::columns;
  spec.dense = true;
  // Contiguous shares of the examples: one per learner thread, or one per
  // learner of the cluster's learner nodes, which read theirs from the file.
  const size_t n = data->examples();
  std::vector<logistic_part> parts;
  std::unique_ptr<node_learners> nodes;
  if (cluster) {
    auto connected = node_learners::connect(sys, *cluster, timeout);
    if (!connected)
      return fail(connected.error(), 1);
    nodes = std::move(*connected);
    std::error_code ec;
    const auto where = std::filesystem::absolute(train, ec);
    if (auto ok = nodes->load(ec ? train : where.lexically_normal().string(), *features, n); !ok)
      return fail(ok.error(), 1);
    *data = svm_data{}; // the learners hold the examples
  } else {
    for (uint32_t k = 0, count = static_cast<uint32_t>(std::min<size_t>(threads, n)); k < count; ++k) {
      const auto r = share_of(n, k, count);
      parts.push_back(make_logistic_part(*data, r.begin, r.end));
    }
  }
  o.examples = static_cast<double>(n);

  int code = 0;
  std::optional<lbfgs_session> session;
  auto start_session = [&]() -> status {
    session.reset(); // its learner threads and clients first
    session.emplace(sys, table_shards, timeout);
    auto t = session->client.open(spec);
    if (!t)
      return failure{t.error()};
    return session->start(std::move(*t), sys, table_shards, spec, parts, timeout, nodes.get(), shard_nodes);
  };
  if (auto ok = start_session(); !ok) {
    code = fail(ok.error(), 1);
  } else {
    spdlog::info("L-BFGS: {} table shards, {} {}, m = {}, l2 = {}{}", session->client.shards(),
                 nodes ? nodes->size() : session->pool->size(),
                 nodes ? "learners on the learner nodes" : "learner threads", o.memory, o.l2,
                 *checkpoint_every > 0 ? ", a checkpoint every " + std::to_string(*checkpoint_every) + " iterations"
                                       : std::string());
    std::optional<lbfgs_checkpoint> saved; // the last checkpoint whose slices are all written
    std::vector<std::string> standbys_used;
    traffic_total math_before, data_before; // of the sessions before a recovery
    uint32_t recoveries = 0;
    auto checkpoint = [&](const lbfgs_state& state) -> status {
      if (*checkpoint_every == 0 || state.iteration % *checkpoint_every != 0)
        return {};
      // Checkpoints alternate between save slots 1 and 2: a save cut short
      // (a shard or this process lost) leaves the last whole checkpoint in
      // the other slot, and the state file still names that one. Slot 0 is
      // the plain save of the finished model.
      const lbfgs_checkpoint next{state, saved && saved->table_slot == 1 ? 2u : 1u};
      if (auto ok = session->vectors->save(next.table_slot); !ok)
        return failure{"checkpoint at iteration " + std::to_string(state.iteration) + ": " + ok.error()};
      if (!state_path.empty())
        if (auto ok = write_lbfgs_state(state_path, next, identity); !ok)
          return failure{"checkpoint at iteration " + std::to_string(state.iteration) + ": " + ok.error()};
      saved = next;
      spdlog::info("checkpoint: iteration {} saved in the cluster's table-dir (slot {})", state.iteration,
                   next.table_slot);
      return {};
    };
    auto progress = [](const lbfgs_iteration& it) {
      spdlog::info("iteration {}: objective {:.10g}, |gradient| {:.4g}, step {:.4g}, {} line-search pass{}",
                   it.iteration, it.objective, it.gradient_norm, it.step, it.passes, it.passes == 1 ? "" : "es");
    };
    expected<lbfgs_result> result = failure{"not run"};
    // A resumed run starts from its state file's checkpoint, as a recovery does.
    const status ready = resumed ? resume_from(*session, *resumed, resume_path) : status{};
    if (!ready)
      result = failure{ready.why()};
    else if (resumed)
      saved = resumed;
    while (ready) {
      const std::optional<lbfgs_checkpoint> resume = saved; // the checkpoints of this try replace `saved`
      result = run_lbfgs(*session->store, *session->pass, o, progress, checkpoint, resume ? &resume->state : nullptr);
      if (result || !cluster || *checkpoint_every == 0)
        break;
      // A table shard lost: restore it on a standby node and go on from
      // the last checkpoint, every shard rolled back to it.
      auto lost = session->client.lost_shards();
      if (lost.empty())
        break;
      const auto started_recovery = std::chrono::steady_clock::now();
      const auto table_nodes = cluster->table_shard_nodes();
      status restored;
      for (uint32_t shard : lost) {
        const node_spec* spare = nullptr;
        for (const auto& node : cluster->nodes)
          if (node.standby && node.has(node_role::shard) &&
              std::find(standbys_used.begin(), standbys_used.end(), node.name) == standbys_used.end()) {
            spare = &node;
            break;
          }
        if (!spare) {
          restored = failure{result.error() + "; no standby shard node is left to restore table shard " +
                             std::to_string(shard) + " on"};
          break;
        }
        spdlog::info("table shard {} on node {} is lost; restoring it on standby node {} from {}", shard,
                     table_nodes[shard]->name, spare->name,
                     saved ? "the checkpoint of iteration " + std::to_string(saved->state.iteration)
                           : std::string("the start (no checkpoint yet)"));
        standbys_used.push_back(spare->name);
        auto taken =
          take_over_table_shard(sys, *cluster, *spare, shard, static_cast<uint32_t>(table_shards.size()), timeout);
        if (!taken) {
          restored = failure{result.error() + "; " + taken.error()};
          break;
        }
        table_shards[shard] = *taken;
        shard_nodes[shard] = spare;
      }
      if (restored) {
        math_before.add(session->client.traffic());
        if (session->pool)
          data_before.add(session->pool->traffic());
        restored = start_session();
      }
      if (restored && saved)
        if (auto ok = session->vectors->load(saved->table_slot); !ok)
          restored = failure{"the checkpoint of iteration " + std::to_string(saved->state.iteration) +
                             " could not be loaded: " + ok.error()};
      if (!restored) {
        result = failure{restored.error()};
        break;
      }
      ++recoveries;
      std::string which;
      for (uint32_t shard : lost)
        which += (which.empty() ? "" : ", ") + std::to_string(shard);
      spdlog::info("recovered: table shard{} {} restored in {:.1f} s; going on from iteration {}",
                   lost.size() == 1 ? "" : "s", which,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - started_recovery).count(),
                   saved ? saved->state.iteration + 1 : 1);
    }
    if (!result) {
      code = fail(result.error(), 1);
    } else {
      // Bytes on the wire per iteration: the optimiser's vector math (its
      // own client: scalars only) and the learners' sparse fetches and
      // increments, against shipping the vectors: a driver that ran the
      // two-loop recursion itself would at least fetch each new gradient
      // and send back the new model and direction (3 x features floats).
      if (result->iterations > 0) {
        auto math = math_before, data_traffic = data_before;
        math.add(session->client.traffic());
        if (session->pool)
          data_traffic.add(session->pool->traffic());
        if (nodes) {
          data_traffic.requests += nodes->requests();
          data_traffic.bytes += nodes->bytes();
        }
        const double its = result->iterations;
        spdlog::info("bytes per iteration: vector math on the shards {:.0f} ({:.1f} requests), data passes {:.0f}; "
                     "shipping the vectors instead: at least {:.0f} for the vector math",
                     double(math.bytes) / its, double(math.requests) / its, double(data_traffic.bytes) / its,
                     3.0 * double(*features) * sizeof(float));
      }
      if (recoveries > 0)
        spdlog::info("{} recover{} from a lost table shard", recoveries, recoveries == 1 ? "y" : "ies");
      if (nodes && nodes->replacements() > 0)
        spdlog::info("{} learner{} lost and replaced; {} of {} learners alive", nodes->replacements(),
                     nodes->replacements() == 1 ? "" : "s", nodes->alive(), nodes->size());
      auto counted = session->pass->correct();
      const uint64_t correct = counted ? *counted : 0;
      if (!counted)
        code = fail(counted.error(), 1);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (code == 0 && !output.empty())
        if (auto ok = write_weights(*session->vectors, output, *features, o.l2, result->objective); !ok)
          code = fail(ok.error(), 1);
      if (code == 0 && cluster) {
        // The model table is kept on the shards; with a table-dir it is saved too.
        if (auto saved_now = session->vectors->save(); !saved_now)
          spdlog::info("the model table {} was not saved: {}", table_name, saved_now.error());
        else
          spdlog::info("the model table {} is saved in the cluster's table-dir", table_name);
      }
      if (code == 0)
        std::printf("lbfgs: objective %.10g accuracy %.6f iterations %u data-passes %u seconds %.3f (stopped by %s)\n",
                    result->objective, double(correct) / double(n), result->iterations, result->data_passes, seconds,
                    result->stopped.c_str());
    }
  }
  session.reset();
  nodes.reset();
  if (!cluster)
    for (auto& s : table_shards)
      caf::anon_send_exit(s, caf::exit_reason::user_shutdown);
  return code;
}

} // namespace gridvec
