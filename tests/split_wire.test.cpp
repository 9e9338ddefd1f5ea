// The word split's messages (src/formats/split_wire.hpp) in real Cap'n
// Proto bytes: round trips, and one line for what a peer may get wrong.
#include <catch2/catch.hpp>

#include "src/formats/split_wire.hpp"

using namespace gridvec;

TEST_CASE("split wire: a learner's share round-trips with its learning rate and grouping", "[split_wire]") {
  minibatch mb;
  mb.seed = 77;
  mb.negatives = 5;
  mb.inputs = {4, 8};
  mb.outputs = {1, 2, 3};
  mb.output_counts = {2, 1};
  for (auto grouping : {visit_grouping::example, visit_grouping::skipgram}) {
    auto bytes = encode_split_train_request(mb, 0.0125f, grouping);
    minibatch got;
    visit_grouping g = visit_grouping::example;
    REQUIRE(decode_split_train_request(bytes, got, g));
    CHECK(g == grouping);
    CHECK(got.seed == 77);
    CHECK(got.negatives == 5);
    CHECK(got.inputs == mb.inputs);
    CHECK(got.outputs == mb.outputs);
    CHECK(got.output_counts == mb.output_counts);
    CHECK(got.alpha == 0.0125f);
  }
  minibatch got;
  visit_grouping g;
  auto s = decode_split_train_request(encode_split_train_request(mb, 3.0f, visit_grouping::example), got, g);
  REQUIRE(!s);
  CHECK(s.error() == "split train request: learning rate 3.000000 is outside [0, 1)");
  s = decode_split_train_request(wire_bytes(13, char{1}), got, g);
  REQUIRE(!s);
  CHECK(s.error().find("malformed split train request") == 0);

  split_train_result r;
  r.shard = 3;
  r.weights.loss = 12.5;
  r.weights.pairs = 40;
  r.weights.diverged = true;
  r.batches = 2;
  r.batch_bytes = 4096;
  split_train_result back;
  REQUIRE(decode_split_train_reply(encode_split_train_reply(r), back));
  CHECK(back.shard == 3);
  CHECK(back.weights.loss == 12.5);
  CHECK(back.weights.pairs == 40);
  CHECK(back.weights.diverged);
  CHECK(back.batches == 2);
  CHECK(back.batch_bytes == 4096);
}

TEST_CASE("split wire: a visit batch carries its input vectors, checked against the receiver's dimension",
          "[split_wire]") {
  visit_batch b;
  b.peer = 1;
  b.input_words = {5, 9};
  b.visit_input = {0, 1, 1};
  b.visit_positive = {3, visit_batch::no_positive, 7};
  b.visit_noise = {5, 2, 0};
  const std::vector<float> inputs{0.5f, -1, 2, 3, 4, 5};
  auto bytes = encode_visit_batch(b, 1234, 0.02f, 2, inputs.data(), 3);
  visit_message m;
  REQUIRE(decode_visit_batch(bytes, 3, m));
  CHECK(m.seed == 1234);
  CHECK(m.alpha == 0.02f);
  CHECK(m.source == 2);
  CHECK(m.batch.input_words == b.input_words);
  CHECK(m.batch.visit_input == b.visit_input);
  CHECK(m.batch.visit_positive == b.visit_positive);
  CHECK(m.batch.visit_noise == b.visit_noise);
  CHECK(m.inputs == inputs);
  // The same bytes to a shard of another dimension.
  auto s = decode_visit_batch(bytes, 4, m);
  REQUIRE(!s);
  CHECK(s.error() == "visit batch: 24 bytes of input vectors for 2 words of 4 floats");

  const std::vector<float> gradients{1, 2, 3, 4, 5, 6};
  weight_result w;
  w.loss = 2.5;
  w.pairs = 2;
  auto reply = encode_visit_reply(w, gradients.data(), gradients.size());
  weight_result wb;
  std::vector<float> gb;
  REQUIRE(decode_visit_reply(reply, 6, wb, gb));
  CHECK(wb.loss == 2.5);
  CHECK(wb.pairs == 2);
  CHECK(gb == gradients);
  s = decode_visit_reply(reply, 9, wb, gb);
  REQUIRE(!s);
  CHECK(s.error() == "visit reply: 24 bytes of gradients, expected 36");
}
