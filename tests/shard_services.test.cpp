// Each shard layout's service (src/shard/) driven as plain C++, with no
// actor system: what a lane calls for every message it receives.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <vector>

#include "src/formats/split_wire.hpp"
#include "src/formats/wire.hpp"
#include "src/model/similarity.hpp"
#include "src/replicated/row_block.hpp"
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
