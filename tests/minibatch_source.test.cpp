// A learner's minibatch source (src/sgns/minibatch_source.hpp) over real
// word-id files, with no actor system: every word trained once per epoch,
// minibatches that never mix parts, the same minibatches from the same seed,
// restart points that skip nothing, and -hs 1's pairs by path.
#include <catch2/catch.hpp>

#include <memory>

#include "src/corpus/id_stream.hpp"
#include "src/sgns/huffman_tree.hpp"
#include "src/sgns/minibatch_source.hpp"
#include "tests/test_util.hpp"

namespace minibatch_source_test {

using namespace gridvec;
using gridvec::test::sentences_t;
using gridvec::test::temp_dir;

constexpr uint32_t words_per_part = 10;

// Part p holds words [10p, 10p + 10) only, so a minibatch's part shows in its ids.
part_cursor write_part(const temp_dir& dir, uint32_t part) {
  sentences_t sentences;
  for (uint32_t s = 0; s < 30; ++s) {
    std::vector<uint32_t> sentence;
    for (uint32_t i = 0; i < 3 + s % 5; ++i)
      sentence.push_back(part * words_per_part + (s * 7 + i * 3) % words_per_part);
    sentences.push_back(sentence);
  }
  auto path = dir.file("part-" + std::to_string(part) + ".ids");
  const uint64_t words = gridvec::test::write_id_file(path, sentences);
  return part_cursor{part, path, words, 0, id_reader::first_offset, 0};
}

vocabulary_counts counts_of(uint32_t vocab) {
  vocabulary_counts c;
  c.counts.assign(vocab, 100);
  c.train_words = 100ull * vocab;
  return c;
}

train_options options() {
  train_options opt;
  opt.sample = 0; // every word kept
  opt.window = 2;
  opt.iter = 2;
  opt.minibatch = 8;
  opt.interleave = 4;
  opt.seed = 5;
  opt.parts_per_learner = 1; // every epoch of a part (with a work queue, one per assignment)
  return opt;
}

// Every minibatch the source gives, until it has no work.
std::vector<batch_state> drain(minibatch_source& source) {
  std::vector<batch_state> out;
  for (;;) {
    batch_state b;
    status read;
    source.fill(b, false, read);
    REQUIRE(read);
    if (b.mb.examples() == 0 && !source.has_work())
      return out;
    if (b.mb.examples() > 0)
      out.push_back(std::move(b));
  }
}

TEST_CASE("a minibatch source trains every word once per epoch, one part per minibatch", "[minibatch_source]") {
  temp_dir dir;
  const auto parts = std::vector<part_cursor>{write_part(dir, 0), write_part(dir, 1)};
  const auto opt = options();
  minibatch_source source(opt, 0, counts_of(2 * words_per_part), nullptr, example_form::centre_predicts_contexts);
  REQUIRE(source.walker().add(parts));
  const auto batches = drain(source);
  uint64_t trained = 0;
  for (const auto& b : batches) {
    trained += b.trained;
    REQUIRE(b.has_start);
    for (uint32_t w : b.mb.inputs)
      CHECK(w / words_per_part == b.start.part);
    CHECK(b.mb.examples() <= opt.minibatch);
    CHECK(b.mb.negatives == opt.negative);
  }
  CHECK(trained == (parts[0].words + parts[1].words) * opt.iter);
  CHECK_FALSE(source.has_work());
}

TEST_CASE("a minibatch source gives the same minibatches from the same seed and learner", "[minibatch_source]") {
  temp_dir dir;
  const auto part = write_part(dir, 0);
  auto run = [&](uint32_t learner) {
    minibatch_source source(options(), learner, counts_of(words_per_part), nullptr,
                            example_form::centre_predicts_contexts);
    REQUIRE(source.walker().add({part}));
    return drain(source);
  };
  const auto a = run(0), b = run(0), other = run(1);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].mb.seed == b[i].mb.seed);
    CHECK(a[i].mb.inputs == b[i].mb.inputs);
    CHECK(a[i].mb.outputs == b[i].mb.outputs);
  }
  CHECK(a.front().mb.seed != other.front().mb.seed);
}

TEST_CASE("a minibatch source's restart points and learning rate", "[minibatch_source]") {
  temp_dir dir;
  const auto part = write_part(dir, 0);
  const auto opt = options();
  minibatch_source source(opt, 0, counts_of(words_per_part), nullptr, example_form::centre_predicts_contexts);
  REQUIRE(source.walker().add({part}));
  status read;
  auto first = source.next_in_flight(1, 0, false, 7, read);
  REQUIRE(read);
  REQUIRE(first);
  CHECK(first->generation == 7);
  CHECK(source.alpha_for(*first) == Approx(opt.start_alpha()));
  REQUIRE(source.mid_sentence());
  // In flight, the first minibatch holds its part back to its passage's
  // start, and the window of one is full until it is retired.
  CHECK(source.in_flight().size() == 1);
  CHECK(source.safe_cursors().front().offset == first->start.offset);
  CHECK(source.next_in_flight(1, 0, false, 7, read) == nullptr);
  CHECK(source.next_in_flight(1, 1, false, 7, read) != nullptr); // one leaving with this one's message
  source.drop_in_flight();
  CHECK_FALSE(source.mid_sentence());
  REQUIRE(source.walker().reset({part}));
  first = source.next_in_flight(1, 0, false, 7, read);
  REQUIRE(first);
  source.retire(*first);
  CHECK(source.in_flight().empty());
  const trained_count trained = source.take_trained();
  CHECK(trained.pairs == first->mb.pairs());
  CHECK(trained.words == first->trained);
  CHECK_FALSE(source.has_untaken());
  // Pausing finishes the passage and starts no other: then nothing is in
  // the middle of a sentence, and with nothing in flight the restart point
  // is the part's read position.
  while (source.mid_sentence()) {
    batch_state b;
    source.fill(b, true, read);
    REQUIRE(read);
  }
  CHECK(source.next_in_flight(1, 0, true, 7, read) == nullptr);
  CHECK(source.safe_cursors().front().offset == source.walker().parts().front().offset);
  // Later minibatches learn at a lower rate, as word2vec's decays.
  auto later = drain(source);
  REQUIRE_FALSE(later.empty());
  CHECK(source.alpha_for(later.back()) < source.alpha_for(*first));
  CHECK_FALSE(source.has_work());
}

TEST_CASE(
  "skip-gram with -hs 1 in word2vec.c's direction where updates land pair by pair, the same windows a minibatch",
  "[minibatch_source]") {
  auto hs_opt = options();
  hs_opt.hs = true;
  CHECK(example_form_for(hs_opt, true) == example_form::contexts_predict_centre);
  CHECK(example_form_for(hs_opt, false) == example_form::centre_predicts_contexts); // the protocol path
  CHECK(example_form_for(options(), true) == example_form::centre_predicts_contexts);
  auto window_kernel = hs_opt;
  window_kernel.shared_negatives = 1;
  CHECK(example_form_for(window_kernel, true) == example_form::centre_predicts_contexts);
  auto cbow = hs_opt;
  cbow.cbow = true;
  CHECK(example_form_for(cbow, true) == example_form::cbow);

  temp_dir dir;
  const auto part = write_part(dir, 0);
  auto run = [&](bool pair_by_pair) {
    const auto counts = counts_of(words_per_part);
    auto tree = std::make_shared<const huffman_tree>(huffman_tree::from_counts(counts.counts));
    minibatch_source source(hs_opt, 0, counts, tree, example_form_for(hs_opt, pair_by_pair));
    REQUIRE(source.walker().add({part}));
    return drain(source);
  };
  const auto centre_in = run(false), contexts_in = run(true);
  // The same draws: the same windows in the same minibatches, each window's
  // contexts the inputs of its pairs and its centre their output.
  REQUIRE(centre_in.size() == contexts_in.size());
  for (size_t i = 0; i < contexts_in.size(); ++i) {
    const minibatch &a = centre_in[i].mb, &c = contexts_in[i].mb;
    CHECK(contexts_in[i].trained == centre_in[i].trained);
    CHECK(a.examples() <= options().minibatch);
    CHECK(a.output_counts.size() == a.examples());
    CHECK(c.input_counts.empty());
    CHECK(c.output_counts.empty());
    CHECK(c.inputs == a.outputs);
    CHECK(c.pairs() == a.pairs());
    size_t k = 0;
    for (size_t e = 0; e < a.examples(); ++e)
      for (uint32_t o = 0; o < a.output_counts[e]; ++o)
        CHECK(c.outputs[k++] == a.inputs[e]);
  }
}

} // namespace minibatch_source_test
