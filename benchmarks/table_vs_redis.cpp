// Multi-get and multi-put throughput of the parameter server's tables
// (docs/tables.md) against Redis, side by side in one run: the same batches
// of random 64-bit keys with rows of floats, written and read back through
// gridvec::table_client on a running cluster's shard nodes and through
// hiredis as pipelined MSET / MGET on a redis-server. scripts/bench-tables
// starts both and runs this.
//
// Both systems get the same pipelining: `depth` batches are in flight at a
// time, and the next group is sent once the whole group has answered (one
// put_batches / get_batches call; `depth` appended commands, then `depth`
// replies). A Redis value is a row's 256 bytes (dim 64) as they lie in
// memory, its key the 8 bytes of the uint64, so both move the same bytes.
//
// Usage: gridvec_table_bench --config CLUSTER.conf --redis-port P
//          [--batches 200] [--keys 1000] [--dim 64] [--depth 8] [--json]
#include <hiredis/hiredis.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h> // getpid

#include <gridvec/cluster.hpp>
#include <gridvec/tables.hpp>

#include "src/util/rng.hpp"

using namespace gridvec;

namespace {

struct options {
  std::string config;
  int redis_port = 0;
  size_t batches = 200, keys = 1000, dim = 64, depth = 8;
  bool json = false;
};

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "table_vs_redis: %s\n", why.c_str());
  std::exit(1);
}

// What both systems write: `batches` batches of random keys (distinct with
// overwhelming odds) and a distinct row of floats per key, so that a row
// read back from the wrong key shows.
struct workload {
  std::vector<std::vector<uint64_t>> keys;
  std::vector<std::vector<float>> values;

  workload(size_t batches, size_t keys_per_batch, size_t dim, uint64_t seed) {
    rng r(seed);
    keys.resize(batches);
    values.resize(batches);
    for (size_t b = 0; b < batches; ++b) {
      keys[b].resize(keys_per_batch);
      values[b].resize(keys_per_batch * dim);
      for (auto& k : keys[b])
        k = r.next();
      for (auto& v : values[b])
        v = r.uniform() - 0.5f;
    }
  }
};

// Every 50th key of a batch and its last: a sample, so that checking costs
// nothing next to the transfer and yet a misrouted or misordered reply fails.
bool sampled(size_t i, size_t n) { return i % 50 == 0 || i + 1 == n; }

void check_row(const char* system, size_t batch, size_t i, const void* got, size_t got_bytes, const float* want,
               size_t dim) {
  if (got_bytes != dim * sizeof(float) || std::memcmp(got, want, got_bytes) != 0)
    fail(std::string(system) + ": batch " + std::to_string(batch) + ", key " + std::to_string(i) +
         ": the row read back differs from the row written (" + std::to_string(got_bytes) + " bytes)");
}

struct result {
  std::string system, operation;
  double seconds = 0;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// --- gridvec ----------------------------------------------------------------

// The batches grouped `depth` at a time, as put_batches / get_batches take
// them; built before the clock starts (Redis's argv arrays are too).
struct groups {
  std::vector<std::vector<std::vector<uint64_t>>> keys;
  std::vector<std::vector<std::vector<float>>> values;
  std::vector<size_t> first; // the first batch of each group

  groups(const workload& w, size_t depth) {
    for (size_t b = 0; b < w.keys.size(); b += depth) {
      const size_t end = std::min(w.keys.size(), b + depth);
      first.push_back(b);
      keys.emplace_back(w.keys.begin() + b, w.keys.begin() + end);
      values.emplace_back(w.values.begin() + b, w.values.begin() + end);
    }
  }
};

void gridvec_puts(table& t, const groups& g) {
  for (size_t i = 0; i < g.keys.size(); ++i)
    if (auto ok = t.put_batches(g.keys[i], g.values[i]); !ok)
      fail("gridvec put_batches: " + ok.error());
}

void gridvec_gets(table& t, const groups& g, const workload& w, size_t dim) {
  for (size_t i = 0; i < g.keys.size(); ++i) {
    auto got = t.get_batches(g.keys[i]);
    if (!got)
      fail("gridvec get_batches: " + got.error());
    if (got->size() != g.keys[i].size())
      fail("gridvec get_batches: " + std::to_string(got->size()) + " batches back for " +
           std::to_string(g.keys[i].size()));
    for (size_t j = 0; j < got->size(); ++j) {
      const size_t b = g.first[i] + j, n = w.keys[b].size();
      if ((*got)[j].size() != n * dim)
        fail("gridvec get_batches: batch " + std::to_string(b) + " has " + std::to_string((*got)[j].size()) +
             " floats, expected " + std::to_string(n * dim));
      for (size_t k = 0; k < n; ++k)
        if (sampled(k, n))
          check_row("gridvec", b, k, (*got)[j].data() + k * dim, dim * sizeof(float), w.values[b].data() + k * dim,
                    dim);
    }
  }
}

// --- Redis ------------------------------------------------------------------

// One MSET and one MGET command per batch, as hiredis argv arrays pointing
// into the workload (binary-safe: keys and values carry their lengths).
struct redis_commands {
  struct command {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
  };
  std::vector<command> mset, mget;

  redis_commands(const workload& w, size_t dim) {
    for (size_t b = 0; b < w.keys.size(); ++b) {
      command set, get;
      set.argv.push_back("MSET");
      set.lengths.push_back(4);
      get.argv.push_back("MGET");
      get.lengths.push_back(4);
      for (size_t i = 0; i < w.keys[b].size(); ++i) {
        const char* key = reinterpret_cast<const char*>(&w.keys[b][i]);
        set.argv.push_back(key);
        set.lengths.push_back(sizeof(uint64_t));
        set.argv.push_back(reinterpret_cast<const char*>(w.values[b].data() + i * dim));
        set.lengths.push_back(dim * sizeof(float));
        get.argv.push_back(key);
        get.lengths.push_back(sizeof(uint64_t));
      }
      mset.push_back(std::move(set));
      mget.push_back(std::move(get));
    }
  }
};

struct reply_deleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using reply_ptr = std::unique_ptr<redisReply, reply_deleter>;

reply_ptr next_reply(redisContext* c) {
  void* raw = nullptr;
  if (redisGetReply(c, &raw) != REDIS_OK || raw == nullptr)
    fail(std::string("redis: ") + (c->err ? c->errstr : "no reply"));
  reply_ptr r{static_cast<redisReply*>(raw)};
  if (r->type == REDIS_REPLY_ERROR)
    fail("redis: " + std::string(r->str, r->len));
  return r;
}

// Sends the commands of batches [b, b + depth) and then reads their replies;
// `on_reply(batch, reply)` checks each.
template <class OnReply>
void redis_pipeline(redisContext* c, const std::vector<redis_commands::command>& commands, size_t depth,
                    OnReply on_reply) {
  for (size_t b = 0; b < commands.size(); b += depth) {
    const size_t end = std::min(commands.size(), b + depth);
    for (size_t i = b; i < end; ++i)
      // hiredis 0.14 declares argv non-const but only reads it.
      if (redisAppendCommandArgv(c, static_cast<int>(commands[i].argv.size()),
                                 const_cast<const char**>(commands[i].argv.data()),
                                 commands[i].lengths.data()) != REDIS_OK)
        fail(std::string("redis: ") + c->errstr);
    for (size_t i = b; i < end; ++i)
      on_reply(i, next_reply(c));
  }
}

void redis_puts(redisContext* c, const redis_commands& cmds, size_t depth) {
  redis_pipeline(c, cmds.mset, depth, [](size_t b, reply_ptr r) {
    if (r->type != REDIS_REPLY_STATUS)
      fail("redis MSET of batch " + std::to_string(b) + ": reply of type " + std::to_string(r->type));
  });
}

void redis_gets(redisContext* c, const redis_commands& cmds, size_t depth, const workload& w, size_t dim) {
  redis_pipeline(c, cmds.mget, depth, [&](size_t b, reply_ptr r) {
    const size_t n = w.keys[b].size();
    if (r->type != REDIS_REPLY_ARRAY || r->elements != n)
      fail("redis MGET of batch " + std::to_string(b) + ": not an array of " + std::to_string(n) + " values");
    for (size_t k = 0; k < n; ++k)
      if (sampled(k, n)) {
        const redisReply* v = r->element[k];
        if (v->type != REDIS_REPLY_STRING)
          fail("redis MGET of batch " + std::to_string(b) + ": key " + std::to_string(k) + " is missing");
        check_row("redis", b, k, v->str, v->len, w.values[b].data() + k * dim, dim);
      }
  });
}

// --- report -----------------------------------------------------------------

void print(const options& o, const std::vector<result>& results) {
  const double keys = double(o.batches) * double(o.keys);
  const double megabytes = keys * double(o.dim) * sizeof(float) / 1e6; // the values; keys and framing not counted
  auto find = [&](const std::string& system, const std::string& op) -> const result& {
    for (auto& r : results)
      if (r.system == system && r.operation == op)
        return r;
    fail("no result for " + system + " " + op);
  };
  auto ratio = [&](const std::string& op) { return find("redis", op).seconds / find("gridvec", op).seconds; };
  if (o.json) {
    std::printf("{\"batches\": %zu, \"keys\": %zu, \"dim\": %zu, \"depth\": %zu, \"results\": [", o.batches, o.keys,
                o.dim, o.depth);
    for (size_t i = 0; i < results.size(); ++i)
      std::printf("%s\n  {\"system\": \"%s\", \"operation\": \"%s\", \"seconds\": %.6f, \"keys_per_s\": %.0f, "
                  "\"mb_per_s\": %.1f}",
                  i ? "," : "", results[i].system.c_str(), results[i].operation.c_str(), results[i].seconds,
                  keys / results[i].seconds, megabytes / results[i].seconds);
    std::printf("],\n \"ratio_gridvec_to_redis\": {\"put\": %.3f, \"get\": %.3f}}\n", ratio("put"), ratio("get"));
    return;
  }
  std::printf("%zu batches x %zu keys x %zu floats, %zu batches in flight (MB/s: values only)\n\n", o.batches, o.keys,
              o.dim, o.depth);
  std::printf("| system  | operation |       keys/s |    MB/s | gridvec/redis |\n");
  std::printf("|---------|-----------|-------------:|--------:|--------------:|\n");
  for (const char* op : {"put", "get"})
    for (const char* system : {"gridvec", "redis"}) {
      const result& r = find(system, op);
      char x[32] = "";
      if (std::string(system) == "gridvec")
        std::snprintf(x, sizeof x, "%.2fx", ratio(op));
      std::printf("| %-7s | %-9s | %12.0f | %7.1f | %13s |\n", system, op, keys / r.seconds, megabytes / r.seconds, x);
    }
}

size_t positive(const char* flag, const char* text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (*end != 0 || v == 0)
    fail(std::string(flag) + " must be a positive integer, got '" + text + "'");
  return v;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc)
        fail(a + " needs a value");
      return argv[++i];
    };
    if (a == "--config")
      o.config = value();
    else if (a == "--redis-port")
      o.redis_port = static_cast<int>(positive("--redis-port", value()));
    else if (a == "--batches")
      o.batches = positive("--batches", value());
    else if (a == "--keys")
      o.keys = positive("--keys", value());
    else if (a == "--dim")
      o.dim = positive("--dim", value());
    else if (a == "--depth")
      o.depth = positive("--depth", value());
    else if (a == "--json")
      o.json = true;
    else
      fail("unknown argument " + a +
           " (usage: --config CLUSTER.conf --redis-port P [--batches N] [--keys K] [--dim D] [--depth D] [--json])");
  }
  if (o.config.empty() || o.redis_port == 0)
    fail("--config and --redis-port are required");
  return o;
}

} // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  // Warm-up keys are others than the timed ones, so that every timed put
  // inserts new keys in both systems alike.
  const workload timed(o.batches, o.keys, o.dim, 42), warm(o.depth, o.keys, o.dim, 7);
  const groups timed_groups(timed, o.depth), warm_groups(warm, o.depth);
  const redis_commands timed_cmds(timed, o.dim), warm_cmds(warm, o.dim);
  std::vector<result> results;

  {
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
    table_client client{sys, *shards};
    table_spec spec;
    spec.name = "bench-" + std::to_string(::getpid()); // a fresh table, dropped below
    spec.dim = static_cast<uint32_t>(o.dim);
    auto t = client.open(spec);
    if (!t)
      fail(t.error());
    gridvec_puts(*t, warm_groups);
    gridvec_gets(*t, warm_groups, warm, o.dim);
    auto start = std::chrono::steady_clock::now();
    gridvec_puts(*t, timed_groups);
    results.push_back({"gridvec", "put", seconds_since(start)});
    start = std::chrono::steady_clock::now();
    gridvec_gets(*t, timed_groups, timed, o.dim);
    results.push_back({"gridvec", "get", seconds_since(start)});
    if (auto ok = t->drop(); !ok)
      fail("dropping the table: " + ok.error());
  }

  {
    std::unique_ptr<redisContext, void (*)(redisContext*)> c{redisConnect("127.0.0.1", o.redis_port), redisFree};
    if (!c || c->err)
      fail("redis at 127.0.0.1:" + std::to_string(o.redis_port) + ": " + (c ? c->errstr : "out of memory"));
    const char* flush[] = {"FLUSHALL"};
    const size_t flush_len[] = {8};
    reply_ptr{static_cast<redisReply*>(redisCommandArgv(c.get(), 1, flush, flush_len))};
    redis_puts(c.get(), warm_cmds, o.depth);
    redis_gets(c.get(), warm_cmds, o.depth, warm, o.dim);
    auto start = std::chrono::steady_clock::now();
    redis_puts(c.get(), timed_cmds, o.depth);
    results.push_back({"redis", "put", seconds_since(start)});
    start = std::chrono::steady_clock::now();
    redis_gets(c.get(), timed_cmds, o.depth, timed, o.dim);
    results.push_back({"redis", "get", seconds_since(start)});
  }

  print(o, results);
  return 0;
}
