// The parameter server through its actors and client, in one process:
// every call of the API on two shards in both layouts, against the same
// calls on one shard, and first reads that race.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <atomic>
#include <cmath>
#include <random>
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

TEST_CASE("a vector row longer than 65,536 floats, split over shards, read and written by column", "[tables][actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto shards = spawn_table_shards(sys, 3);
  {
    table_client client{sys, shards};
    table_spec spec;
    spec.name = "vectors";
    spec.kind = table_kind::matrix;
    spec.rows = 3;
    spec.dim = 200003; // not a multiple of the shards
    spec.layout = table_layout::columns;
    spec.dense = true;
    auto t = client.open(spec);
    REQUIRE(t);
    // A dense reference of the same three rows.
    std::vector<std::vector<double>> ref(3, std::vector<double>(spec.dim, 0.0));
    std::mt19937 rng(5);
    std::uniform_int_distribution<uint32_t> column(0, spec.dim - 1);
    std::normal_distribution<float> value(0.0f, 1.0f);
    for (uint64_t row : {0, 1}) {
      std::vector<uint32_t> idx;
      std::vector<float> vals;
      for (int i = 0; i < 5000; ++i) {
        idx.push_back(column(rng));
        vals.push_back(value(rng));
        ref[row][idx.back()] += vals.back();
      }
      idx.push_back(0); // both ends of the row
      vals.push_back(1.0f);
      ref[row][0] += 1.0;
      idx.push_back(spec.dim - 1);
      vals.push_back(-1.0f);
      ref[row][spec.dim - 1] -= 1.0;
      REQUIRE(t->increment(row, idx, vals));
    }
    std::vector<uint32_t> all(spec.dim);
    for (uint32_t c = 0; c < spec.dim; ++c)
      all[c] = c;
    auto check_row = [&](uint64_t row) {
      auto got = t->fetch(row, all);
      REQUIRE(got);
      double worst = 0;
      for (uint32_t c = 0; c < spec.dim; ++c)
        worst = std::max(worst, std::abs((*got)[c] - ref[row][c]));
      CHECK(worst < 1e-5);
    };
    check_row(0);
    check_row(1);
    // The vector math runs on the shards: only scalars come back.
    const std::vector<uint64_t> r0{0}, r1{1}, r2{2};
    auto d = t->dot(r0, r1);
    REQUIRE(d);
    double expect = 0;
    for (uint32_t c = 0; c < spec.dim; ++c)
      expect += ref[0][c] * ref[1][c];
    CHECK((*d)[0] == Approx(expect).epsilon(1e-5));
    REQUIRE(t->copy(r1, r2));
    REQUIRE(t->axpy(-0.5f, r0, r2)); // r2 = r1 - 0.5 r0
    REQUIRE(t->scal(2.0f, r2));      // r2 = 2 r1 - r0
    for (uint32_t c = 0; c < spec.dim; ++c)
      ref[2][c] = 2 * ref[1][c] - ref[0][c];
    check_row(2);
    // Several rows at a few columns at once, in the caller's order.
    std::vector<uint32_t> some{spec.dim - 1, 7, 133334, 7};
    const std::vector<uint64_t> rows{2, 0};
    auto both = t->fetch_rows(rows, some);
    REQUIRE(both);
    REQUIRE(both->size() == 8);
    for (size_t i = 0; i < 2; ++i)
      for (size_t j = 0; j < some.size(); ++j)
        CHECK((*both)[i * 4 + j] == Approx(ref[rows[i]][some[j]]).margin(1e-5));
    // Out of range columns are refused before anything is sent.
    CHECK(test::contains(t->fetch(0, std::vector<uint32_t>{spec.dim}).error(), "outside its 200003 columns"));
    CHECK(test::contains(t->increment(0, std::vector<uint32_t>{1, 2}, std::vector<float>{1}).error(),
                         "1 values for 2 columns"));
  }
  stop(shards);
}

TEST_CASE("sparse fetch and increment on a map in the rows layout", "[tables][actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto shards = spawn_table_shards(sys, 2);
  {
    table_client client{sys, shards};
    auto t = client.open(spec_of("m", table_layout::rows, table_optimizer::sgd));
    REQUIRE(t);
    std::vector<uint64_t> keys{11, 12, 13, 14};
    auto before = t->get(keys);
    REQUIRE(before);
    for (uint64_t k : keys)
      REQUIRE(t->increment(k, std::vector<uint32_t>{1, 5, 1}, std::vector<float>{1.0f, 2.0f, 3.0f}));
    auto after = t->fetch_rows(keys, std::vector<uint32_t>{5, 1, 0});
    REQUIRE(after);
    for (size_t i = 0; i < keys.size(); ++i) {
      CHECK((*after)[i * 3 + 0] == Approx((*before)[i * 6 + 5] + 2.0f));
      CHECK((*after)[i * 3 + 1] == Approx((*before)[i * 6 + 1] + 4.0f));
      CHECK((*after)[i * 3 + 2] == Approx((*before)[i * 6 + 0]));
    }
  }
  stop(shards);
}

TEST_CASE("asynchronous calls return futures and do what the blocking calls do", "[tables][actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto shards = spawn_table_shards(sys, 2);
  {
    auto spec = spec_of("a", table_layout::rows, table_optimizer::sgd);
    auto lanes = async_table::open(sys, shards, spec, 3);
    REQUIRE(lanes);
    CHECK((*lanes)->lanes() == 3);
    // Many calls in flight at once on three lanes; each key is written by one call.
    std::vector<std::future<status>> puts;
    for (uint64_t k = 0; k < 60; ++k)
      puts.push_back((*lanes)->put({k}, std::vector<float>(6, static_cast<float>(k))));
    for (auto& f : puts)
      CHECK(f.get());
    std::vector<uint64_t> keys(60);
    for (uint64_t k = 0; k < 60; ++k)
      keys[k] = k;
    auto got = (*lanes)->get(keys).get();
    REQUIRE(got);
    for (uint64_t k = 0; k < 60; ++k)
      CHECK((*got)[k * 6 + 5] == static_cast<float>(k));
    // The same through a blocking client.
    table_client client{sys, shards};
    auto t = client.open(spec);
    REQUIRE(t);
    CHECK(*t->get(keys) == *got);
    // Pushes from several lanes all land (SGD: w -= lr g, lr 0.2).
    std::vector<std::future<status>> pushes;
    for (int i = 0; i < 10; ++i)
      pushes.push_back((*lanes)->push({7}, std::vector<float>(6, 1.0f)));
    for (auto& f : pushes)
      CHECK(f.get());
    CHECK((*t->get(std::vector<uint64_t>{7}))[0] == Approx(7.0f - 10 * 0.2f));
    // Any call through submit; an error comes back through its future.
    auto info = (*lanes)->submit([](table& tbl) { return tbl.info(); }).get();
    REQUIRE(info);
    CHECK(info->size() == 2);
    auto bad = (*lanes)->put({1}, std::vector<float>(5)).get();
    CHECK(test::contains(bad.error(), "5 floats for 1 keys of 6"));
    // A spec the shards refuse: open says so.
    auto other = spec;
    other.dim = 7;
    auto refused = async_table::open(sys, shards, other, 2);
    REQUIRE_FALSE(refused);
    CHECK(test::contains(refused.error(), "exists as"));
  }
  stop(shards);
}

TEST_CASE("an embedding lookup combines each example's rows on the shards as a direct computation does",
          "[tables][actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto shards = spawn_table_shards(sys, 3);
  const auto layout = GENERATE(table_layout::rows, table_layout::columns);
  CAPTURE(to_string(layout));
  {
    table_client client{sys, shards};
    auto spec = spec_of("emb", layout);
    spec.init = table_init::normal;
    auto t = client.open(spec);
    REQUIRE(t);
    // Examples with repeated ids, ids shared between examples, and an empty one.
    const std::vector<std::vector<uint64_t>> examples{{1, 2, 3}, {2, 2, 9}, {}, {40}, {3, 1, 77, 78, 79, 80}};
    std::vector<uint64_t> all;
    for (auto& e : examples)
      all.insert(all.end(), e.begin(), e.end());
    auto rows = t->get(all);
    REQUIRE(rows);
    for (auto combiner : {table_combiner::sum, table_combiner::mean, table_combiner::sqrtn}) {
      auto got = t->lookup(examples, combiner);
      REQUIRE(got);
      REQUIRE(got->size() == examples.size() * 6);
      size_t next = 0;
      for (size_t e = 0; e < examples.size(); ++e) {
        const double n = static_cast<double>(examples[e].size());
        const double scale = n == 0                             ? 0
                             : combiner == table_combiner::sum  ? 1
                             : combiner == table_combiner::mean ? 1 / n
                                                                : 1 / std::sqrt(n);
        for (size_t c = 0; c < 6; ++c) {
          double sum = 0;
          for (size_t j = 0; j < examples[e].size(); ++j)
            sum += (*rows)[(next + j) * 6 + c];
          CHECK((*got)[e * 6 + c] == Approx(sum * scale).margin(1e-6));
        }
        next += examples[e].size();
      }
    }
  }
  stop(shards);
}

TEST_CASE("a standby's spare table shard takes over a lost one from its saved slices; load rolls back",
          "[tables][actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  test::temp_dir dir;
  auto shards = spawn_table_shards(sys, 2, dir.path());
  auto spare = spawn_table_shard(sys, 0, 0, dir.path());
  // A takeOver request's answer: "" for done, else the error line.
  auto take_over = [&](const table_shard_actor& who, uint32_t index, uint32_t count) {
    caf::scoped_actor self{sys};
    std::string out = "no answer";
    self->request(who, std::chrono::seconds(10), table_atom::value, encode_table_take_over(index, count))
      .receive(
        [&](wire_bytes& bytes) {
          auto reply = decode_table_reply(bytes);
          out = !reply ? "undecodable" : reply->what == table_reply::kind::done ? "" : reply->error;
        },
        [&](caf::error&) {});
    return out;
  };
  {
    table_client client{sys, shards};
    auto t = client.open(spec_of("v", table_layout::columns, table_optimizer::sgd));
    REQUIRE(t);
    const std::vector<uint64_t> keys{1, 2, 3};
    REQUIRE(t->put(keys, ramp(18, 1.0f)));
    REQUIRE(t->save()); // the checkpoint
    auto at_checkpoint = t->get(keys);
    REQUIRE(at_checkpoint);
    REQUIRE(t->put(keys, ramp(18, 5.0f))); // after it

    // Before it takes over, the spare serves nothing; a regular shard takes over nothing.
    table_client spare_only{sys, {spare}};
    auto listed = spare_only.list();
    REQUIRE_FALSE(listed);
    CHECK(test::contains(listed.error(), "spare table shard"));
    CHECK(test::contains(take_over(shards[0], 1, 2), "not a standby's spare"));
    CHECK(test::contains(take_over(spare, 2, 2), "no table shard 2 of 2"));

    // Shard 1 is lost; the spare becomes it, from the saved slice.
    caf::anon_send_exit(shards[1], caf::exit_reason::kill);
    CHECK(take_over(spare, 1, 2).empty());
    CHECK(take_over(spare, 1, 2).empty()); // asked again: the same answer
    CHECK(test::contains(take_over(spare, 0, 2), "took over table shard 1 of 2 already"));

    table_client again{sys, {shards[0], spare}};
    auto v = again.find("v");
    REQUIRE(v);
    // Shard 0 still holds the rows written after the checkpoint, shard 1
    // those of the checkpoint; load puts every shard back to it.
    auto mixed = v->get(keys);
    REQUIRE(mixed);
    CHECK(*mixed != *at_checkpoint);
    REQUIRE(v->load());
    auto rolled_back = v->get(keys);
    REQUIRE(rolled_back);
    CHECK(*rolled_back == *at_checkpoint);
  }
  shards[1] = spare;
  stop(shards);
}
