#include <catch2/catch.hpp>

#include <capnp/message.h>
#include <capnp/serialize.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "schema/minibatch.capnp.h"
#include "src/util/rng.hpp"
#include "src/formats/capnp_bytes.hpp"
#include "src/formats/wire.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;

namespace {

minibatch sample_batch(bool cbow) {
  minibatch mb;
  mb.seed = 0xDEADBEEFCAFEBABEull;
  mb.negatives = 7;
  mb.mean_inputs = cbow;
  if (cbow) {
    mb.inputs = {1, 2, 3, 4, 5, 0xFFFFFFFEu};
    mb.input_counts = {4, 2};
    mb.outputs = {9, 10};
  } else {
    mb.inputs = {3, 0, 4000000000u};
    mb.outputs = {1, 2, 3, 4, 5, 6};
    mb.output_counts = {2, 3, 1};
  }
  return mb;
}

minibatch big_batch(size_t examples) {
  rng r(examples);
  minibatch mb;
  mb.seed = r.next();
  mb.negatives = 5;
  for (size_t e = 0; e < examples; ++e) {
    mb.inputs.push_back(r.below(1u << 30));
    uint32_t n = 1 + r.below(8);
    mb.output_counts.push_back(n);
    for (uint32_t k = 0; k < n; ++k)
      mb.outputs.push_back(r.below(1u << 30));
  }
  return mb;
}

void check_same(const minibatch& a, const minibatch& b) {
  CHECK(a.seed == b.seed);
  CHECK(a.negatives == b.negatives);
  CHECK(a.mean_inputs == b.mean_inputs);
  CHECK(a.hierarchical == b.hierarchical);
  CHECK(a.inputs == b.inputs);
  CHECK(a.input_counts == b.input_counts);
  CHECK(a.outputs == b.outputs);
  CHECK(a.output_counts == b.output_counts);
}

template <class List>
std::vector<uint32_t> list_of(List l) {
  std::vector<uint32_t> out;
  for (auto x : l)
    out.push_back(x);
  return out;
}

// Word-aligned copy of the bytes, for capnp's own reader.
std::vector<capnp::word> words_of(const wire_bytes& b) {
  REQUIRE(b.size() % sizeof(capnp::word) == 0);
  std::vector<capnp::word> w(b.size() / sizeof(capnp::word));
  std::memcpy(w.data(), b.data(), b.size());
  return w;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every decoder on the same bytes: none may throw; returns how many succeeded.
int decode_all(const wire_bytes& b) {
  int ok = 0;
  minibatch mb;
  std::vector<float> f;
  uint32_t x = 0, y = 0;
  std::vector<float> sum(3, 0.0f);
  ok += static_cast<bool>(decode_dotprod_request(b, mb));
  ok += static_cast<bool>(decode_dotprod_reply(b, x, f));
  ok += static_cast<bool>(accumulate_dotprod_reply(b, sum));
  ok += static_cast<bool>(decode_adjust_request(b, mb, f));
  ok += static_cast<bool>(decode_adjust_reply(b, x, y));
  return ok;
}

} // namespace

TEST_CASE("wire: dotprod request round trip", "[wire]") {
  auto hierarchical = sample_batch(true);
  hierarchical.hierarchical = true; // -hs 1: a flag; each side has the tree
  for (const auto& mb : {sample_batch(false), sample_batch(true), hierarchical, minibatch{}, big_batch(5000)}) {
    auto bytes = encode_dotprod_request(mb);
    CHECK(bytes.size() % 8 == 0u);
    minibatch out = sample_batch(true); // decoding replaces whatever was there
    out.input_counts = {1, 2, 3};
    REQUIRE(decode_dotprod_request(bytes, out));
    check_same(out, mb);

    // Real Cap'n Proto: capnp's own reader sees the same fields.
    auto words = words_of(bytes);
    capnp::FlatArrayMessageReader reader(kj::arrayPtr(words.data(), words.size()));
    auto batch = reader.getRoot<wire::DotprodRequest>().getBatch();
    CHECK(batch.getSeed() == mb.seed);
    CHECK(batch.getNegatives() == mb.negatives);
    CHECK(batch.getMeanInputs() == mb.mean_inputs);
    CHECK(batch.getHierarchical() == mb.hierarchical);
    CHECK(list_of(batch.getInputs()) == mb.inputs);
    CHECK(list_of(batch.getInputCounts()) == mb.input_counts);
    CHECK(list_of(batch.getOutputs()) == mb.outputs);
    CHECK(list_of(batch.getOutputCounts()) == mb.output_counts);
  }
}

TEST_CASE("wire: bytes built by capnp itself decode", "[wire]") {
  capnp::MallocMessageBuilder builder;
  auto b = builder.initRoot<wire::AdjustRequest>();
  auto batch = b.initBatch();
  batch.setSeed(99);
  batch.setNegatives(2);
  auto ins = batch.initInputs(2);
  ins.set(0, 5);
  ins.set(1, 6);
  auto outs = batch.initOutputs(2);
  outs.set(0, 7);
  outs.set(1, 8);
  auto w = b.initWeights(6);
  for (unsigned i = 0; i < 6; ++i)
    w.set(i, 0.5f * static_cast<float>(i));
  auto flat = capnp::messageToFlatArray(builder);
  auto chars = flat.asChars();
  wire_bytes bytes(chars.begin(), chars.end());

  minibatch mb;
  std::vector<float> weights;
  REQUIRE(decode_adjust_request(bytes, mb, weights));
  CHECK(mb.seed == 99u);
  CHECK(mb.negatives == 2u);
  CHECK_FALSE(mb.mean_inputs);
  CHECK(mb.inputs == std::vector<uint32_t>{5, 6});
  CHECK(mb.outputs == std::vector<uint32_t>{7, 8});
  CHECK(mb.input_counts.empty());
  CHECK(mb.output_counts.empty());
  CHECK(weights == std::vector<float>{0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 2.5f});
}

TEST_CASE("wire: dotprod reply round trip", "[wire]") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> dots{
    0.0f, -0.0f, 1.5f, -3.25e-7f, 1e30f, inf, -inf, std::numeric_limits<float>::denorm_min(), std::nanf("")};
  rng r(4);
  for (int i = 0; i < 1000; ++i)
    dots.push_back(r.uniform() - 0.5f);
  auto bytes = encode_dotprod_reply(17, dots.data(), dots.size());
  CHECK(bytes.size() % 8 == 0u);
  uint32_t shard = 0;
  std::vector<float> out{1, 2, 3};
  REQUIRE(decode_dotprod_reply(bytes, shard, out));
  CHECK(shard == 17u);
  REQUIRE(out.size() == dots.size());
  for (size_t i = 0; i < dots.size(); ++i)
    CHECK(same_bits(out[i], dots[i]));

  auto words = words_of(bytes);
  capnp::FlatArrayMessageReader reader(kj::arrayPtr(words.data(), words.size()));
  auto root = reader.getRoot<wire::DotprodReply>();
  CHECK(root.getShard() == 17u);
  REQUIRE(root.getDots().size() == dots.size());
  CHECK(root.getDots()[2] == 1.5f);

  // An empty reply too.
  auto empty = encode_dotprod_reply(3, nullptr, 0);
  REQUIRE(decode_dotprod_reply(empty, shard, out));
  CHECK(shard == 3u);
  CHECK(out.empty());
}

TEST_CASE("wire: adjust request round trip", "[wire]") {
  for (bool cbow : {false, true}) {
    auto mb = sample_batch(cbow);
    mb.alpha = 0.0125f;
    mb.staleness = 20;
    std::vector<float> weights(mb.dot_count());
    for (size_t i = 0; i < weights.size(); ++i)
      weights[i] = static_cast<float>(i) * 0.001f - 0.01f;
    auto bytes = encode_adjust_request(mb, weights.data(), weights.size());
    CHECK(bytes.size() % 8 == 0u);
    minibatch out;
    std::vector<float> w{42.0f};
    REQUIRE(decode_adjust_request(bytes, out, w));
    check_same(out, mb);
    CHECK(w == weights);
    CHECK(out.alpha == 0.0125f); // what the shard's refresh of stale weights needs
    CHECK(out.staleness == 20u);

    auto words = words_of(bytes);
    capnp::FlatArrayMessageReader reader(kj::arrayPtr(words.data(), words.size()));
    auto root = reader.getRoot<wire::AdjustRequest>();
    CHECK(root.getBatch().getSeed() == mb.seed);
    CHECK(list_of(root.getBatch().getOutputs()) == mb.outputs);
    REQUIRE(root.getWeights().size() == weights.size());
    CHECK(root.getWeights()[5] == weights[5]);
  }
  // A large one.
  auto mb = big_batch(3000);
  std::vector<float> weights(mb.dot_count(), 0.125f);
  auto bytes = encode_adjust_request(mb, weights.data(), weights.size());
  minibatch out;
  std::vector<float> w;
  REQUIRE(decode_adjust_request(bytes, out, w));
  check_same(out, mb);
  CHECK(w == weights);
}

TEST_CASE("wire: adjust reply round trip", "[wire]") {
  for (auto [s, p] : {std::pair<uint32_t, uint32_t>{0, 0}, {5, 1234}, {0xFFFFFFFFu, 0xFFFFFFFFu}}) {
    auto bytes = encode_adjust_reply(s, p);
    uint32_t shard = 1, pairs = 1;
    REQUIRE(decode_adjust_reply(bytes, shard, pairs));
    CHECK(shard == s);
    CHECK(pairs == p);
    auto words = words_of(bytes);
    capnp::FlatArrayMessageReader reader(kj::arrayPtr(words.data(), words.size()));
    CHECK(reader.getRoot<wire::AdjustReply>().getShard() == s);
    CHECK(reader.getRoot<wire::AdjustReply>().getPairs() == p);
  }
}

TEST_CASE("wire: accumulate_dotprod_reply", "[wire]") {
  std::vector<float> a{1.0f, 2.0f, 3.0f}, b{0.5f, -1.0f, 10.0f};
  std::vector<float> sum(3, 0.0f);
  REQUIRE(accumulate_dotprod_reply(encode_dotprod_reply(0, a.data(), 3), sum));
  REQUIRE(accumulate_dotprod_reply(encode_dotprod_reply(1, b.data(), 3), sum));
  CHECK(sum == std::vector<float>{1.5f, 1.0f, 13.0f});

  // A reply of the wrong length is refused and the sum left as it was.
  std::vector<float> four{1, 1, 1, 1};
  auto s = accumulate_dotprod_reply(encode_dotprod_reply(2, four.data(), 4), sum);
  REQUIRE_FALSE(s);
  INFO(s.error());
  CHECK(contains(s.error(), "4"));
  CHECK(contains(s.error(), "3"));
  CHECK(sum == std::vector<float>{1.5f, 1.0f, 13.0f});
  CHECK_FALSE(accumulate_dotprod_reply(encode_dotprod_reply(2, four.data(), 2), sum));
  CHECK_FALSE(accumulate_dotprod_reply(encode_dotprod_reply(2, nullptr, 0), sum));
  CHECK(sum == std::vector<float>{1.5f, 1.0f, 13.0f});
}

TEST_CASE("wire: malformed buffers fail without throwing", "[wire]") {
  auto mb = sample_batch(false);
  std::vector<float> weights(mb.dot_count(), 0.25f);
  std::vector<float> dots(24, 1.0f);
  const std::vector<wire_bytes> messages{encode_dotprod_request(mb), encode_dotprod_reply(1, dots.data(), dots.size()),
                                         encode_adjust_request(mb, weights.data(), weights.size()),
                                         encode_adjust_reply(1, 2)};

  SECTION("empty buffer") {
    wire_bytes empty;
    int ok = -1;
    REQUIRE_NOTHROW(ok = decode_all(empty));
    CHECK(ok == 0);
    minibatch out;
    auto s = decode_dotprod_request(empty, out);
    REQUIRE_FALSE(s);
    CHECK(contains(s.error(), "dotprod request"));
  }

  SECTION("size not a multiple of 8") {
    for (const auto& m : messages)
      for (size_t cut : {1u, 3u, 7u}) {
        wire_bytes shorter(m.begin(), m.end() - static_cast<long>(cut));
        int ok = -1;
        REQUIRE_NOTHROW(ok = decode_all(shorter));
        CHECK(ok == 0);
        wire_bytes longer = m;
        longer.resize(m.size() + cut, '\0');
        REQUIRE_NOTHROW(ok = decode_all(longer));
        CHECK(ok == 0);
      }
    minibatch out;
    wire_bytes odd = messages[0];
    odd.push_back('x');
    auto s = decode_dotprod_request(odd, out);
    REQUIRE_FALSE(s);
    INFO(s.error());
    CHECK(contains(s.error(), std::to_string(odd.size())));
  }

  SECTION("truncated at every word boundary") {
    for (size_t m = 0; m < messages.size(); ++m) {
      const auto& full = messages[m];
      for (size_t len = 0; len < full.size(); len += 8) {
        wire_bytes cut(full.begin(), full.begin() + static_cast<long>(len));
        INFO("message " << m << " cut to " << len << " of " << full.size() << " bytes");
        minibatch out;
        std::vector<float> f;
        uint32_t x = 0, y = 0;
        status s;
        REQUIRE_NOTHROW(s = m == 0   ? decode_dotprod_request(cut, out)
                            : m == 1 ? decode_dotprod_reply(cut, x, f)
                            : m == 2 ? decode_adjust_request(cut, out, f)
                                     : decode_adjust_reply(cut, x, y));
        CHECK_FALSE(s);
        int ok = -1;
        REQUIRE_NOTHROW(ok = decode_all(cut));
        CHECK(ok == 0);
      }
    }
  }

  SECTION("random garbage") {
    rng r(8);
    for (int i = 0; i < 2000; ++i) {
      wire_bytes garbage(8 * (1 + r.below(64)));
      for (auto& c : garbage)
        c = static_cast<char>(r.next());
      int ok = -1;
      REQUIRE_NOTHROW(ok = decode_all(garbage));
      CHECK(ok == 0);
    }
  }

  SECTION("corrupted bytes of valid messages never throw or crash") {
    // Some corruptions still parse (e.g. a changed seed); none may escape.
    for (const auto& m : messages)
      for (size_t i = 0; i < m.size(); ++i)
        for (int bits : {0x01, 0x10, 0x80, 0xFF}) {
          wire_bytes bad = m;
          bad[i] = static_cast<char>(bad[i] ^ bits);
          REQUIRE_NOTHROW(decode_all(bad));
        }
  }
}

TEST_CASE("wire: an adjust request with a learning rate that is not a number is refused", "[wire]") {
  for (float alpha : {std::nanf(""), -1.0f, std::numeric_limits<float>::infinity()}) {
    auto mb = sample_batch(false);
    mb.alpha = alpha;
    mb.staleness = 4;
    std::vector<float> weights(mb.dot_count(), 0.01f);
    auto bytes = encode_adjust_request(mb, weights.data(), weights.size());
    minibatch out;
    std::vector<float> w;
    auto s = decode_adjust_request(bytes, out, w);
    REQUIRE_FALSE(s);
    CHECK(s.error().find("learning rate") != std::string::npos);
  }
}

TEST_CASE("wire: a message built in its own bytes is capnp's own serialisation", "[wire]") {
  auto fill = [](capnp::MessageBuilder& builder, unsigned weights) {
    auto b = builder.initRoot<wire::AdjustRequest>();
    auto batch = b.initBatch();
    batch.setSeed(99);
    set_list(batch.initInputs(3), std::vector<uint32_t>{5, 6, 7});
    auto w = b.initWeights(weights);
    for (unsigned i = 0; i < weights; ++i)
      w.set(i, 0.25f * static_cast<float>(i));
  };
  capnp::MallocMessageBuilder reference;
  fill(reference, 1000);
  auto flat = capnp::messageToFlatArray(reference);
  const wire_bytes expected(flat.asChars().begin(), flat.asChars().end());
  // Room for it: one segment, written where it will travel, byte for byte capnp's.
  wire_message roomy(2000);
  fill(roomy.builder(), 1000);
  CHECK(roomy.finish() == expected);
  // Too little room: it grows into segments of its own and still decodes.
  wire_message tight(8);
  fill(tight.builder(), 1000);
  const wire_bytes grown = tight.finish();
  minibatch mb;
  std::vector<float> weights;
  REQUIRE(decode_adjust_request(grown, mb, weights));
  CHECK(mb.seed == 99u);
  CHECK(mb.inputs == std::vector<uint32_t>{5, 6, 7});
  REQUIRE(weights.size() == 1000);
  CHECK(weights[999] == 0.25f * 999);
}
