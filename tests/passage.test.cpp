// passage: the stretch a learner trains, visited with a stride (the Network-efficient word2vec paper's
// interleaved minibatches) without ever letting a window cross a sentence.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "src/sgns/minibatch.hpp"
#include "src/corpus/passage.hpp"
#include "src/util/rng.hpp"

using namespace gridvec;

TEST_CASE("passage: stride 1 and one sentence is corpus order", "[passage]") {
  passage p;
  p.add_sentence({7, 8, 9});
  p.finish(1);
  for (size_t i = 0; i < 3; ++i) {
    REQUIRE(p.pending());
    auto ex = p.next();
    CHECK(ex.length == 3u);
    CHECK(ex.offset == i);
    CHECK(ex.sentence[ex.offset] == 7 + i);
  }
  CHECK_FALSE(p.pending());
}

TEST_CASE("passage: a stride visits every word once, consecutive ones stride apart", "[passage]") {
  passage p;
  p.add_sentence({0, 1, 2, 3});
  p.add_sentence({}); // subsampled away: adds nothing
  p.add_sentence({4, 5, 6, 7, 8, 9, 10});
  p.finish(3);
  CHECK(p.words() == 11u);
  std::vector<uint32_t> seen;
  while (p.pending()) {
    auto ex = p.next();
    // Positions are within their own sentence: 0..3 in the first, 4..10
    // (offsets 0..6) in the second.
    const uint32_t word = ex.sentence[ex.offset];
    CHECK(ex.length == (word < 4 ? 4u : 7u));
    CHECK(ex.sentence[0] == (word < 4 ? 0u : 4u));
    seen.push_back(word);
  }
  CHECK(seen == std::vector<uint32_t>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8});
  // Refilled, it starts over.
  p.clear();
  CHECK_FALSE(p.pending());
  p.add_sentence({1});
  p.finish(64);
  REQUIRE(p.pending());
  CHECK(p.next().sentence[0] == 1u);
  CHECK_FALSE(p.pending());
}

TEST_CASE("passage: windows never cross a sentence boundary", "[passage]") {
  passage p;
  p.add_sentence({1, 2});
  p.add_sentence({3, 4, 5});
  p.finish(2);
  example_builder builder(5, false);
  rng r(3);
  minibatch mb;
  while (p.pending()) {
    auto ex = p.next();
    builder.add(ex.sentence, ex.length, ex.offset, r, mb);
  }
  // Inputs 1, 2 (sentence 1) only ever see each other; 3, 4, 5 likewise.
  size_t out = 0;
  for (size_t e = 0; e < mb.examples(); ++e) {
    const bool first = mb.inputs[e] <= 2;
    for (uint32_t k = 0; k < mb.output_counts[e]; ++k, ++out)
      CHECK((mb.outputs[out] <= 2) == first);
  }
  CHECK(out == mb.outputs.size());
  CHECK(mb.examples() == 5u);
}
