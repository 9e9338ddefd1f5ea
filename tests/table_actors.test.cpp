// The parameter server through its actors and client, in one process:
// every call of the API on two shards in both layouts, against the same
// calls on one shard, and first reads that race.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <atomic>
#include <map>
#include <thread>

#include <gridvec/tables.hpp>

#include "tests/test_util.hpp"

using namespace gridvec;

namespace {

table_spec spec_of(const std::string& name, table_layout layout, table_optimizer opt = table_optimizer::adagrad) {
  table_spec s;
  s.name = name;
  s.dim = 6;
  s.layout = layout;
  s.init = table_init::uniform;
  s.init_scale = 0.1f;
  s.seed = 3;
  s.optimizer = opt;
  s.learning_rate = 0.2f;
  return s;
}

std::vector<float> ramp(size_t n, float start) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + 0.01f * static_cast<float>(i);
  return v;
}

void stop(std::vector<table_shard_actor>& shards) {
  for (auto& s : shards)
    caf::anon_send_exit(s, caf::exit_reason::user_shutdown);
}

} // namespace

TEST_CASE("two table shards answer every API call as one does, in both layouts", "[tables][actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto one = spawn_table_shards(sys, 1);
  auto two = spawn_table_shards(sys, 2);
  const auto layout = GENERATE(table_layout::rows, table_layout::columns);
  CAPTURE(to_string(layout));
  {
    table_client reference_client{sys, one}, client{sys, two};
    auto spec = spec_of("t", layout);
    auto ref = reference_client.open(spec);
    auto t = client.open(spec);
    REQUIRE(ref);
    REQUIRE(t);
    std::vector<uint64_t> keys;
    for (uint64_t i = 0; i < 40; ++i)
      keys.push_back(i * 7919 + 1);
    // Lazily created rows agree.
    auto a = t->get(keys), b = ref->get(keys);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(*a == *b);
    // put, push, add, scal give the same rows.
    std::vector<uint64_t> half(keys.begin(), keys.begin() + 20);
    for (auto* tab : {&*t, &*ref}) {
      REQUIRE(tab->put(half, ramp(20 * 6, 0.5f)));
      REQUIRE(tab->push(keys, ramp(40 * 6, -0.2f)));
      REQUIRE(tab->push(half, ramp(20 * 6, 0.3f)));
      REQUIRE(tab->add(half, ramp(20 * 6, 0.1f)));
      REQUIRE(tab->scal(0.5f, std::vector<uint64_t>(keys.begin() + 10, keys.begin() + 30)));
    }
    auto fa = t->fetch(keys), fb = ref->fetch(keys);
    REQUIRE(fa);
    REQUIRE(fb);
    for (size_t i = 0; i < keys.size(); ++i) {
      CHECK((*fa)[i].value == (*fb)[i].value);
      CHECK((*fa)[i].slots == (*fb)[i].slots); // Adagrad's G, column by column
      CHECK((*fa)[i].slots.size() == 6);
    }
    // set_if_absent and remove report per key.
    std::vector<uint64_t> mixed{keys[0], 999999, keys[1], 999999};
    auto set = t->set_if_absent(mixed, std::vector<float>(4 * 6, 9.0f));
    REQUIRE(set);
    CHECK(*set == std::vector<bool>{false, true, false, false});
    auto removed = t->remove(std::vector<uint64_t>{999999, 424242});
    REQUIRE(removed);
    CHECK(*removed == std::vector<bool>{true, false});
    // Reductions over the whole table.
    auto ca = t->reduce("count"), cb = ref->reduce("count");
    REQUIRE(ca);
    REQUIRE(cb);
    CHECK(*ca == *cb);
    CHECK((*ca)[0] == 40);
    auto sa = t->reduce("sum"), sb = ref->reduce("sum");
    REQUIRE(sa);
    REQUIRE(sb);
    REQUIRE(sa->size() == 6);
    for (size_t c = 0; c < 6; ++c)
      CHECK((*sa)[c] == Approx((*sb)[c]));
    // The matrix API needs every shard to hold a slice of every row.
    std::vector<uint64_t> x{keys[0], keys[1]}, y{keys[2], keys[3]};
    if (layout == table_layout::columns) {
      auto da = t->dot(x, y), db = ref->dot(x, y);
      REQUIRE(da);
      REQUIRE(db);
      CHECK((*da)[0] == Approx((*db)[0]));
      REQUIRE(t->axpy(2.0f, x, y));
      REQUIRE(ref->axpy(2.0f, x, y));
      REQUIRE(t->copy(y, x));
      REQUIRE(ref->copy(y, x));
      CHECK(*t->get(x) == *ref->get(x));
    } else {
      CHECK(test::contains(t->dot(x, y).error(), "needs the columns layout"));
    }
    // Errors come back as one line.
    CHECK(test::contains(t->put(x, std::vector<float>(5)).error(), "5 floats for 2 keys of 6"));
    CHECK(test::contains(client.find("absent").error(), "no table 'absent'"));
    auto other = spec;
    other.dim = 7;
    CHECK(test::contains(client.open(other).error(), "exists as"));
    // Every row once, whole, in both layouts.
    std::map<uint64_t, std::vector<float>> rows;
    REQUIRE(t->for_each_row(
      [&](uint64_t key, const float* row) { CHECK(rows.emplace(key, std::vector<float>(row, row + 6)).second); }, 7));
    CHECK(rows.size() == 40);
    for (auto& [key, row] : rows)
      CHECK(row == *t->get(std::vector<uint64_t>{key}));
    auto infos = t->info();
    REQUIRE(infos);
    CHECK(infos->size() == 2);
    auto listed = client.list();
    REQUIRE(listed);
    CHECK(listed->size() == 2);
    auto found = client.find("t");
    REQUIRE(found);
    CHECK(found->spec() == spec);
    REQUIRE(t->drop());
    CHECK(!client.find("t"));
    REQUIRE(ref->drop());
  }
  stop(one);
  stop(two);
}

TEST_CASE("pipelined batches come back in order", "[tables][actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto shards = spawn_table_shards(sys, 2);
  {
    table_client client{sys, shards};
    auto t = client.open(spec_of("b", table_layout::rows, table_optimizer::sgd));
    REQUIRE(t);
    std::vector<std::vector<uint64_t>> batches;
    std::vector<std::vector<float>> values;
    for (uint64_t b = 0; b < 8; ++b) {
      batches.emplace_back();
      for (uint64_t k = 0; k < 100; ++k)
        batches.back().push_back(b * 1000 + k);
      values.push_back(ramp(100 * 6, static_cast<float>(b)));
    }
    REQUIRE(t->put_batches(batches, values));
    auto got = t->get_batches(batches);
    REQUIRE(got);
    CHECK(*got == values);
  }
  stop(shards);
}

TEST_CASE("first reads that race see one initial value, and one set-if-absent wins", "[tables][actors]") {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 4);
  caf::actor_system sys{cfg};
  auto shards = spawn_table_shards(sys, 2);
  {
    table_client creator{sys, shards};
    REQUIRE(creator.open(spec_of("race", table_layout::columns)));
  }
  constexpr int clients = 8;
  std::vector<uint64_t> keys;
  for (uint64_t k = 0; k < 200; ++k)
    keys.push_back(k * 31 + 5);
  std::vector<std::vector<float>> seen(clients);
  std::vector<std::vector<bool>> won(clients);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      table_client client{sys, shards};
      auto t = client.find("race");
      REQUIRE(t);
      ++ready;
      while (ready < clients)
        std::this_thread::yield();
      // Half the clients try to set the contested key, all read it.
      if (c % 2 == 0) {
        auto w = t->set_if_absent(std::vector<uint64_t>{1}, std::vector<float>(6, static_cast<float>(c + 1)));
        REQUIRE(w);
        won[c] = *w;
      }
      auto v = t->get(keys);
      REQUIRE(v);
      seen[c] = *v;
    });
  for (auto& t : threads)
    t.join();
  for (int c = 1; c < clients; ++c)
    CHECK(seen[c] == seen[0]);
  int winners = 0;
  for (int c = 0; c < clients; c += 2)
    winners += won[c][0] ? 1 : 0;
  CHECK(winners == 1);
  table_client reader{sys, shards};
  auto contested = reader.find("race")->get(std::vector<uint64_t>{1});
  REQUIRE(contested);
  for (int c = 0; c < clients; c += 2)
    if (won[c][0])
      CHECK(*contested == std::vector<float>(6, static_cast<float>(c + 1)));
  stop(shards);
}

TEST_CASE("a user operation registered in the shards' process runs on each shard", "[tables][actors]") {
  register_table_operation("test-rows-held", [](table_slice& slice, const wire_bytes&) -> expected<wire_bytes> {
    const uint64_t rows = slice.rows();
    return wire_bytes(reinterpret_cast<const char*>(&rows), reinterpret_cast<const char*>(&rows) + 8);
  });
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto shards = spawn_table_shards(sys, 2);
  {
    table_client client{sys, shards};
    auto t = client.open(spec_of("u", table_layout::rows));
    REQUIRE(t);
    std::vector<uint64_t> keys(100);
    for (uint64_t i = 0; i < 100; ++i)
      keys[i] = i;
    REQUIRE(t->get(keys));
    auto parts = t->call("test-rows-held");
    REQUIRE(parts);
    REQUIRE(parts->size() == 2);
    uint64_t total = 0;
    for (auto& p : *parts) {
      uint64_t n = 0;
      std::memcpy(&n, p.data(), 8);
      CHECK(n > 20); // both shards hold some of the 100 keys
      total += n;
    }
    CHECK(total == 100);
  }
  stop(shards);
}
