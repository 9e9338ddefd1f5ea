// The parameter server's core (src/table/): specs, slices, the optimizers,
// slice files and the shard-side service, without actors.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>
#include <atomic>
#include <chrono>
#include <thread>

#include "src/formats/checkpoint.hpp" // crc32
#include "src/table/key_index.hpp"
#include "src/table/slice_file.hpp"
#include <gridvec/core/table_operations.hpp>
#include "src/table/table_service.hpp"
#include <gridvec/core/table_slice.hpp>
#include "tests/table_test_util.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::ask;
using gridvec::test::error_of;

namespace {

table_spec map_spec(const std::string& name, uint32_t dim, table_optimizer opt = table_optimizer::sgd) {
  table_spec s;
  s.name = name;
  s.dim = dim;
  s.init = table_init::normal;
  s.init_scale = 0.5f;
  s.seed = 7;
  s.optimizer = opt;
  s.learning_rate = 0.1f;
  return s;
}

} // namespace

TEST_CASE("table specs are checked, with one line naming what is wrong", "[tables]") {
  auto ok = map_spec("weights", 8);
  CHECK(validate_table_spec(ok));
  auto bad = ok;
  bad.name = "../etc";
  CHECK(test::contains(validate_table_spec(bad).error(), "may contain only"));
  bad = ok;
  bad.name = ".hidden";
  CHECK(!validate_table_spec(bad));
  bad = ok;
  bad.dim = 0;
  CHECK(test::contains(validate_table_spec(bad).error(), "dim must be between 1 and 65536"));
  bad = ok;
  bad.kind = table_kind::matrix;
  CHECK(test::contains(validate_table_spec(bad).error(), "needs rows"));
  bad = ok;
  bad.init_scale = 0;
  CHECK(test::contains(validate_table_spec(bad).error(), "needs a scale"));
  bad = ok;
  bad.optimizer = static_cast<table_optimizer>(9);
  CHECK(test::contains(validate_table_spec(bad).error(), "unknown optimizer"));
  bad = ok;
  bad.learning_rate = -1;
  CHECK(!validate_table_spec(bad));
  CHECK(describe(ok) == "map of 8 floats, rows, init normal 0.5 seed 7, sgd lr 0.1");
  CHECK(parse_table_optimizer("adagrad"));
  CHECK(test::contains(parse_table_init("gauss").error(), "zeros, uniform or normal"));
}

TEST_CASE("a row starts the same in every layout, on every shard and after a restart", "[tables]") {
  auto spec = map_spec("w", 10);
  table_slice whole{spec, 0, 1};
  std::vector<float> full(10);
  const uint64_t key = table_key("some query");
  whole.get(std::span<const uint64_t>{&key, 1}, full.data());
  double mean = 0;
  for (float x : full)
    mean += x;
  CHECK(std::abs(mean / 10) < 0.6);
  CHECK(full[0] != full[1]);
  spec.layout = table_layout::columns;
  std::vector<float> pieced(10);
  for (uint32_t s = 0; s < 3; ++s) {
    table_slice part{spec, s, 3};
    std::vector<float> mine(part.width());
    part.get(std::span<const uint64_t>{&key, 1}, mine.data());
    std::copy(mine.begin(), mine.end(), pieced.begin() + part.first_column());
  }
  CHECK(pieced == full);
  // Uniform values stay within the scale.
  auto uni = map_spec("u", 64);
  uni.init = table_init::uniform;
  table_slice u{uni, 0, 1};
  std::vector<float> row(64);
  u.get(std::span<const uint64_t>{&key, 1}, row.data());
  for (float x : row)
    CHECK(std::abs(x) <= 0.5f);
}

TEST_CASE("map operations: put, get, set-if-absent, remove", "[tables]") {
  table_slice t{map_spec("m", 2), 0, 1};
  std::vector<uint64_t> keys{1, 2};
  std::vector<float> values{1, 2, 3, 4};
  t.put(keys, values.data());
  std::vector<float> got(4);
  t.get(keys, got.data());
  CHECK(got == values);
  std::vector<uint64_t> more{2, 3, 3};
  std::vector<float> other{9, 9, 5, 6, 7, 8};
  std::vector<uint8_t> flags;
  t.set_if_absent(more, other.data(), flags);
  CHECK(flags == std::vector<uint8_t>{0, 1, 0}); // 2 existed; the first 3 wins
  std::vector<float> three(2);
  uint64_t k3 = 3;
  t.get(std::span<const uint64_t>{&k3, 1}, three.data());
  CHECK(three == std::vector<float>{5, 6});
  t.remove(std::vector<uint64_t>{3, 4}, flags);
  CHECK(flags == std::vector<uint8_t>{1, 0});
  CHECK(t.rows() == 2);
  CHECK(t.find(3) == nullptr);
  std::vector<double> sums;
  CHECK(t.reduce("sum", sums));
  CHECK(sums == std::vector<double>{4, 6});
  CHECK(t.reduce("count", sums));
  CHECK(sums[0] == 2);
  CHECK(!t.reduce("median", sums));
}

TEST_CASE("push applies SGD, Adagrad and Adam with their slots kept beside the row", "[tables]") {
  uint64_t key = 5;
  std::vector<float> zero{0.0f, 0.0f};
  std::vector<float> g{0.5f, -1.0f};
  SECTION("sgd") {
    table_slice t{map_spec("s", 2, table_optimizer::sgd), 0, 1};
    t.put(std::span<const uint64_t>{&key, 1}, zero.data());
    t.push(std::span<const uint64_t>{&key, 1}, g.data());
    CHECK(t.find(key)[0] == Approx(-0.05));
    CHECK(t.stride() == 2);
  }
  SECTION("adagrad: G accumulates, steps shrink") {
    table_slice t{map_spec("a", 2, table_optimizer::adagrad), 0, 1};
    t.put(std::span<const uint64_t>{&key, 1}, zero.data());
    t.push(std::span<const uint64_t>{&key, 1}, g.data());
    t.push(std::span<const uint64_t>{&key, 1}, g.data());
    const float* r = t.find(key);
    CHECK(r[2] == Approx(0.5)); // G = 0.25 + 0.25
    CHECK(r[3] == Approx(2.0));
    const double first = 0.1 * 0.5 / std::sqrt(0.25), second = 0.1 * 0.5 / std::sqrt(0.5);
    CHECK(r[0] == Approx(-(first + second)));
    CHECK(t.stride() == 4);
  }
  SECTION("adam: bias-corrected first step moves each weight by about lr") {
    table_slice t{map_spec("d", 2, table_optimizer::adam), 0, 1};
    t.put(std::span<const uint64_t>{&key, 1}, zero.data());
    t.push(std::span<const uint64_t>{&key, 1}, g.data());
    const float* r = t.find(key);
    CHECK(r[0] == Approx(-0.1).epsilon(1e-3));
    CHECK(r[1] == Approx(0.1).epsilon(1e-3));
    std::vector<float> out(t.stride());
    uint32_t step = 0;
    t.fetch(std::span<const uint64_t>{&key, 1}, out.data(), &step);
    CHECK(step == 1);
    CHECK(out[2] == Approx(0.05));                  // m = 0.1 g
    CHECK(out[4] == Approx(0.00025).epsilon(1e-3)); // s = 0.001 g^2
  }
}

TEST_CASE("matrix operations: dot, axpy, scal, copy, add", "[tables]") {
  auto spec = map_spec("x", 3);
  spec.kind = table_kind::matrix;
  spec.rows = 4;
  table_slice t{spec, 0, 1};
  std::vector<uint64_t> rows{0, 1};
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  t.put(rows, v.data());
  double d = 0;
  t.dot(std::vector<uint64_t>{0}, std::vector<uint64_t>{1}, &d);
  CHECK(d == Approx(32));
  t.axpy(2.0f, std::vector<uint64_t>{0}, std::vector<uint64_t>{1}); // row1 = (6, 9, 12)
  t.scal(0.5f, std::vector<uint64_t>{1});                           // (3, 4.5, 6)
  t.copy(std::vector<uint64_t>{1}, std::vector<uint64_t>{2});
  std::vector<float> delta{1, 1, 1};
  t.add(std::vector<uint64_t>{2}, delta.data());
  std::vector<float> got(3);
  uint64_t two = 2;
  t.get(std::span<const uint64_t>{&two, 1}, got.data());
  CHECK(got == std::vector<float>{4, 5.5f, 7});
  CHECK(test::contains(t.check_keys(std::vector<uint64_t>{4}).error(), "row 4 is outside its 4 rows"));
}

TEST_CASE("a table slice file keeps values, slots and steps, and refuses damage", "[tables]") {
  test::temp_dir dir;
  auto spec = map_spec("adam-table", 4, table_optimizer::adam);
  table_slice t{spec, 1, 2};
  std::vector<uint64_t> keys;
  for (uint64_t k = 0; keys.size() < 50; ++k)
    if (shard_of_key(k, 2) == 1)
      keys.push_back(k);
  std::vector<float> grads(keys.size() * 4, 0.25f);
  t.push(keys, grads.data());
  t.push(keys, grads.data());
  const std::string path = table_slice_path(dir.path(), spec.name, 1, 2);
  std::filesystem::create_directories(dir.path() + "/adam-table");
  auto written = write_table_slice(path, t);
  REQUIRE(written);
  auto back = read_table_slice(path);
  REQUIRE(back);
  CHECK((*back)->spec() == spec);
  CHECK((*back)->rows() == 50);
  for (uint64_t k : keys) {
    std::vector<float> a(t.stride()), b(t.stride());
    uint32_t sa = 0, sb = 0;
    t.fetch(std::span<const uint64_t>{&k, 1}, a.data(), &sa);
    (*back)->fetch(std::span<const uint64_t>{&k, 1}, b.data(), &sb);
    CHECK(a == b);
    CHECK(sb == 2);
  }
  std::string bytes = test::read_file(path);
  SECTION("a flipped byte fails the checksum") {
    bytes[bytes.size() / 2] ^= 1;
    dir.write("adam-table/shard-1-of-2.slice", bytes);
    CHECK(test::contains(read_table_slice(path).error(), "checksum"));
  }
  SECTION("a truncated file is refused before anything is allocated") {
    dir.write("adam-table/shard-1-of-2.slice", bytes.substr(0, bytes.size() - 9));
    CHECK(test::contains(read_table_slice(path).error(), "bytes where its header needs"));
  }
  SECTION("a header that claims billions of rows is refused") {
    const size_t rows_at = 8 + 4 + spec.name.size() + 4 + 1 + 8 + 4 + 4 + 8 + 16 + 20;
    uint64_t huge = uint64_t{1} << 39;
    std::memcpy(bytes.data() + rows_at, &huge, 8);
    dir.write("adam-table/shard-1-of-2.slice", bytes);
    CHECK(test::contains(read_table_slice(path).error(), "bytes where its header needs"));
  }
  SECTION("not a slice at all") {
    dir.write("adam-table/shard-1-of-2.slice", "hello");
    CHECK(test::contains(read_table_slice(path).error(), "not a gridvec table slice"));
  }
}

TEST_CASE("the table service answers every request, bad ones with one error line", "[tables]") {
  test::temp_dir dir;
  table_service service{0, 1, dir.path()};
  auto spec = map_spec("emb", 4, table_optimizer::adagrad);
  CHECK(ask(service, encode_table_create(spec)).what == table_reply::kind::done);
  CHECK(ask(service, encode_table_create(spec)).what == table_reply::kind::done); // the same spec: kept
  auto other = spec;
  other.dim = 5;
  CHECK(test::contains(error_of(service, encode_table_create(other)), "exists as map of 4 floats"));

  std::vector<uint64_t> keys{10, 20};
  std::vector<float> values(8, 1.0f);
  CHECK(ask(service, encode_table_values(table_op::put, "emb", keys, values)).what == table_reply::kind::done);
  auto got = ask(service, encode_table_keys(table_op::get, "emb", keys));
  CHECK(got.floats == values);

  auto none = ask(service, encode_table_keys(table_op::get, "emb", {})); // found by fuzzing: an empty reply
  CHECK(none.what == table_reply::kind::floats);
  CHECK(none.floats.empty());
  CHECK(test::contains(error_of(service, encode_table_keys(table_op::get, "nope", keys)), "no table 'nope'"));
  CHECK(test::contains(error_of(service, encode_table_values(table_op::put, "emb", keys, std::vector<float>(7))),
                       "28 bytes of values for 2 keys of 4 floats"));
  CHECK(test::contains(error_of(service, wire_bytes(16, 'x')), "malformed table request"));
  CHECK(test::contains(error_of(service, wire_bytes(5, 'x')), "not a whole number of words"));
  CHECK(test::contains(error_of(service, encode_table_reduce("emb", "median")), "unknown reduction"));
  CHECK(test::contains(error_of(service, encode_table_call("emb", "missing-op", {})), "no table operation"));
  std::vector<uint64_t> many(max_request_keys + 1, 3);
  CHECK(test::contains(error_of(service, encode_table_keys(table_op::get, "emb", many)), "more than"));
  auto wide = map_spec("wide", 65536);
  REQUIRE(ask(service, encode_table_create(wide)).what == table_reply::kind::done);
  std::vector<uint64_t> thousand(1000);
  for (uint64_t i = 0; i < 1000; ++i)
    thousand[i] = i;
  CHECK(test::contains(error_of(service, encode_table_keys(table_op::get, "wide", thousand)), "split it"));
  auto bad = spec;
  bad.name = "a/b";
  CHECK(test::contains(error_of(service, encode_table_create(bad)), "may contain only"));

  // Saved, then a new service over the same directory gets it back with its slots.
  CHECK(ask(service, encode_table_values(table_op::push, "emb", keys, values)).what == table_reply::kind::done);
  CHECK(ask(service, encode_table_simple(table_op::save, "emb")).what == table_reply::kind::done);
  table_service restarted{0, 1, dir.path()};
  auto lines = restarted.restore();
  REQUIRE(lines.size() == 1);
  CHECK(test::contains(lines[0], "table emb restored"));
  auto before = ask(service, encode_table_keys(table_op::fetch, "emb", keys));
  auto after = ask(restarted, encode_table_keys(table_op::fetch, "emb", keys));
  CHECK(before.floats == after.floats);
  CHECK(after.floats[4] == Approx(1.0)); // G of key 10, column 0: one push of 1.0

  // Load puts the slice back as the last save left it (a rollback).
  CHECK(ask(service, encode_table_values(table_op::push, "emb", keys, values)).what == table_reply::kind::done);
  CHECK(ask(service, encode_table_keys(table_op::fetch, "emb", keys)).floats != before.floats);
  CHECK(ask(service, encode_table_simple(table_op::load, "emb")).what == table_reply::kind::done);
  CHECK(ask(service, encode_table_keys(table_op::fetch, "emb", keys)).floats == before.floats);
  CHECK(test::contains(error_of(service, encode_table_simple(table_op::load, "wide")), "table wide not loaded"));

  // A standby's spare refuses everything but a takeOver, which makes it a
  // shard and restores that shard's slices; it takes over one shard only.
  table_service spare{0, 0, dir.path()};
  CHECK(spare.restore().empty());
  CHECK(test::contains(error_of(spare, encode_table_simple(table_op::list, "")), "spare table shard"));
  CHECK(test::contains(error_of(spare, encode_table_take_over(1, 1)), "no table shard 1 of 1"));
  CHECK(ask(spare, encode_table_take_over(0, 1)).what == table_reply::kind::done);
  uint32_t took_shard = 9, took_shards = 9;
  std::vector<std::string> took;
  REQUIRE(spare.took_over(took_shard, took_shards, took));
  CHECK(took_shard == 0);
  CHECK(took_shards == 1);
  REQUIRE(took.size() == 1);
  CHECK(test::contains(took[0], "table emb restored"));
  CHECK_FALSE(spare.took_over(took_shard, took_shards, took)); // reported once
  CHECK(ask(spare, encode_table_keys(table_op::fetch, "emb", keys)).floats == before.floats);
  CHECK(ask(spare, encode_table_take_over(0, 1)).what == table_reply::kind::done);
  CHECK(test::contains(error_of(spare, encode_table_take_over(0, 2)), "took over table shard 0 of 1 already"));
  CHECK(test::contains(error_of(service, encode_table_take_over(0, 1)), "not a standby's spare"));

  // Slices of a cluster of another size are named, not loaded.
  table_service resized{0, 3, dir.path()};
  auto resized_lines = resized.restore();
  REQUIRE(resized_lines.size() == 1);
  CHECK(test::contains(resized_lines[0], "holds slices of shard-0-of-1.slice, and this cluster has 3 table shards"));

  // Without a directory there is nothing to save to.
  table_service volatile_service{0, 1, ""};
  REQUIRE(ask(volatile_service, encode_table_create(spec)).what == table_reply::kind::done);
  CHECK(test::contains(error_of(volatile_service, encode_table_simple(table_op::save, "emb")), "no table directory"));
  CHECK(test::contains(error_of(volatile_service, encode_table_simple(table_op::load, "emb")), "no table directory"));
}

TEST_CASE("the table service refuses keys of another shard and splits columns it cannot", "[tables]") {
  table_service service{1, 2, ""};
  auto spec = map_spec("r", 4);
  REQUIRE(ask(service, encode_table_create(spec)).what == table_reply::kind::done);
  uint64_t foreign = 0;
  while (shard_of_key(foreign, 2) == 1)
    ++foreign;
  CHECK(test::contains(error_of(service, encode_table_keys(table_op::get, "r", std::vector<uint64_t>{foreign})),
                       "belongs to shard 0"));
  CHECK(test::contains(error_of(service, encode_table_pairs(table_op::dot, "r", std::vector<uint64_t>{foreign},
                                                            std::vector<uint64_t>{foreign})),
                       "need the columns layout"));
  auto narrow = map_spec("c", 1);
  narrow.layout = table_layout::columns;
  CHECK(test::contains(error_of(service, encode_table_create(narrow)), "cannot be split over 2 shards"));
}

TEST_CASE("a user operation runs on the slice and returns its result", "[tables]") {
  register_table_operation(
    "test-count-positive", [](table_slice& slice, const wire_bytes& args) -> expected<wire_bytes> {
      if (args.size() != 1)
        return failure{"wants one byte"};
      uint32_t n = 0;
      slice.for_each([&](uint64_t, const float* row, uint32_t) { n += row[0] > 0 ? 1 : 0; });
      return wire_bytes(reinterpret_cast<const char*>(&n), reinterpret_cast<const char*>(&n) + 4);
    });
  register_table_operation(
    "test-throws", [](table_slice&, const wire_bytes&) -> expected<wire_bytes> { throw std::runtime_error("boom"); });
  table_service service{0, 1, ""};
  auto spec = map_spec("t", 1);
  spec.init = table_init::zeros;
  REQUIRE(ask(service, encode_table_create(spec)).what == table_reply::kind::done);
  std::vector<float> v{1, -1, 2};
  REQUIRE(ask(service, encode_table_values(table_op::put, "t", std::vector<uint64_t>{1, 2, 3}, v)).what ==
          table_reply::kind::done);
  auto reply = ask(service, encode_table_call("t", "test-count-positive", wire_bytes(1, 'x')));
  REQUIRE(reply.what == table_reply::kind::result);
  uint32_t n = 0;
  std::memcpy(&n, reply.result.data(), 4);
  CHECK(n == 2);
  CHECK(test::contains(error_of(service, encode_table_call("t", "test-count-positive", {})), "wants one byte"));
  CHECK(test::contains(error_of(service, encode_table_call("t", "test-throws", {})), "failed: boom"));
}

TEST_CASE("the key index agrees with std::unordered_map over random inserts and removals", "[tables]") {
  key_index index;
  std::unordered_map<uint64_t, uint32_t> reference;
  rng r{11};
  uint32_t next_row = 0;
  for (int step = 0; step < 200000; ++step) {
    // Few distinct keys, so that removals and reinserts meet tombstones;
    // 0 and ~0 are keys like any other.
    uint64_t key = r.below(5000);
    if (key == 1)
      key = ~uint64_t{0};
    if (r.below(3) == 0) {
      const uint32_t row = index.erase(key);
      auto it = reference.find(key);
      CHECK(row == (it == reference.end() ? key_index::npos : it->second));
      if (it != reference.end())
        reference.erase(it);
    } else {
      bool added = false;
      const uint32_t row = index.insert(key, next_row, added);
      auto [it, inserted] = reference.try_emplace(key, next_row);
      REQUIRE(added == inserted);
      REQUIRE(row == it->second);
      next_row += added ? 1 : 0;
    }
  }
  CHECK(index.size() == reference.size());
  size_t visited = 0;
  index.for_each([&](uint64_t key, uint32_t row) {
    ++visited;
    CHECK(reference.at(key) == row);
  });
  CHECK(visited == reference.size());
  for (uint64_t key = 0; key < 5000; ++key)
    CHECK(index.find(key) == (reference.count(key) ? reference.at(key) : key_index::npos));
}

TEST_CASE("a scan pages through every row once, past removed ones", "[tables]") {
  table_slice t{map_spec("s", 2), 0, 1};
  std::vector<uint64_t> keys;
  for (uint64_t k = 0; k < 100; ++k)
    keys.push_back(k * 977);
  std::vector<float> values(200);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i);
  t.put(keys, values.data());
  std::vector<uint8_t> flags;
  t.remove(std::vector<uint64_t>{0, 977 * 50, 977 * 99}, flags);
  std::map<uint64_t, std::vector<float>> seen;
  uint64_t cursor = 0;
  int pages = 0;
  while (cursor != table_slice::scan_end) {
    std::vector<uint64_t> page_keys;
    std::vector<float> page_values;
    cursor = t.scan(cursor, 7, page_keys, page_values);
    REQUIRE(page_keys.size() <= 7);
    REQUIRE(page_values.size() == page_keys.size() * 2);
    for (size_t i = 0; i < page_keys.size(); ++i)
      CHECK(seen.emplace(page_keys[i], std::vector<float>{page_values[2 * i], page_values[2 * i + 1]}).second);
    ++pages;
  }
  CHECK(seen.size() == 97);
  CHECK(pages >= 14);
  CHECK(seen.count(977 * 50) == 0);
  CHECK(seen.at(977 * 3) == std::vector<float>{6, 7});
  // Through the service, a scan's page is bounded and says where to go on.
  table_service service{0, 1, ""};
  REQUIRE(ask(service, encode_table_create(map_spec("s", 2))).what == table_reply::kind::done);
  REQUIRE(ask(service, encode_table_values(table_op::put, "s", keys, values)).what == table_reply::kind::done);
  auto first = ask(service, encode_table_scan("s", 0, 60));
  CHECK(first.keys.size() == 60);
  CHECK(first.floats.size() == 120);
  auto rest = ask(service, encode_table_scan("s", first.next, 1000));
  CHECK(rest.keys.size() == 40);
  CHECK(rest.next == table_slice::scan_end);
}

namespace {

table_spec dense_spec() {
  table_spec s;
  s.name = "dense";
  s.kind = table_kind::matrix;
  s.rows = 100;
  s.dim = 6;
  s.layout = table_layout::columns;
  s.init = table_init::uniform;
  s.init_scale = 0.5f;
  s.seed = 3;
  s.optimizer = table_optimizer::adagrad;
  s.dense = true;
  return s;
}

std::vector<float> get_rows(table_slice& t, std::vector<uint64_t> keys) {
  std::vector<float> out(keys.size() * t.width());
  t.get(keys, out.data());
  return out;
}

// Rewrites a slice file's checksum after an edit.
void fix_crc(std::string& bytes) {
  const uint32_t crc = crc32(bytes.data(), bytes.size() - 4, 0);
  std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
}

} // namespace

TEST_CASE("a dense matrix has every row from the start and behaves as a lazy one", "[tables]") {
  auto spec = dense_spec();
  auto lazy_spec = spec;
  lazy_spec.dense = false;
  table_slice dense{spec, 1, 2}, lazy{lazy_spec, 1, 2};
  CHECK(dense.rows() == 100);
  CHECK(lazy.rows() == 0);
  CHECK(dense.memory_bytes() >= 100 * dense.stride() * sizeof(float));
  const std::vector<uint64_t> keys{0, 57, 99, 57};
  CHECK(get_rows(dense, keys) == get_rows(lazy, keys)); // the same initial values
  std::vector<float> grads(keys.size() * dense.width());
  for (size_t i = 0; i < grads.size(); ++i)
    grads[i] = 0.1f * static_cast<float>(i % 5) - 0.2f;
  dense.push(keys, grads.data());
  lazy.push(keys, grads.data());
  std::vector<float> a(keys.size() * dense.stride()), b(a.size());
  std::vector<uint32_t> sa(keys.size()), sb(keys.size());
  dense.fetch(keys, a.data(), sa.data());
  lazy.fetch(keys, b.data(), sb.data());
  CHECK(a == b); // values and Adagrad slots
  CHECK(dense.find(57) == dense.dense_rows() + 57 * dense.stride());
  CHECK(dense.find(100) == nullptr);

  std::vector<uint8_t> flags;
  std::vector<float> ones(2 * dense.width(), 1.0f);
  dense.set_if_absent(std::vector<uint64_t>{3, 4}, ones.data(), flags);
  CHECK(flags == std::vector<uint8_t>{0, 0}); // every row exists
  dense.remove(std::vector<uint64_t>{57}, flags);
  CHECK(flags == std::vector<uint8_t>{1});
  table_slice fresh{spec, 1, 2};
  CHECK(get_rows(dense, {57}) == get_rows(fresh, {57})); // back to its initial value
  std::vector<double> count;
  REQUIRE(dense.reduce("count", count));
  CHECK(count[0] == 100);
  std::vector<uint64_t> page_keys, seen;
  std::vector<float> values;
  for (uint64_t cursor = 0; cursor != table_slice::scan_end;) {
    cursor = dense.scan(cursor, 30, page_keys, values);
    seen.insert(seen.end(), page_keys.begin(), page_keys.end());
  }
  CHECK(seen.size() == 100);
  CHECK(seen.back() == 99);
}

TEST_CASE("a dense slice file round-trips, and version 1 files still read", "[tables]") {
  test::temp_dir dir;
  auto spec = dense_spec();
  table_slice t{spec, 0, 2};
  std::vector<float> grads(t.width(), 0.3f);
  t.push(std::vector<uint64_t>{42}, grads.data());
  std::filesystem::create_directories(dir.path() + "/dense");
  const std::string path = table_slice_path(dir.path(), "dense", 0, 2);
  REQUIRE(write_table_slice(path, t));
  auto back = read_table_slice(path);
  REQUIRE(back);
  CHECK((*back)->spec() == spec);
  CHECK((*back)->rows() == 100);
  CHECK(get_rows(**back, {42, 7}) == get_rows(t, {42, 7}));

  std::string bytes = test::read_file(path);
  const size_t header = 8 + 4 + spec.name.size() + 4 + 1 + 8 + 4 + 4 + 8 + 16 + 20 + 8;
  SECTION("a row outside the matrix is refused") {
    const uint64_t key = 5000;
    std::memcpy(bytes.data() + header, &key, 8);
    fix_crc(bytes);
    dir.write("dense/shard-0-of-2.slice", bytes);
    CHECK(test::contains(read_table_slice(path).error(), "row 5000 of a matrix of 100 rows"));
  }
  SECTION("unknown flags are refused") {
    bytes[8 + 4 + spec.name.size() + 4] = 2;
    fix_crc(bytes);
    dir.write("dense/shard-0-of-2.slice", bytes);
    CHECK(test::contains(read_table_slice(path).error(), "unknown flags"));
  }
  SECTION("a version 1 file (no flags byte) is a table that is not dense") {
    auto lazy_spec = spec;
    lazy_spec.dense = false;
    table_slice lazy{lazy_spec, 0, 2};
    lazy.push(std::vector<uint64_t>{42}, grads.data());
    REQUIRE(write_table_slice(path, lazy));
    std::string v2 = test::read_file(path);
    std::string v1 = v2.substr(0, 8 + 4 + spec.name.size() + 4) + v2.substr(8 + 4 + spec.name.size() + 4 + 1);
    v1[7] = '1';
    fix_crc(v1);
    dir.write("dense/shard-0-of-2.slice", v1);
    auto old = read_table_slice(path);
    REQUIRE(old);
    CHECK((*old)->spec() == lazy_spec);
    CHECK(get_rows(**old, {42}) == get_rows(lazy, {42}));
  }
}

TEST_CASE("dense tables are only matrices, and bounded by the shard's memory", "[tables]") {
  auto spec = dense_spec();
  spec.kind = table_kind::map;
  spec.rows = 0;
  CHECK(test::contains(validate_table_spec(spec).error(), "only a matrix can be dense"));
  spec = dense_spec();
  spec.layout = table_layout::rows;
  CHECK(test::contains(validate_table_spec(spec).error(), "needs the columns layout"));
  table_service service{0, 2, ""};
  auto huge = dense_spec();
  huge.rows = uint64_t{1} << 31;
  huge.dim = 65536;
  CHECK(test::contains(error_of(service, encode_table_create(huge)), "more than this shard allows"));
  huge.rows = uint64_t{1} << 33;
  huge.dim = 2;
  CHECK(test::contains(error_of(service, encode_table_create(huge)), "a dense matrix has at most"));
  REQUIRE(ask(service, encode_table_create(dense_spec())).what == table_reply::kind::done);
  table_service small{0, 2, "", 1000};
  CHECK(test::contains(error_of(small, encode_table_create(dense_spec())), "more than this shard allows (0 MiB)"));
  auto info = service.tables();
  REQUIRE(info.size() == 1);
  CHECK(info[0].rows == 100);
}

TEST_CASE("sparse fetch and increment by column, checked against the shard's columns", "[tables]") {
  // Shard 1 of 2 of a vector table of 100,000 columns (longer than any row
  // of an ordinary table): it holds columns 50,000..99,999.
  table_service service{1, 2, ""};
  const table_spec spec = test::dense_columns_spec("vec", 3, 100000);
  REQUIRE(ask(service, encode_table_create(spec)).what == table_reply::kind::done);
  std::vector<uint32_t> cols{50000, 99999, 50000, 70000};
  std::vector<float> deltas{1.0f, 2.0f, 0.5f, -3.0f};
  CHECK(ask(service, encode_table_sparse_add("vec", 2, cols, deltas)).what == table_reply::kind::done);
  std::vector<uint64_t> rows{2, 0};
  std::vector<uint32_t> read{50000, 70000, 99999, 60000};
  auto got = ask(service, encode_table_sparse_get("vec", rows, read));
  REQUIRE(got.what == table_reply::kind::floats);
  CHECK(got.floats == std::vector<float>{1.5f, -3.0f, 2.0f, 0.0f, 0, 0, 0, 0});

  CHECK(test::contains(error_of(service, encode_table_sparse_get("vec", rows, std::vector<uint32_t>{49999})),
                       "column 49999 is not on shard 1 (it holds columns 50000 to 99999 of 100000)"));
  CHECK(test::contains(error_of(service, encode_table_sparse_add("vec", 0, cols, std::vector<float>(3))),
                       "12 bytes of values for 4 columns"));
  CHECK(test::contains(error_of(service, encode_table_sparse_add("vec", 3, cols, deltas)), "outside its 3 rows"));
  // rows x columns is bounded before the reply is made.
  std::vector<uint64_t> many_rows(64, 1);
  std::vector<uint32_t> many_cols(max_request_floats / 64 + 1, 50000);
  CHECK(test::contains(error_of(service, encode_table_sparse_get("vec", many_rows, many_cols)), "split it"));
  std::vector<uint32_t> too_many(max_request_keys + 1, 50000);
  CHECK(test::contains(
    error_of(service, encode_table_sparse_add("vec", 0, too_many, std::vector<float>(too_many.size()))), "more than"));

  // Long rows only for dense matrices in the columns layout.
  auto lazy = spec;
  lazy.name = "lazy";
  lazy.dense = false;
  CHECK(test::contains(error_of(service, encode_table_create(lazy)), "dim must be between 1 and 65536"));
  auto huge = spec;
  huge.name = "huge";
  huge.dim = max_vector_dim + 1;
  CHECK(test::contains(error_of(service, encode_table_create(huge)), "dim must be between 1 and 1073741824"));
}

TEST_CASE("a fence refuses the increments of writers below it, and only theirs", "[tables]") {
  table_service service{0, 1, ""};
  const table_spec spec = test::dense_columns_spec("g", 2, 4);
  REQUIRE(ask(service, encode_table_create(spec)).what == table_reply::kind::done);
  const std::vector<uint32_t> cols{0, 3};
  const std::vector<float> ones{1.0f, 1.0f};
  auto row0 = [&] {
    const std::vector<uint64_t> rows{0};
    return ask(service, encode_table_sparse_get("g", rows, std::vector<uint32_t>{0, 1, 2, 3})).floats;
  };
  // Unfenced, every writer's increment lands.
  CHECK(ask(service, encode_table_sparse_add("g", 0, cols, ones, 3)).what == table_reply::kind::done);
  const auto raised = ask(service, encode_table_fence("g", 5));
  CHECK(raised.what == table_reply::kind::done);
  CHECK(raised.fence == 5);
  // Below the fence: refused, the row untouched.
  CHECK(test::contains(error_of(service, encode_table_sparse_add("g", 0, cols, ones, 4)),
                       "an increment of writer 4 refused: the table is fenced at 5"));
  CHECK(row0() == std::vector<float>{1, 0, 0, 1});
  // At or above it, and the untagged (0), land.
  CHECK(ask(service, encode_table_sparse_add("g", 0, cols, ones, 5)).what == table_reply::kind::done);
  CHECK(ask(service, encode_table_sparse_add("g", 0, cols, ones, 9)).what == table_reply::kind::done);
  CHECK(ask(service, encode_table_sparse_add("g", 0, cols, ones)).what == table_reply::kind::done);
  CHECK(row0() == std::vector<float>{4, 0, 0, 4});
  // A fence never falls; a lower one (0 included) reads it.
  CHECK(ask(service, encode_table_fence("g", 2)).fence == 5);
  CHECK(ask(service, encode_table_fence("g", 0)).fence == 5);
  CHECK(test::contains(error_of(service, encode_table_sparse_add("g", 0, cols, ones, 4)), "fenced at 5"));
  // Per table, and only on tables that exist.
  auto other = spec;
  other.name = "h";
  REQUIRE(ask(service, encode_table_create(other)).what == table_reply::kind::done);
  CHECK(ask(service, encode_table_sparse_add("h", 0, cols, ones, 1)).what == table_reply::kind::done);
  CHECK(test::contains(error_of(service, encode_table_fence("nope", 1)), "no table 'nope'"));
}

TEST_CASE("an increment racing a fence lands before it or not at all", "[tables]") {
  // Writer 1 adds 1 to a column from two threads, as fast as it can, while
  // the main thread raises the fence to 2 and then zeroes the column (as
  // a driver resetting a lost learner's row does): nothing of writer 1
  // may be in the column after the zero, however the threads interleave.
  for (int round = 0; round < 20; ++round) {
    table_service service{0, 1, ""};
    const table_spec spec = test::dense_columns_spec("g", 1, 1);
    REQUIRE(ask(service, encode_table_create(spec)).what == table_reply::kind::done);
    const std::vector<uint32_t> col{0};
    const std::vector<float> one{1.0f};
    std::atomic<bool> fenced{false};
    std::atomic<int> landed_after{0};
    auto writer = [&] {
      for (int i = 0; i < 2000; ++i) {
        const bool before = fenced.load();
        const auto reply = ask(service, encode_table_sparse_add("g", 0, col, one, 1));
        if (before && reply.what == table_reply::kind::done)
          ++landed_after;
      }
    };
    std::thread a(writer), b(writer);
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 5)));
    REQUIRE(ask(service, encode_table_fence("g", 2)).what == table_reply::kind::done);
    fenced = true;
    const std::vector<uint64_t> rows{0};
    REQUIRE(ask(service, encode_table_scal("g", 0.0f, rows)).what == table_reply::kind::done);
    a.join();
    b.join();
    CHECK(landed_after == 0);
    CHECK(ask(service, encode_table_sparse_get("g", rows, col)).floats == std::vector<float>{0.0f});
  }
}

TEST_CASE("a lookup request is checked before its reply is made", "[tables]") {
  table_service service{0, 1, ""};
  REQUIRE(ask(service, encode_table_create(map_spec("emb", 4))).what == table_reply::kind::done);
  const std::vector<uint64_t> keys{5, 6};
  const std::vector<uint32_t> offsets{0, 2, 3}, positions{0, 1, 1}, counts{2, 1};
  auto ok = ask(service, encode_table_lookup("emb", table_combiner::mean, keys, offsets, positions, counts));
  REQUIRE(ok.what == table_reply::kind::floats);
  CHECK(ok.floats.size() == 8);
  CHECK(test::contains(error_of(service, encode_table_lookup("emb", table_combiner::sum, keys,
                                                             std::vector<uint32_t>{0, 2}, positions, counts)),
                       "needs 3 offsets"));
  CHECK(test::contains(error_of(service, encode_table_lookup("emb", table_combiner::sum, keys,
                                                             std::vector<uint32_t>{0, 2, 2}, positions, counts)),
                       "offsets must run from 0 to 3"));
  CHECK(test::contains(error_of(service, encode_table_lookup("emb", table_combiner::sum, keys,
                                                             std::vector<uint32_t>{0, 4, 3}, positions, counts)),
                       "offsets go down at example 1"));
  CHECK(test::contains(error_of(service, encode_table_lookup("emb", table_combiner::sum, keys, offsets,
                                                             std::vector<uint32_t>{0, 1, 2}, counts)),
                       "position 2 is past its 2 keys"));
  std::vector<uint32_t> many_counts(max_request_floats / 4 + 1, 1);
  std::vector<uint32_t> many_offsets(many_counts.size() + 1, 0);
  CHECK(test::contains(error_of(service, encode_table_lookup("emb", table_combiner::sum, keys, many_offsets,
                                                             std::vector<uint32_t>{}, many_counts)),
                       "split it"));
}

TEST_CASE("save slots keep two checkpoints apart; a restore takes the newest whole one", "[tables]") {
  test::temp_dir dir;
  table_service service{0, 1, dir.path()};
  REQUIRE(ask(service, encode_table_create(map_spec("model", 2))).what == table_reply::kind::done);
  const std::vector<uint64_t> keys{1, 2};
  auto put = [&](float v) {
    const std::vector<float> values(4, v);
    REQUIRE(ask(service, encode_table_values(table_op::put, "model", keys, values)).what == table_reply::kind::done);
  };
  auto values = [&](table_service& s) { return ask(s, encode_table_keys(table_op::get, "model", keys)).floats; };
  auto save = [&](uint32_t slot) {
    REQUIRE(ask(service, encode_table_simple(table_op::save, "model", slot)).what == table_reply::kind::done);
  };
  put(1);
  save(1);
  put(2);
  save(2);
  put(3);
  // Each slot gives back what it saved; the plain save (slot 0) is apart.
  CHECK(ask(service, encode_table_simple(table_op::load, "model", 1)).what == table_reply::kind::done);
  CHECK(values(service) == std::vector<float>(4, 1));
  CHECK(ask(service, encode_table_simple(table_op::load, "model", 2)).what == table_reply::kind::done);
  CHECK(values(service) == std::vector<float>(4, 2));
  CHECK(test::contains(error_of(service, encode_table_simple(table_op::load, "model", 0)), "table model not loaded"));
  CHECK(test::contains(error_of(service, encode_table_simple(table_op::save, "model", max_table_slots)),
                       "no save slot 4 (there are 4)"));
  CHECK(std::filesystem::exists(table_slice_path(dir.path(), "model", 0, 1, 1)));
  CHECK(test::contains(table_slice_path(dir.path(), "model", 0, 1, 2), "/model/shard-0-of-1.slot-2.slice"));

  // A restarted shard restores the newest save (slot 2 here); when that one
  // is damaged, the older slot instead.
  std::filesystem::last_write_time(table_slice_path(dir.path(), "model", 0, 1, 1),
                                   std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  {
    table_service restarted{0, 1, dir.path()};
    auto lines = restarted.restore();
    REQUIRE(lines.size() == 1);
    CHECK(test::contains(lines[0], "shard-0-of-1.slot-2.slice (2 rows)"));
    CHECK(values(restarted) == std::vector<float>(4, 2));
  }
  dir.write("model/shard-0-of-1.slot-2.slice", "cut short");
  {
    table_service restarted{0, 1, dir.path()};
    auto lines = restarted.restore();
    REQUIRE(lines.size() == 1);
    CHECK(test::contains(lines[0], "shard-0-of-1.slot-1.slice (2 rows); a newer save did not read: "));
    CHECK(test::contains(lines[0], "shard-0-of-1.slot-2.slice"));
    CHECK(values(restarted) == std::vector<float>(4, 1));
  }
  // Dropping the table removes every slot's file.
  CHECK(ask(service, encode_table_simple(table_op::drop, "model")).what == table_reply::kind::done);
  for (uint32_t slot = 0; slot < max_table_slots; ++slot)
    CHECK_FALSE(std::filesystem::exists(table_slice_path(dir.path(), "model", 0, 1, slot)));
}
