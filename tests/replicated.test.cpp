// The replicated mode's pieces without actors: the combiner's arithmetic on
// hand-worked examples, a round between two host copies of one model, the
// refusals of bad row blocks, and the RowBlock bytes.
#include <catch2/catch.hpp>

#include <vector>

#include <gridvec/core/vocabulary.hpp>
#include "src/formats/wire.hpp"
#include "src/replicated/model_combiner.hpp"
#include "src/replicated/replica.hpp"
#include "src/replicated/row_block.hpp"

using namespace gridvec;

namespace {

std::vector<float> combine_all(combiner kind, const std::vector<std::vector<float>>& changes) {
  std::vector<float> g(changes.front().size());
  uint32_t count = 0;
  for (const auto& c : changes)
    add_change(kind, g.data(), count, c.data(), g.size());
  finish_changes(kind, g.data(), count, g.size());
  return g;
}

void check_equal(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i)
    CHECK(got[i] == Approx(want[i]).margin(1e-6));
}

std::vector<uint64_t> keys_of(uint32_t words) {
  std::vector<uint64_t> keys;
  for (uint32_t w = 0; w < words; ++w)
    keys.push_back(word_key("w" + std::to_string(w)));
  return keys;
}

std::shared_ptr<const noise_sampler> noise_of(uint32_t words) {
  std::vector<uint64_t> counts(words);
  for (uint32_t w = 0; w < words; ++w)
    counts[w] = 100 - w;
  return std::make_shared<const noise_sampler>(alias_sampler::from_counts(counts));
}

// Host `host`'s training of a row, as a known change.
void change_row(replica& r, bool output, uint32_t id, const std::vector<float>& by) {
  float* row = output ? r.store()->output_row(id) : r.store()->input_row(id);
  for (size_t c = 0; c < by.size(); ++c)
    row[c] += by[c];
  r.mark(output ? std::vector<uint32_t>{} : std::vector<uint32_t>{id},
         output ? std::vector<uint32_t>{id} : std::vector<uint32_t>{});
}

std::vector<float> row_of(const replica& r, bool output, uint32_t id) {
  const float* row = output ? r.store()->output_row(id) : r.store()->input_row(id);
  return {row, row + r.store()->dim()};
}

} // namespace

TEST_CASE("the model combiner adds orthogonal changes, keeps parallel ones once, projects the rest", "[replicated]") {
  const auto mc = combiner::model_combiner;
  // Orthogonal: both moves count in full.
  check_equal(combine_all(mc, {{1, 0}, {0, 3}}), {1, 3});
  // Parallel: the same move made twice is made once (the seed's "average").
  check_equal(combine_all(mc, {{2, 0}, {1, 0}}), {2, 0});
  // In between: g2's part orthogonal to g1 is added, g1.g2/|g1|^2 = 1:
  // (1,0) + (1,1) - 1 (1,0) = (1,1).
  check_equal(combine_all(mc, {{1, 0}, {1, 1}}), {1, 1});
  // Three hosts by induction: (1,0,0), (0,1,0) give (1,1,0); then
  // g.g3 / |g|^2 = 2 / 2 = 1, so g + g3 - g = g3 = (1,1,1).
  check_equal(combine_all(mc, {{1, 0, 0}, {0, 1, 0}, {1, 1, 1}}), {1, 1, 1});
  // A host that did not move the row first: the next change counts whole.
  check_equal(combine_all(mc, {{0, 0}, {2, 5}}), {2, 5});
  // The order matters (the combiner is not symmetric): g1 = (1,1), g2 =
  // (1,0): g1.g2 / |g1|^2 = 1/2, so (1,1) + (1,0) - (1/2,1/2) = (3/2,1/2).
  check_equal(combine_all(mc, {{1, 1}, {1, 0}}), {1.5f, 0.5f});

  const auto avg = combiner::average;
  check_equal(combine_all(avg, {{1, 0}, {0, 3}}), {0.5f, 1.5f});
  check_equal(combine_all(avg, {{1, 0, 0}, {0, 1, 0}, {1, 1, 1}}), {2.0f / 3, 2.0f / 3, 1.0f / 3});
  check_equal(combine_all(avg, {{4, 2}}), {4, 2});
}

TEST_CASE("the combination never grows past the sum of the changes' norms", "[replicated]") {
  // |g'_2| <= |g_2| at every step (the seed's equation 4).
  std::vector<std::vector<float>> changes = {{0.3f, -0.2f, 0.5f}, {0.1f, 0.4f, -0.3f}, {-0.2f, 0.1f, 0.2f}};
  auto g = combine_all(combiner::model_combiner, changes);
  double norm = 0, bound = 0;
  for (float x : g)
    norm += double{x} * x;
  for (const auto& c : changes) {
    double n = 0;
    for (float x : c)
      n += double{x} * x;
    bound += std::sqrt(n);
  }
  CHECK(std::sqrt(norm) <= bound + 1e-6);
}

TEST_CASE("the combiner flag", "[replicated]") {
  CHECK(*parse_combiner("mc") == combiner::model_combiner);
  CHECK(*parse_combiner("avg") == combiner::average);
  auto bad = parse_combiner("sum");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("--combiner") != std::string::npos);
}

TEST_CASE("a round between two hosts leaves both with the same combined model", "[replicated]") {
  const uint32_t dim = 4, words = 20, hosts = 2;
  auto noise = noise_of(words);
  for (combiner kind : {combiner::model_combiner, combiner::average}) {
    CAPTURE(combiner_name(kind));
    std::vector<replica> host;
    for (uint32_t h = 0; h < hosts; ++h) {
      host.emplace_back(dim, keys_of(words), 7, noise, nullptr);
      host.back().set_hosts(hosts);
    }
    // Both start from the same vectors (the shards' start).
    CHECK(row_of(host[0], false, 3) == row_of(host[1], false, 3));
    const auto start3 = row_of(host[0], false, 3);
    const auto start5 = row_of(host[0], true, 5);

    // Row u3: both hosts move it, orthogonally. Row v5: host 1 only.
    change_row(host[0], false, 3, {1, 0, 0, 0});
    change_row(host[1], false, 3, {0, 2, 0, 0});
    change_row(host[1], true, 5, {0, 0, 0.5f, 0});
    CHECK(host[0].touched_rows() == 1);
    CHECK(host[1].touched_rows() == 2);

    // Each host's changes, per master, as they would travel.
    std::vector<std::vector<row_block>> to_master(hosts);
    for (uint32_t h = 0; h < hosts; ++h) {
      auto blocks = host[h].changes(h);
      REQUIRE(blocks.size() == hosts);
      CHECK(blocks[h].rows() == 0); // its own master reads them from the model
      for (uint32_t m = 0; m < hosts; ++m) {
        blocks[m].host = h;
        for (uint32_t u : blocks[m].inputs)
          CHECK(host[h].master_of(false, u) == m);
        for (uint32_t v : blocks[m].outputs) // a word's two rows share a master
          CHECK(host[h].master_of(true, v) == host[h].master_of(false, v));
        row_block back;
        REQUIRE(decode_row_block(encode_row_block(blocks[m]), back));
        to_master[m].push_back(back);
      }
    }
    // Every master combines its rows; every host applies every master's.
    std::vector<row_block> values;
    for (uint32_t m = 0; m < hosts; ++m) {
      auto v = host[m].combine(to_master[m], kind, m);
      REQUIRE(v);
      values.push_back(*v);
    }
    for (uint32_t h = 0; h < hosts; ++h) {
      for (uint32_t m = 0; m < hosts; ++m)
        if (m != h)
          REQUIRE(host[h].apply(values[m]));
      host[h].next_round();
      CHECK(host[h].touched_rows() == 0);
    }

    for (uint32_t h = 0; h < hosts; ++h) {
      CAPTURE(h);
      auto u3 = row_of(host[h], false, 3);
      const float scale = kind == combiner::average ? 0.5f : 1.0f; // orthogonal: mc adds both
      check_equal(u3, {start3[0] + scale * 1, start3[1] + scale * 2, start3[2], start3[3]});
      // One host alone: its change, under either combiner.
      check_equal(row_of(host[h], true, 5), {start5[0], start5[1], start5[2] + 0.5f, start5[3]});
    }
    // The next round starts from the synchronised rows: no change left.
    auto again = host[0].changes(0);
    for (const auto& b : again)
      CHECK(b.rows() == 0);

    // What each master combined waits for the shards: its rows with their
    // values now, once; then nothing until it combines again.
    for (uint32_t m = 0; m < hosts; ++m) {
      CAPTURE(m);
      CHECK(host[m].unstored_rows() == values[m].rows());
      const row_block unstored = host[m].unstored_values();
      CHECK(unstored.inputs == values[m].inputs);
      CHECK(unstored.outputs == values[m].outputs);
      check_equal(unstored.values, values[m].values);
      CHECK(host[m].unstored_rows() == 0);
      CHECK(host[m].unstored_values().rows() == 0);
    }
  }
}

TEST_CASE("a master keeps every row it combined until the shards are written", "[replicated]") {
  const uint32_t dim = 2, words = 8;
  replica one(dim, keys_of(words), 3, noise_of(words), nullptr); // one host: master of every row
  auto round = [&](bool output, uint32_t id, const std::vector<float>& by) {
    change_row(one, output, id, by);
    auto v = one.combine(one.changes(0), combiner::model_combiner, 0);
    REQUIRE(v);
    one.next_round();
  };
  round(false, 2, {1, 0});
  round(true, 4, {0, 1});
  round(false, 2, {0, 2}); // u2 again: kept once, with its latest values
  CHECK(one.unstored_rows() == 2);
  const row_block b = one.unstored_values();
  CHECK(b.inputs == std::vector<uint32_t>{2});
  CHECK(b.outputs == std::vector<uint32_t>{4});
  check_equal({b.input_value(0), b.input_value(0) + dim}, row_of(one, false, 2));
  check_equal({b.output_value(0), b.output_value(0) + dim}, row_of(one, true, 4));
  CHECK(one.unstored_rows() == 0);
  // A model loaded from the shards has nothing left to write.
  round(false, 5, {1, 1});
  CHECK(one.unstored_rows() == 1);
  one.forget_unstored();
  CHECK(one.unstored_values().rows() == 0);
  round(false, 5, {1, 1}); // and finds the row again when it changes
  CHECK(one.unstored_values().inputs == std::vector<uint32_t>{5});
}

TEST_CASE("a master refuses row blocks it cannot have been sent", "[replicated]") {
  const uint32_t dim = 3, words = 10;
  replica master(dim, keys_of(words), 1, noise_of(words), nullptr);
  master.set_hosts(2);
  uint32_t foreign = 0;
  while (master.master_of(false, foreign) == 0)
    ++foreign;
  uint32_t own = 0;
  while (master.master_of(false, own) != 0)
    ++own;

  row_block b;
  b.host = 1;
  b.width = dim;
  b.inputs = {foreign};
  b.values.assign(dim, 0.1f);
  auto r = master.combine({b}, combiner::model_combiner, 0);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("another master") != std::string::npos);

  b.inputs = {words + 5};
  r = master.combine({b}, combiner::model_combiner, 0);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("out of range") != std::string::npos);

  b.inputs = {own};
  b.width = dim + 1;
  b.values.assign(dim + 1, 0.1f);
  r = master.combine({b}, combiner::model_combiner, 0);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("floats") != std::string::npos);

  // A master's own changes never travel: a block from it with rows is not
  // its own.
  b.host = 0;
  b.width = dim;
  b.values.assign(dim, 0.1f);
  r = master.combine({b}, combiner::model_combiner, 0);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("own changes") != std::string::npos);

  // From a host that is not one of the job's.
  b.host = 2;
  r = master.combine({b}, combiner::model_combiner, 0);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("there are 2 hosts") != std::string::npos);

  // One bad block among good ones: nothing is combined.
  const auto before = row_of(master, false, own);
  row_block good = b;
  good.host = 1;
  row_block bad = good;
  bad.host = 2;
  bad.inputs = {foreign};
  r = master.combine({good, bad}, combiner::model_combiner, 0);
  REQUIRE_FALSE(r);
  CHECK(row_of(master, false, own) == before);
  CHECK(master.unstored_rows() == 0);

  b.outputs = {words}; // output rows end at the vocabulary without -hs 1
  b.inputs.clear();
  CHECK_FALSE(master.apply(b));
}

TEST_CASE("row blocks cross the wire whole, and malformed ones are refused", "[replicated][wire]") {
  row_block b;
  b.round = 7;
  b.generation = 3;
  b.host = 2;
  b.last = true;
  b.pausing = true;
  b.width = 2;
  b.first_column = 4;
  b.inputs = {1, 9};
  b.outputs = {5};
  b.values = {1, 2, 3, 4, 5, 6};
  row_block back;
  REQUIRE(decode_row_block(encode_row_block(b), back));
  CHECK(back.round == 7);
  CHECK(back.generation == 3);
  CHECK(back.host == 2);
  CHECK(back.last);
  CHECK(back.pausing);
  CHECK_FALSE(back.stored);
  CHECK(back.width == 2);
  CHECK(back.first_column == 4);
  CHECK(back.inputs == b.inputs);
  CHECK(back.outputs == b.outputs);
  CHECK(back.values == b.values);
  CHECK(back.output_value(0)[1] == 6);
  // Read where they arrived, the same rows and values.
  std::vector<uint32_t> ids;
  REQUIRE(with_row_block(encode_row_block(b), ids, [&](const row_block& head, row_block_ref rows) -> status {
    CHECK(head.round == 7);
    CHECK(head.last);
    CHECK(rows.width == 2);
    CHECK(rows.first_column == 4);
    CHECK(std::vector<uint32_t>(rows.inputs.begin(), rows.inputs.end()) == b.inputs);
    CHECK(std::vector<uint32_t>(rows.outputs.begin(), rows.outputs.end()) == b.outputs);
    CHECK(std::vector<float>(rows.values, rows.values + 6) == b.values);
    return {};
  }));

  // Values that do not fill the rows.
  b.values.pop_back();
  b.values.pop_back();
  auto s = decode_row_block(encode_row_block(b), back);
  REQUIRE_FALSE(s);
  CHECK(s.error().find("malformed row block") != std::string::npos);
  bool used = false;
  s = with_row_block(encode_row_block(b), ids, [&](const row_block&, row_block_ref) -> status {
    used = true;
    return {};
  });
  CHECK_FALSE(s);
  CHECK_FALSE(used); // checked before anything reads the rows
  // Not Cap'n Proto at all, or cut short.
  CHECK_FALSE(decode_row_block(wire_bytes(40, '\x7f'), back));
  auto bytes = encode_row_block(b);
  bytes.resize(bytes.size() / 2 / 8 * 8);
  CHECK_FALSE(decode_row_block(bytes, back));
}
