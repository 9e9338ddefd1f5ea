// Table shards serving on several lanes at once: client threads hammering
// the same and different rows with every per-key request while whole-table
// requests run beside them; the rows end as the serial sum, no read sees a
// row half written, and no whole-table request sees a request half done.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include <gridvec/tables.hpp>

#include "src/table/table_service.hpp"
#include "tests/table_test_util.hpp"

using namespace gridvec;

namespace {

constexpr uint32_t row_dim = 16;

std::vector<uint64_t> key_range(uint64_t first, uint64_t count) {
  std::vector<uint64_t> keys(count);
  for (uint64_t i = 0; i < count; ++i)
    keys[i] = first + i;
  return keys;
}

// Whether every row (row_dim floats each) has all its columns equal: every
// update below adds the same to each column of a row, so a row read half
// written would not.
bool rows_whole(const std::vector<float>& values) {
  for (size_t r = 0; r + row_dim <= values.size(); r += row_dim)
    for (uint32_t c = 1; c < row_dim; ++c)
      if (values[r + c] != values[r])
        return false;
  return true;
}

} // namespace

TEST_CASE("table shards on several lanes: racing per-key requests add up as if in turn", "[tables][lanes]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  // More lanes than this machine's cores, so that they interleave.
  auto shards = spawn_table_shards(sys, 2, "", 4);
  constexpr uint32_t threads = 4, rounds = 160;
  {
    table_client setup{sys, shards};
    table_spec spec;
    spec.name = "race";
    spec.dim = row_dim;
    spec.optimizer = table_optimizer::sgd;
    spec.learning_rate = 1.0f; // a push of -1 adds 1
    REQUIRE(setup.open(spec));
    REQUIRE(setup.open(test::dense_columns_spec("vec", 4, 64)));
  }
  const auto shared = key_range(1, 24); // every thread adds and pushes these
  const auto shared_put = key_range(9000, 8);
  std::vector<uint32_t> all_columns(64);
  for (uint32_t c = 0; c < 64; ++c)
    all_columns[c] = c;
  std::atomic<uint32_t> failures{0}, torn{0}, unequal_sums{0}, went_back{0};
  std::vector<std::vector<uint8_t>> won(threads, std::vector<uint8_t>(rounds));
  std::vector<std::thread> clients;
  for (uint32_t t = 0; t < threads; ++t)
    clients.emplace_back([&, t] {
      table_client client{sys, shards};
      auto race = client.find("race");
      auto vec_table = client.find("vec");
      if (!race || !vec_table) {
        ++failures;
        return;
      }
      const auto own = key_range(1000 + t * 100, 24), own_put = key_range(5000 + t * 100, 8);
      const std::vector<float> ones(24 * row_dim, 1.0f), minus_ones(24 * row_dim, -1.0f), increments(64, 1.0f);
      std::vector<float> last_seen(shared.size(), 0.0f);
      for (uint32_t i = 0; i < rounds; ++i) {
        const std::vector<float> mine(8 * row_dim, float(i)), claim(row_dim, float(t + 1));
        const uint64_t fresh = 20000 + i;
        bool ok = race->add(shared, ones) && race->push(shared, minus_ones) && race->add(own, ones) &&
                  race->put(own_put, mine) && race->put(shared_put, mine) &&
                  vec_table->increment(i % 4, all_columns, increments);
        auto set = race->set_if_absent(std::span<const uint64_t>(&fresh, 1), claim);
        auto seen = race->get(shared);
        auto seen_put = race->get(shared_put);
        if (!ok || !set || !seen || !seen_put) {
          ++failures;
          return;
        }
        won[t][i] = (*set)[0];
        if (!rows_whole(*seen) || !rows_whole(*seen_put))
          ++torn;
        // What this thread added is in every later read.
        for (size_t k = 0; k < shared.size(); ++k) {
          if ((*seen)[k * row_dim] < last_seen[k])
            ++went_back;
          last_seen[k] = (*seen)[k * row_dim];
        }
        if (i % 16 == t) {
          // A whole-table request runs alone: its column sums are equal.
          auto sums = race->reduce("sum");
          if (!sums) {
            ++failures;
            return;
          }
          if (std::adjacent_find(sums->begin(), sums->end(), std::not_equal_to<>()) != sums->end())
            ++unequal_sums;
        }
      }
    });
  for (auto& c : clients)
    c.join();
  CHECK(failures == 0);
  CHECK(torn == 0);
  CHECK(went_back == 0);
  CHECK(unequal_sums == 0);

  table_client client{sys, shards};
  auto race = client.find("race");
  REQUIRE(race);
  auto shared_rows = race->get(shared);
  REQUIRE(shared_rows);
  CHECK(std::all_of(shared_rows->begin(), shared_rows->end(), [](float v) { return v == 2.0f * threads * rounds; }));
  for (uint32_t t = 0; t < threads; ++t) {
    auto own = race->get(key_range(1000 + t * 100, 24));
    REQUIRE(own);
    CHECK(std::all_of(own->begin(), own->end(), [](float v) { return v == float(rounds); }));
    auto own_put = race->get(key_range(5000 + t * 100, 8));
    REQUIRE(own_put);
    CHECK(std::all_of(own_put->begin(), own_put->end(), [](float v) { return v == float(rounds - 1); }));
  }
  auto last_put = race->get(shared_put);
  REQUIRE(last_put);
  CHECK(rows_whole(*last_put));
  // Of the threads racing to set a fresh key, exactly one won, and the row
  // holds its value.
  for (uint32_t i = 0; i < rounds; ++i) {
    uint32_t winners = 0, winner = 0;
    for (uint32_t t = 0; t < threads; ++t)
      if (won[t][i]) {
        ++winners;
        winner = t;
      }
    CHECK(winners == 1);
    const uint64_t fresh = 20000 + i;
    auto row = race->get(std::span<const uint64_t>(&fresh, 1));
    REQUIRE(row);
    CHECK((*row)[0] == float(winner + 1));
  }
  auto vec_table = client.find("vec");
  REQUIRE(vec_table);
  for (uint64_t r = 0; r < 4; ++r) {
    auto row = vec_table->fetch(r, all_columns);
    REQUIRE(row);
    CHECK(std::all_of(row->begin(), row->end(), [](float v) { return v == float(threads * rounds / 4); }));
  }
  // Every row made once, in the index of its shard.
  auto count = race->reduce("count");
  REQUIRE(count);
  CHECK((*count)[0] == double(24 + 8 + threads * (24 + 8) + rounds));
  for (auto& s : shards)
    caf::anon_send_exit(s, caf::exit_reason::user_shutdown);
}

TEST_CASE("a table shard on one lane and on several gives the same rows", "[tables][lanes]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto one = spawn_table_shards(sys, 1, "", 1);
  auto many = spawn_table_shards(sys, 1, "", 3);
  std::vector<std::vector<float>> got;
  for (auto* shards : {&one, &many}) {
    table_client client{sys, *shards};
    table_spec spec;
    spec.name = "adam";
    spec.dim = 8;
    spec.init = table_init::normal;
    spec.init_scale = 0.1f;
    spec.optimizer = table_optimizer::adam;
    spec.learning_rate = 0.01f;
    auto t = client.open(spec);
    REQUIRE(t);
    const auto keys = key_range(7, 50);
    std::vector<float> gradients(keys.size() * 8);
    for (size_t i = 0; i < gradients.size(); ++i)
      gradients[i] = float(i % 13) * 0.1f - 0.6f;
    for (int step = 0; step < 5; ++step)
      REQUIRE(t->push(keys, gradients));
    auto rows = t->fetch(keys);
    REQUIRE(rows);
    std::vector<float> flat;
    for (auto& r : *rows) {
      flat.insert(flat.end(), r.value.begin(), r.value.end());
      flat.insert(flat.end(), r.slots.begin(), r.slots.end());
      flat.push_back(float(r.step));
    }
    got.push_back(std::move(flat));
    for (auto& s : *shards)
      caf::anon_send_exit(s, caf::exit_reason::user_shutdown);
  }
  CHECK(got[0] == got[1]);
}

// By hand only (a hidden tag): how the service itself scales with threads,
// without the network or a client: threads answering pre-encoded multi-gets
// and pushes of 1,000 existing keys x 64 floats on one shard, keys/s at 1
// and 2 threads. `build/tests/gridvec_tests "[.lanes-bench]"`.
TEST_CASE("table service keys/s at 1 and 2 threads", "[.lanes-bench]") {
  table_service service{0, 1, ""};
  table_spec spec;
  spec.name = "bench";
  spec.dim = 64;
  spec.optimizer = table_optimizer::adagrad;
  REQUIRE(decode_table_reply(service.handle(encode_table_create(spec)))->what == table_reply::kind::done);
  constexpr size_t rows = 200000, per_request = 1000, requests = 64;
  std::vector<wire_bytes> gets, pushes;
  uint64_t state = 88172645463325252ull;
  for (size_t r = 0; r < requests; ++r) {
    std::vector<uint64_t> keys(per_request);
    for (auto& k : keys) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      k = state % rows;
    }
    gets.push_back(encode_table_keys(table_op::get, "bench", keys));
    pushes.push_back(encode_table_values(table_op::push, "bench", keys, std::vector<float>(per_request * 64, 0.01f)));
  }
  // Every row made first, so that the timed requests run shared.
  for (size_t first = 0; first < rows; first += per_request) {
    auto keys = key_range(first, per_request);
    REQUIRE(decode_table_reply(service.handle(encode_table_keys(table_op::get, "bench", keys)))->what ==
            table_reply::kind::floats);
  }
  for (const auto* kind : {&gets, &pushes}) {
    double rate[3] = {0, 0, 0};
    for (unsigned threads : {1u, 2u}) {
      constexpr size_t rounds = 20;
      const auto start = std::chrono::steady_clock::now();
      std::vector<std::thread> workers;
      for (unsigned t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
          for (size_t i = 0; i < rounds * requests / threads; ++i)
            service.handle((*kind)[(i + t) % requests]);
        });
      for (auto& w : workers)
        w.join();
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rate[threads] = double(rounds * requests * per_request) / seconds;
    }
    std::printf("table service %s: %.0f keys/s on 1 thread, %.0f on 2 (%.2fx)\n", kind == &gets ? "get" : "push",
                rate[1], rate[2], rate[2] / rate[1]);
  }
}
