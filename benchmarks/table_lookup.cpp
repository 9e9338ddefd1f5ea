// Embedding lookups with a combiner (docs/tables.md) against a running
// cluster's table shards, several in flight at once: the workload where a
// table shard, not the client or the network, does most of the work (it
// reads every id's row and sums them per example; the client sends ids and
// gets one row per example back). scripts/bench-tables --lookup runs it
// once per `table-lanes` setting, so the lanes' gain shows even on a
// machine of few cores, where a get or put is bound by the client's own
// encoding and the loopback copies as much as by the shard.
//
// A table of `rows` rows of `dim` floats is written first; each request is
// `examples` examples of `ids` ids drawn from those rows, combined by their
// mean; `clients` lanes of an async_table keep that many requests in flight.
// A sample of the results is checked against the mean computed here. Then
// the same for multi-gets of `get-keys` of those rows a request, for the
// keys/s of plain reads on the same lanes.
//
// Usage: gridvec_table_lookup --config CLUSTER.conf [--requests 200]
//          [--examples 64] [--ids 1024] [--rows 1000] [--dim 256] [--clients 2]
//          [--get-keys 1000]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <future>
#include <string>
#include <vector>

#include <unistd.h> // getpid

#include <gridvec/cluster.hpp>
#include <gridvec/tables.hpp>
#include <gridvec/tables/async.hpp>

#include "src/util/rng.hpp"

using namespace gridvec;

namespace {

struct options {
  std::string config;
  size_t requests = 200, examples = 64, ids = 1024, rows = 1000, dim = 256, clients = 2, get_keys = 1000;
};

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "table_lookup: %s\n", why.c_str());
  std::exit(1);
}

size_t positive(const std::string& flag, const char* text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (*end != 0 || v == 0)
    fail(flag + " must be a positive integer, got '" + text + "'");
  return v;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc)
      fail(a + " needs a value");
    const char* v = argv[++i];
    if (a == "--config")
      o.config = v;
    else if (a == "--requests")
      o.requests = positive(a, v);
    else if (a == "--examples")
      o.examples = positive(a, v);
    else if (a == "--ids")
      o.ids = positive(a, v);
    else if (a == "--rows")
      o.rows = positive(a, v);
    else if (a == "--dim")
      o.dim = positive(a, v);
    else if (a == "--clients")
      o.clients = positive(a, v);
    else if (a == "--get-keys")
      o.get_keys = positive(a, v);
    else
      fail("unknown argument " + a);
  }
  if (o.config.empty())
    fail("--config is required");
  return o;
}

using request = std::vector<std::vector<uint64_t>>; // examples of row keys

// The mean of example e's rows, as the shards should return it.
void check(const request& r, const std::vector<float>& got, const std::vector<float>& table, size_t dim, size_t e) {
  for (size_t c = 0; c < dim; ++c) {
    double sum = 0;
    for (uint64_t k : r[e])
      sum += table[k * dim + c];
    const double want = sum / double(r[e].size());
    if (std::abs(got[e * dim + c] - want) > 1e-4 * (1 + std::abs(want)))
      fail("example " + std::to_string(e) + ", column " + std::to_string(c) + ": " + std::to_string(got[e * dim + c]) +
           " from the shards, " + std::to_string(want) + " computed here");
  }
}

} // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  auto cluster = load_cluster_config(o.config);
  if (!cluster)
    fail(cluster.error());
  caf::actor_system_config cfg;
  if (auto ok = configure_cluster_system(cfg, *cluster); !ok)
    fail(ok.error());
  caf::actor_system sys{cfg};
  auto shards = connect_table_shards(sys, *cluster);
  if (!shards)
    fail(shards.error());
  table_spec spec;
  spec.name = "lookup-" + std::to_string(::getpid()); // a fresh table, dropped below
  spec.dim = static_cast<uint32_t>(o.dim);

  // The rows, written through one client; then the requests, made before the clock starts.
  rng r(42);
  std::vector<float> values(o.rows * o.dim);
  for (auto& v : values)
    v = r.uniform() - 0.5f;
  std::vector<uint64_t> keys(o.rows);
  for (size_t k = 0; k < o.rows; ++k)
    keys[k] = k;
  table_client writer{sys, *shards};
  auto t = writer.open(spec);
  if (!t)
    fail(t.error());
  if (auto ok = t->put(keys, values); !ok)
    fail("put: " + ok.error());
  std::vector<request> requests(o.requests, request(o.examples, std::vector<uint64_t>(o.ids)));
  for (auto& q : requests)
    for (auto& example : q)
      for (auto& k : example)
        k = r.next() % o.rows;

  auto lanes = async_table::open(sys, *shards, spec, static_cast<unsigned>(o.clients));
  if (!lanes)
    fail(lanes.error());
  auto lookup = [&](size_t i) {
    return (*lanes)->submit([&q = requests[i]](table& lane) { return lane.lookup(q, table_combiner::mean); });
  };
  // Warm-up: one request per lane, not timed.
  for (size_t i = 0; i < o.clients && i < o.requests; ++i)
    if (auto got = lookup(i).get(); !got)
      fail("lookup: " + got.error());
  std::deque<std::pair<size_t, std::future<expected<std::vector<float>>>>> in_flight;
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < o.requests || !in_flight.empty();) {
    while (i < o.requests && in_flight.size() < o.clients) {
      in_flight.emplace_back(i, lookup(i));
      ++i;
    }
    auto [n, future] = std::move(in_flight.front());
    in_flight.pop_front();
    auto got = future.get();
    if (!got)
      fail("lookup: " + got.error());
    if (got->size() != o.examples * o.dim)
      fail("lookup: " + std::to_string(got->size()) + " floats back, not " + std::to_string(o.examples * o.dim));
    check(requests[n], *got, values, o.dim, n % o.examples);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Multi-gets: `requests` batches of get_keys keys, `clients` in flight.
  std::vector<std::vector<uint64_t>> batches(o.requests, std::vector<uint64_t>(o.get_keys));
  for (auto& b : batches)
    for (auto& k : b)
      k = r.next() % o.rows;
  std::deque<std::pair<size_t, std::future<expected<std::vector<float>>>>> gets;
  const auto get_start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < o.requests || !gets.empty();) {
    while (i < o.requests && gets.size() < o.clients) {
      gets.emplace_back(i, (*lanes)->submit([&b = batches[i]](table& lane) { return lane.get(b); }));
      ++i;
    }
    auto [n, future] = std::move(gets.front());
    gets.pop_front();
    auto got = future.get();
    if (!got)
      fail("get: " + got.error());
    const uint64_t k = batches[n][n % o.get_keys];
    if (got->size() != o.get_keys * o.dim || !std::equal(values.begin() + k * o.dim, values.begin() + (k + 1) * o.dim,
                                                         got->begin() + (n % o.get_keys) * o.dim))
      fail("get: batch " + std::to_string(n) + " did not read back what was written");
  }
  const double get_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - get_start).count();
  lanes->reset();
  if (auto ok = t->drop(); !ok)
    fail("dropping the table: " + ok.error());
  const double ids = double(o.requests) * double(o.examples) * double(o.ids);
  std::printf("lookups %zu x %zu examples x %zu ids, rows of %zu floats, %zu in flight: %.0f lookups/s, %.0f ids/s "
              "(%.3f s); gets of %zu keys: %.0f keys/s (%.3f s)\n",
              o.requests, o.examples, o.ids, o.dim, o.clients, double(o.requests) / seconds, ids / seconds, seconds,
              o.get_keys, double(o.requests) * double(o.get_keys) / get_seconds, get_seconds);
  return 0;
}
