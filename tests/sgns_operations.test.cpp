// gridvec's SGNS model is a table like any other: a dense, columns-layout
// matrix whose operations sgns.dotprod and sgns.adjust are what the shard
// lanes run (src/model/sgns_operations.hpp). Here they run through the
// table service, from real Cap'n Proto bytes, and must give exactly what
// the store computes directly.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <vector>

#include "src/formats/wire.hpp"
#include "src/model/sgns_operations.hpp"
#include "src/table/table_service.hpp"
#include <gridvec/core/table_wire.hpp>
#include "src/util/rng.hpp"
#include "tests/table_test_util.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::ask;
using gridvec::test::error_of;

namespace {

constexpr uint32_t vocab = 50, dim = 10;

std::shared_ptr<const noise_sampler> zipf_noise() {
  std::vector<uint64_t> counts(vocab);
  for (uint32_t i = 0; i < vocab; ++i)
    counts[i] = 1000 / (i + 1) + 1;
  return std::make_shared<const noise_sampler>(alias_sampler::from_counts(counts));
}

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
  auto noise = zipf_noise();
  shard_store store(1, 3, dim, vocab, 5, noise);
  const table_slice& model = *store.model();
  CHECK(model.spec().kind == table_kind::matrix);
  CHECK(model.spec().layout == table_layout::columns);
  CHECK(model.spec().dense);
  CHECK(model.rows() == 2 * vocab);
  CHECK(model.first_column() == store.slice().first);
  CHECK(model.width() == store.slice().width);
  CHECK(shard_store::of(model) == &store);
  // The table's rows are the store's vectors, not a copy.
  CHECK(model.find(7) == store.input_row(7));
  CHECK(model.find(vocab + 7) == store.output_row(7));
  table_slice other{model.spec(), 1, 3};
  CHECK(shard_store::of(other) == nullptr);
}

TEST_CASE("sgns.dotprod and sgns.adjust through the table service equal the store's own", "[sgns_operations]") {
  auto noise = zipf_noise();
  // Two identical shards: one trained directly, one through table requests.
  shard_store direct(1, 2, dim, vocab, 5, noise);
  auto served = std::make_shared<shard_store>(1, 2, dim, vocab, 5, noise);
  for (uint32_t w = 0; w < vocab; ++w)
    for (uint32_t j = 0; j < direct.slice().width; ++j) // v nonzero, so the dots are
      direct.output_row(w)[j] = served->output_row(w)[j] = 0.01f * static_cast<float>((w * 7 + j) % 13);
  table_service service{1, 2, ""};
  REQUIRE(service.adopt(served->model()));

  minibatch mb = sample_batch();
  REQUIRE(direct.validate(mb));
  std::vector<float> dots(mb.dot_count()), hidden;
  direct.dotprod(mb, dots.data(), hidden);

  auto reply = ask(service, encode_table_call("sgns", "sgns.dotprod", encode_dotprod_request(mb)));
  REQUIRE(reply.what == table_reply::kind::result);
  uint32_t shard = 9;
  std::vector<float> served_dots;
  REQUIRE(decode_dotprod_reply(reply.result, shard, served_dots));
  CHECK(shard == 1);
  CHECK(served_dots == dots);

  std::vector<float> weights(mb.dot_count());
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = 0.05f * static_cast<float>(i % 3) - 0.04f;
  adjust_scratch scratch(direct.slice().width);
  direct.adjust(mb, weights.data(), scratch);
  reply =
    ask(service, encode_table_call("sgns", "sgns.adjust", encode_adjust_request(mb, weights.data(), weights.size())));
  REQUIRE(reply.what == table_reply::kind::result);
  uint32_t pairs = 0;
  REQUIRE(decode_adjust_reply(reply.result, shard, pairs));
  CHECK(pairs == mb.pairs());
  const size_t width = direct.slice().width;
  CHECK(std::memcmp(direct.input_data(), served->input_data(), vocab * width * sizeof(float)) == 0);
  CHECK(std::memcmp(direct.output_data(), served->output_data(), vocab * width * sizeof(float)) == 0);

  // The generic table API reads the same model: row w is u_w, row V + w is v_w.
  reply = ask(service, encode_table_keys(table_op::get, "sgns", std::vector<uint64_t>{7, vocab + 3}));
  REQUIRE(reply.what == table_reply::kind::floats);
  CHECK(std::vector<float>(reply.floats.begin(), reply.floats.begin() + width) ==
        std::vector<float>(direct.input_row(7), direct.input_row(7) + width));
  CHECK(std::vector<float>(reply.floats.begin() + width, reply.floats.end()) ==
        std::vector<float>(direct.output_row(3), direct.output_row(3) + width));
}

TEST_CASE("the SGNS operations refuse bad requests with one line and change nothing", "[sgns_operations]") {
  auto noise = zipf_noise();
  auto store = std::make_shared<shard_store>(0, 1, dim, vocab, 5, noise);
  table_service service{0, 1, ""};
  REQUIRE(service.adopt(store->model()));
  const std::vector<float> before(store->input_data(), store->input_data() + vocab * dim);

  CHECK(
    test::contains(error_of(service, encode_table_call("sgns", "sgns.dotprod", wire_bytes(10, 'x'))), "sgns.dotprod"));
  minibatch bad = sample_batch();
  bad.inputs[2] = vocab; // outside the vocabulary
  CHECK(test::contains(error_of(service, encode_table_call("sgns", "sgns.dotprod", encode_dotprod_request(bad))),
                       "out of range"));
  minibatch mb = sample_batch();
  std::vector<float> too_few(mb.dot_count() - 1, 0.1f);
  CHECK(test::contains(error_of(service, encode_table_call("sgns", "sgns.adjust",
                                                           encode_adjust_request(mb, too_few.data(), too_few.size()))),
                       "weights for"));
  CHECK(std::vector<float>(store->input_data(), store->input_data() + vocab * dim) == before);

  // On a table that is not a model.
  table_spec plain;
  plain.name = "plain";
  plain.kind = table_kind::matrix;
  plain.rows = 10;
  plain.dim = 4;
  REQUIRE(ask(service, encode_table_create(plain)).what == table_reply::kind::done);
  CHECK(test::contains(error_of(service, encode_table_call("plain", "sgns.dotprod", encode_dotprod_request(mb))),
                       "not an SGNS model"));
  // Adopting the model twice, or another shard's, is refused.
  CHECK_FALSE(service.adopt(store->model()));
  shard_store elsewhere(1, 2, dim, vocab, 5, noise);
  CHECK(test::contains(service.adopt(elsewhere.model()).error(), "shard 1 of 2"));
}
