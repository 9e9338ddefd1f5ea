// Each shard layout's service (src/shard/) driven as plain C++, with no
// actor system: what a lane calls for every message it receives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "src/formats/split_wire.hpp"
#include "src/formats/wire.hpp"
#include "src/model/similarity.hpp"
#include "src/replicated/row_block.hpp"
#include "src/sgns/column_step.hpp"
#include "src/shard/column_service.hpp"
#include "src/shard/replica_service.hpp"
#include "src/shard/row_service.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;

namespace shard_services_test {

constexpr uint32_t vocab = 40, dim = 8;
constexpr uint64_t seed = 11, crc = 77;

std::vector<uint64_t> counts() {
  std::vector<uint64_t> c(vocab);
  for (uint32_t w = 0; w < vocab; ++w)
    c[w] = 1000 / (w + 1) + 1;
  return c;
}

// Shard 1 of 2: columns [4, 8).
template <class Service>
std::shared_ptr<Service> column_shard() {
  auto store = std::make_shared<shard_store>(1, 2, dim, vocab, seed, gridvec::test::zipf_noise(vocab));
  const auto slice = store->slice();
  return std::make_shared<Service>(store, slice_header{1, 2, dim, slice.first, slice.width, vocab, crc, 0}, seed);
}

minibatch sample_batch() {
  minibatch mb;
  mb.seed = 99;
  mb.negatives = 3;
  mb.inputs = {1, 5, 9};
  mb.outputs = {2, 6, 10};
  return mb;
}

std::vector<float> floats(const wire_bytes& bytes) {
  auto f = floats_of(bytes);
  REQUIRE(f);
  return *f;
}

TEST_CASE("a column shard's step refuses a bad part whole and applies nothing", "[shard_services]") {
  auto shard = column_shard<column_service>();
  column_lane lane(shard);
  // (The output vectors start at zero, so an adjust changes them first.)
  const auto before = *shard->read_rows(0, vocab, true);
  auto reply = lane.dotprod(encode_dotprod_request(sample_batch()));
  REQUIRE(reply);
  std::vector<float> weights(sample_batch().dot_count(), 0.1f);
  const auto adjust = encode_adjust_request(sample_batch(), weights.data(), weights.size());
  minibatch bad = sample_batch();
  bad.inputs[0] = vocab + 3;
  auto refused = lane.step({adjust}, std::vector<wire_bytes>{encode_dotprod_request(bad)});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().find("out") != std::string::npos);
  CHECK(*shard->read_rows(0, vocab, true) == before);
  // The same step with a good dotprod applies the adjust and answers it.
  auto done = lane.step({adjust}, std::vector<wire_bytes>{encode_dotprod_request(sample_batch())});
  REQUIRE(done);
  CHECK(done->size() == 1);
  CHECK(*shard->read_rows(0, vocab, true) != before);
  CHECK(shard->requests() == 1 + 2 + 2);
}

TEST_CASE("a shard's save, load and reset round-trip through a real slice file", "[shard_services]") {
  gridvec::test::temp_dir dir;
  auto shard = column_shard<column_service>();
  const auto initial = *shard->read_rows(0, vocab, false);
  shard->store().input_row(3)[0] = 42.0f;
  const auto trained = *shard->read_rows(0, vocab, false);
  auto digest = shard->save(dir.file("slice.bin"), crc);
  REQUIRE(digest);
  CHECK_FALSE(shard->save(dir.file("other.bin"), crc + 1)); // another vocabulary
  REQUIRE(shard->reset());
  CHECK(*shard->read_rows(0, vocab, false) == initial);
  REQUIRE(shard->load(dir.file("slice.bin"), crc));
  CHECK(*shard->read_rows(0, vocab, false) == trained);
  auto wrong = shard->load(dir.file("slice.bin"), crc + 1);
  REQUIRE_FALSE(wrong);
  // A new shard starts from the checkpoint when it is given one.
  auto restored = column_shard<column_service>();
  REQUIRE(restored->start_from(dir.file("slice.bin")));
  CHECK(*restored->read_rows(0, vocab, false) == trained);
  CHECK_FALSE(restored->start_from(dir.file("missing.bin")));
  CHECK_FALSE(shard->read_rows(3, vocab + 1, false));
}

TEST_CASE("a column shard's norms and similarity are its columns' partial sums", "[shard_services]") {
  auto shard = column_shard<column_service>();
  auto norms = floats(*shard->norms({4, 7}));
  REQUIRE(norms.size() == 2);
  const float* u = shard->store().input_row(4);
  float expected = 0;
  for (uint32_t j = 0; j < shard->store().slice().width; ++j)
    expected += u[j] * u[j];
  CHECK(norms[0] == Approx(expected));
  CHECK_FALSE(shard->norms({vocab}));
  auto similar = floats(*shard->similar({4}, float_bytes({1.0f})));
  REQUIRE(similar.size() == 1 + 2 * vocab);
  CHECK(similar[0] == Approx(expected)); // |q_s|^2 with q = u(4)
  CHECK(similar[1 + 4] == Approx(expected));
  CHECK_FALSE(shard->similar({4, 5}, float_bytes({1.0f})));
}

TEST_CASE("a replica shard stores a round's rows of its columns only, checked whole", "[shard_services]") {
  auto shard = column_shard<replica_service>();
  row_block b;
  b.width = 4;
  b.first_column = 4;
  b.inputs = {3};
  b.outputs = {6};
  b.values = {1, 2, 3, 4, 5, 6, 7, 8};
  REQUIRE(shard->store_rows(encode_row_block(b)));
  CHECK(floats(*shard->read_rows(3, 4, false)) == std::vector<float>{1, 2, 3, 4});
  CHECK(floats(*shard->read_rows(6, 7, true)) == std::vector<float>{5, 6, 7, 8});
  b.first_column = 0;
  auto other = shard->store_rows(encode_row_block(b));
  REQUIRE_FALSE(other);
  CHECK(other.error().find("columns [0, 4)") != std::string::npos);
  b.first_column = 4;
  b.inputs = {3};
  b.outputs = {vocab + 5};
  b.values = {9, 9, 9, 9, 9, 9, 9, 9};
  CHECK_FALSE(shard->store_rows(encode_row_block(b)));
  CHECK(floats(*shard->read_rows(3, 4, false)) == std::vector<float>{1, 2, 3, 4}); // nothing written
}

TEST_CASE("a row shard serves a visit batch to its own rows and answers queries on the words it holds",
          "[shard_services]") {
  auto store = std::make_shared<shard_store>(word_rows{0, 2}, dim, vocab, seed);
  row_service shard(store, slice_header{0, 2, dim, 0, dim, store->held_rows(), crc, 0}, seed, counts(),
                    negatives_mode::bns);
  CHECK(shard.index() == 0);
  CHECK(shard.partitions() == 2);
  for (uint32_t w = 0; w < vocab; w += 2)
    for (uint32_t j = 0; j < dim; ++j)
      shard.rows.output(w)[j] = 0.01f * static_cast<float>((w + j) % 5);
  visit_batch b;
  b.peer = 0;
  b.input_words = {1};
  b.visit_input = {0};
  b.visit_positive = {2};
  b.visit_noise = {1};
  std::vector<float> inputs(dim, 0.1f);
  const auto before = floats(*shard.read_rows(0, vocab, true));
  auto reply = shard.serve(encode_visit_batch(b, 5, 0.025f, 1, inputs.data(), dim));
  REQUIRE(reply);
  CHECK(floats(*shard.read_rows(0, vocab, true)) != before); // its output rows trained
  b.visit_positive = {3};                                    // not this shard's
  auto refused = shard.serve(encode_visit_batch(b, 5, 0.025f, 1, inputs.data(), dim));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().find("word 3 is not partition 0's") != std::string::npos);

  auto norms = floats(*shard.norms({2, 3}));
  CHECK(norms[0] > 0);
  CHECK(norms[1] == 0); // word 3 is the other shard's
  std::vector<float> q(dim, 1.0f);
  auto similar = floats(*shard.similar(float_bytes(q)));
  REQUIRE(similar.size() == 1 + 2 * vocab);
  CHECK(similar[1 + 3] == 0);
  CHECK(similar[1 + vocab + 2] == Approx(norms[0]));
  CHECK_FALSE(shard.similar(float_bytes({1.0f})));
  minibatch share = sample_batch();
  CHECK_FALSE(shard.check_share(share)); // input words 1, 5, 9 are shard 1's
  share.inputs = {0, 4, 8};
  CHECK(shard.check_share(share));
}

} // namespace shard_services_test

namespace shard_services_test {

// The learner's column step and the shards' column lanes, wired by hand as
// the actors wire them: a model split over two shards trains exactly as the
// same model whole on one.
TEST_CASE("a column step over two column shards trains as one whole shard", "[shard_services]") {
  auto noise = gridvec::test::zipf_noise(vocab);
  auto make = [&](uint32_t index, uint32_t count) {
    auto store = std::make_shared<shard_store>(index, count, dim, vocab, seed, noise);
    const auto slice = store->slice();
    return std::make_shared<column_service>(
      store, slice_header{index, count, dim, slice.first, slice.width, vocab, crc, 0}, seed);
  };
  auto train = [&](std::vector<std::shared_ptr<column_service>> shards) {
    std::vector<column_lane> lanes;
    for (auto& s : shards)
      lanes.emplace_back(s);
    column_step step(0);
    batch_group g;
    for (uint64_t i = 0; i < 3; ++i) {
      auto b = std::make_shared<batch_state>();
      b->mb = sample_batch();
      b->mb.seed += i;
      g.batches.push_back(b);
    }
    std::vector<wire_bytes> adjusts;
    for (int round = 0; round < 4; ++round) {
      const auto dotprods = step.dotprods(g);
      for (auto& lane : lanes) {
        auto replies = lane.step(adjusts, dotprods);
        REQUIRE(replies);
        REQUIRE(step.add_replies(g, *replies));
      }
      adjusts.clear();
      for (auto& b : g.batches) {
        weight_result w;
        adjusts.push_back(step.adjust(*b, 0.05f, w));
        CHECK(w.pairs == b->mb.pairs());
      }
    }
    for (auto& lane : lanes)
      REQUIRE(lane.step(adjusts, {}));
    // The model's input and output rows, whole, in column order.
    std::vector<float> model(2 * size_t{vocab} * dim);
    for (const auto& s : shards) {
      const auto slice = s->store().slice();
      const auto u = floats(*s->read_rows(0, vocab, false)), v = floats(*s->read_rows(0, vocab, true));
      for (uint32_t w = 0; w < vocab; ++w)
        for (uint32_t j = 0; j < slice.width; ++j) {
          model[size_t{w} * dim + slice.first + j] = u[size_t{w} * slice.width + j];
          model[(size_t{vocab} + w) * dim + slice.first + j] = v[size_t{w} * slice.width + j];
        }
    }
    return model;
  };
  const auto split = train({make(0, 2), make(1, 2)});
  const auto whole = train({make(0, 1)});
  REQUIRE(split.size() == whole.size());
  double most = 0;
  for (size_t i = 0; i < split.size(); ++i)
    most = std::max(most, static_cast<double>(std::abs(split[i] - whole[i])));
  CHECK(most < 1e-5);
  CHECK(std::any_of(whole.begin(), whole.end(), [](float x) { return x != 0; }));
  CHECK(train({make(0, 1)}) == whole); // and deterministic
}

} // namespace shard_services_test
