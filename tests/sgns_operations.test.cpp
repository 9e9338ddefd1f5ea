// A shard lane's two training calls (src/shard/column_service.hpp), from
// real Cap'n Proto request bytes to reply bytes, must give exactly what the
// store computes directly, and refuse bad requests without changing the
// model.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <vector>

#include "src/formats/wire.hpp"
#include "src/shard/column_service.hpp"
#include "src/util/rng.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;

namespace {

constexpr uint32_t vocab = 50, dim = 10;

minibatch sample_batch() {
  minibatch mb;
  mb.seed = 1234;
  mb.negatives = 5;
  mb.inputs = {1, 7, 7, 30, 49};
  mb.outputs = {2, 3, 0, 31, 48};
  return mb;
}

} // namespace

TEST_CASE("the SGNS model is a dense columns-layout table of input then output rows", "[sgns_operations]") {
  auto noise = gridvec::test::zipf_noise(vocab);
  shard_store store(1, 3, dim, vocab, 5, noise);
  const table_slice& model = *store.model();
  CHECK(model.spec().kind == table_kind::matrix);
  CHECK(model.spec().layout == table_layout::columns);
  CHECK(model.spec().dense);
  CHECK(model.rows() == 2 * vocab);
  CHECK(model.first_column() == store.slice().first);
  CHECK(model.width() == store.slice().width);
  // The table's rows are the store's vectors, not a copy.
  CHECK(model.find(7) == store.input_row(7));
  CHECK(model.find(vocab + 7) == store.output_row(7));
}

TEST_CASE("a lane's dotprod and adjust from request bytes equal the store's own", "[sgns_operations]") {
  auto noise = gridvec::test::zipf_noise(vocab);
  // Two identical shards: one trained directly, one from request bytes.
  shard_store direct(1, 2, dim, vocab, 5, noise);
  shard_store served(1, 2, dim, vocab, 5, noise);
  for (uint32_t w = 0; w < vocab; ++w)
    for (uint32_t j = 0; j < direct.slice().width; ++j) // v nonzero, so the dots are
      direct.output_row(w)[j] = served.output_row(w)[j] = 0.01f * static_cast<float>((w * 7 + j) % 13);
  sgns_buffers buffers{served.slice().width};

  minibatch mb = sample_batch();
  REQUIRE(direct.validate(mb));
  std::vector<float> dots(mb.dot_count()), hidden;
  direct.dotprod(mb, dots.data(), hidden);

  REQUIRE(decode_sgns_dotprod(served, encode_dotprod_request(mb), buffers.batch));
  wire_bytes reply = run_sgns_dotprod(served, buffers.batch, buffers);
  uint32_t shard = 9;
  std::vector<float> served_dots;
  REQUIRE(decode_dotprod_reply(reply, shard, served_dots));
  CHECK(shard == 1);
  CHECK(served_dots == dots);

  std::vector<float> weights(mb.dot_count());
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = 0.05f * static_cast<float>(i % 3) - 0.04f;
  adjust_scratch scratch(direct.slice().width);
  direct.adjust(mb, weights.data(), scratch);
  minibatch adjust_batch;
  std::vector<float> adjust_weights;
  REQUIRE(decode_sgns_adjust(served, encode_adjust_request(mb, weights.data(), weights.size()), adjust_batch,
                             adjust_weights));
  reply = run_sgns_adjust(served, adjust_batch, adjust_weights.data(), buffers);
  uint32_t pairs = 0;
  REQUIRE(decode_adjust_reply(reply, shard, pairs));
  CHECK(pairs == mb.pairs());
  const size_t width = direct.slice().width;
  CHECK(std::memcmp(direct.input_data(), served.input_data(), vocab * width * sizeof(float)) == 0);
  CHECK(std::memcmp(direct.output_data(), served.output_data(), vocab * width * sizeof(float)) == 0);
}

TEST_CASE("a lane's dotprod and adjust refuse bad requests with one line and change nothing", "[sgns_operations]") {
  auto noise = gridvec::test::zipf_noise(vocab);
  shard_store store(0, 1, dim, vocab, 5, noise);
  const std::vector<float> before(store.input_data(), store.input_data() + vocab * dim);
  minibatch into;
  std::vector<float> weights;

  CHECK_FALSE(decode_sgns_dotprod(store, wire_bytes(10, 'x'), into));
  minibatch bad = sample_batch();
  bad.inputs[2] = vocab; // outside the vocabulary
  auto refused = decode_sgns_dotprod(store, encode_dotprod_request(bad), into);
  REQUIRE_FALSE(refused);
  CHECK(test::contains(refused.error(), "out of range"));
  minibatch mb = sample_batch();
  std::vector<float> too_few(mb.dot_count() - 1, 0.1f);
  refused = decode_sgns_adjust(store, encode_adjust_request(mb, too_few.data(), too_few.size()), into, weights);
  REQUIRE_FALSE(refused);
  CHECK(test::contains(refused.error(), "weights for"));
  CHECK(std::vector<float>(store.input_data(), store.input_data() + vocab * dim) == before);
}
