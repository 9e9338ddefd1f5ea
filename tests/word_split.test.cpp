// The Distributed negative sampling paper's word split without actors (src/model/word_split.hpp): the
// partitions' rows start where every layout starts, the source's plan
// visits the partitions each --negatives mode needs and puts the Distributed negative sampling paper's
// vector counts on the wire, a peer's update is the SGNS update, bad
// batches are refused, and training through the exchange learns.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <set>

#include "src/model/shard_store.hpp"
#include "src/model/word_split.hpp"
#include "src/sgns/noise_sampler.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::zipf_counts;

namespace {

std::vector<partition_rows> make_parts(uint32_t p, uint32_t dim, uint32_t vocab, uint64_t seed) {
  std::vector<partition_rows> parts;
  for (uint32_t k = 0; k < p; ++k)
    parts.emplace_back(k, word_layout{p}, dim, vocab, seed);
  return parts;
}

// One example per input word below `vocab` owned by `source`, each with
// `outputs` random output words: skip-gram pairs as the learner sends them.
minibatch pairs_of(uint32_t source, uint32_t p, uint32_t vocab, uint32_t examples, uint32_t outputs, uint32_t negatives,
                   rng& r) {
  minibatch mb;
  mb.seed = r.next();
  mb.negatives = negatives;
  for (uint32_t e = 0; e < examples; ++e) {
    mb.inputs.push_back(source + p * r.below((vocab - source + p - 1) / p));
    mb.input_counts.push_back(1);
    for (uint32_t o = 0; o < outputs; ++o)
      mb.outputs.push_back(r.below(vocab));
    mb.output_counts.push_back(outputs);
  }
  return mb;
}

} // namespace

TEST_CASE("word split: partitions hold every word once, starting as the column split does", "[word_split]") {
  const uint32_t vocab = 1003, dim = 16, p = 4;
  word_layout layout{p};
  uint32_t total = 0;
  for (uint32_t k = 0; k < p; ++k)
    total += layout.rows_of(k, vocab);
  CHECK(total == vocab);
  CHECK(layout.rows_of(7, 5) == 0u);
  auto parts = make_parts(p, dim, vocab, 42);
  auto noise = std::make_shared<const noise_sampler>(zipf_counts(vocab, 1e4));
  shard_store columns(0, 1, dim, vocab, 42, noise);
  for (uint32_t w = 0; w < vocab; ++w) {
    const auto& part = parts[layout.owner(w)];
    REQUIRE(part.owns(w));
    for (uint32_t j = 0; j < dim; ++j)
      REQUIRE(part.input(w)[j] == columns.input_row(w)[j]);
    for (uint32_t j = 0; j < dim; ++j)
      REQUIRE(part.output(w)[j] == 0.0f);
  }
}

TEST_CASE("word split: each --negatives mode visits what it should, and puts the Distributed negative sampling paper's "
          "vectors on the wire",
          "[word_split]") {
  const uint32_t vocab = 20000, p = 8, n = 5, source = 3;
  const auto counts = zipf_counts(vocab, 1e6);
  const noise_sampler noise(counts, {negatives_mode::bns, true, p});
  word_layout layout{p};
  rng r(7);
  // Single-pair examples with distinct inputs: nothing shared between
  // pairs, so the counts are per skip-gram as the seed gives them.
  minibatch mb;
  mb.seed = 1;
  mb.negatives = n;
  for (uint32_t e = 0; e < 2000; ++e) {
    mb.inputs.push_back(source + p * e);
    uint32_t out;
    do
      out = r.below(vocab);
    while (layout.owner(out) == source); // the output word is remote
    mb.outputs.push_back(out);
  }
  const double pairs = static_cast<double>(mb.pairs());
  for (auto mode : {negatives_mode::tns, negatives_mode::sns, negatives_mode::bns}) {
    rng draws(11);
    auto plan = plan_visits(mb, source, layout, mode, *noise.partition(source), draws);
    REQUIRE(plan);
    size_t positives = 0, noise_words = 0;
    std::set<uint32_t> peers;
    for (const auto& b : *plan) {
      peers.insert(b.peer);
      for (size_t v = 0; v < b.visits(); ++v) {
        if (b.visit_positive[v] != visit_batch::no_positive) {
          ++positives;
          CHECK(layout.owner(b.visit_positive[v]) == b.peer);
        }
        noise_words += b.visit_noise[v];
      }
    }
    CHECK(positives == mb.pairs());
    CHECK(noise_words == mb.pairs() * n);
    const double per_pair = static_cast<double>(vectors_on_wire(*plan, source)) / pairs;
    INFO(negatives_mode_name(mode) << ": " << per_pair << " vectors per skip-gram");
    switch (mode) {
      case negatives_mode::tns: CHECK(per_pair == 2.0); break; // the Distributed negative sampling paper: 2
      case negatives_mode::sns: // 4, less the noise partitions that are the source's or the positive's
        CHECK(per_pair <= 4.0);
        CHECK(per_pair > 2.0 + 2.0 * (1.0 - 2.0 / p) * 0.8);
        break;
      case negatives_mode::bns: // 2(N + 1), less partitions drawn twice or the source's own
        CHECK(per_pair <= 2.0 * (n + 1));
        CHECK(per_pair > 6.0);
        break;
    }
  }
  // A window's pairs share their input vector: it travels once per
  // partition, so tns sends fewer than 2 per skip-gram.
  rng more(3);
  auto windows = pairs_of(source, p, vocab, 500, 8, n, more);
  rng draws(5);
  auto plan = plan_visits(windows, source, layout, negatives_mode::tns, *noise.partition(source), draws);
  REQUIRE(plan);
  CHECK(static_cast<double>(vectors_on_wire(*plan, source)) / static_cast<double>(windows.pairs()) < 2.0);
}

TEST_CASE(
  "word split: --visits skipgram sends the Distributed negative sampling paper's vectors per skip-gram, windows or not",
  "[word_split]") {
  // Every skip-gram on its own: a visit to the positive's partition, then
  // bns one per noise word, sns one for all of them, tns none more. Of
  // those visits the ones to another partition cross: 2 vectors each, so
  // per skip-gram 2(N + 1), 4 and 2 times the share of remote partitions.
  const uint32_t vocab = 20000, p = 8, n = 5, source = 3;
  const auto counts = zipf_counts(vocab, 1e6);
  const noise_sampler noise(counts, {negatives_mode::bns, true, p});
  word_layout layout{p};
  rng more(3);
  auto windows = pairs_of(source, p, vocab, 2000, 8, n, more);
  const double pairs = static_cast<double>(windows.pairs());
  for (auto mode : {negatives_mode::tns, negatives_mode::sns, negatives_mode::bns}) {
    rng draws(5);
    auto plan = plan_visits(windows, source, layout, mode, *noise.partition(source), draws, visit_grouping::skipgram);
    REQUIRE(plan);
    size_t visits = 0, remote_visits = 0, inputs = 0;
    for (const auto& b : *plan) {
      visits += b.visits();
      inputs += b.input_words.size();
      if (b.peer != source)
        remote_visits += b.visits();
    }
    CHECK(inputs == visits); // no input shared between visits
    const double per_visit = mode == negatives_mode::bns ? n + 1 : mode == negatives_mode::sns ? 2 : 1;
    CHECK(static_cast<double>(visits) == pairs * per_visit);
    const double per_pair = static_cast<double>(vectors_on_wire(*plan, source)) / pairs;
    CHECK(static_cast<double>(vectors_on_wire(*plan, source)) == 2.0 * static_cast<double>(remote_visits));
    INFO(negatives_mode_name(mode) << ": " << per_pair << " vectors per skip-gram");
    // The remote share is about 1 - 1/p (masses and outputs spread evenly).
    CHECK(per_pair == Approx(2.0 * per_visit * (1.0 - 1.0 / p)).epsilon(0.1));
  }
}

TEST_CASE("word split: a peer applies the SGNS update to its rows and returns the input's error", "[word_split]") {
  const uint32_t vocab = 40, dim = 8, p = 2;
  auto parts = make_parts(p, dim, vocab, 9);
  const noise_sampler noise(zipf_counts(vocab, 1e3), {negatives_mode::tns, false, p});
  auto& peer = parts[1];
  for (uint32_t w = 1; w < vocab; w += 2)
    for (uint32_t j = 0; j < dim; ++j)
      peer.output(w)[j] = 0.05f * static_cast<float>((w + j) % 7) - 0.1f;
  visit_batch b;
  b.peer = 1;
  b.input_words = {4};
  b.visit_input = {0};
  b.visit_positive = {7};
  b.visit_noise = {3};
  REQUIRE(check_batch(peer, b));
  std::vector<float> h(parts[0].input(4), parts[0].input(4) + dim), grad(dim);
  // What the peer must do, by hand: the same noise words from the same
  // seed, weights alpha (label - sigmoid(f)), e += g v, v += g h.
  rng r(77);
  std::vector<uint32_t> targets{7};
  for (int i = 0; i < 3; ++i) {
    uint32_t w = noise.partition(1)->draw_own_word(r);
    while (w == 7)
      w = noise.partition(1)->draw_own_word(r);
    targets.push_back(w);
  }
  std::vector<std::vector<float>> v_after;
  std::vector<float> e(dim, 0.0f);
  std::vector<std::vector<float>> v(vocab);
  for (uint32_t w = 1; w < vocab; w += 2)
    v[w].assign(peer.output(w), peer.output(w) + dim);
  double loss = 0;
  for (size_t t = 0; t < targets.size(); ++t) {
    float f = 0;
    for (uint32_t j = 0; j < dim; ++j)
      f += h[j] * v[targets[t]][j];
    const float label = t == 0 ? 1.0f : 0.0f;
    const float g = 0.025f * (label - table_sigmoid(f));
    loss += t == 0 ? -std::log(1.0 / (1.0 + std::exp(-f))) : -std::log(1.0 / (1.0 + std::exp(f)));
    for (uint32_t j = 0; j < dim; ++j) {
      e[j] += g * v[targets[t]][j];
      v[targets[t]][j] += g * h[j];
    }
  }
  const auto w = serve_visits(peer, *noise.partition(1), b, h.data(), grad.data(), 77, 0.025f);
  CHECK(w.pairs == 1u);
  CHECK(w.loss == Approx(loss).epsilon(1e-2)); // measured through the sigmoid table
  for (uint32_t j = 0; j < dim; ++j)
    CHECK(grad[j] == Approx(e[j]).margin(1e-6));
  for (uint32_t t : targets)
    for (uint32_t j = 0; j < dim; ++j)
      CHECK(peer.output(t)[j] == Approx(v[t][j]).margin(1e-6));
}

TEST_CASE("word split: a bad batch or minibatch is refused with one line", "[word_split]") {
  const uint32_t vocab = 40, p = 2;
  auto parts = make_parts(p, 4, vocab, 1);
  visit_batch b;
  b.peer = 1;
  b.input_words = {0};
  b.visit_input = {0};
  b.visit_positive = {6}; // partition 0's
  b.visit_noise = {1};
  auto s = check_batch(parts[1], b);
  REQUIRE_FALSE(s);
  CHECK(s.error() == "word 6 is not partition 1's");
  b.visit_positive = {visit_batch::no_positive};
  b.visit_input = {3};
  CHECK_FALSE(check_batch(parts[1], b));
  b.visit_input = {0};
  b.visit_noise = {1001};
  CHECK_FALSE(check_batch(parts[1], b));
  b.visit_noise = {};
  CHECK_FALSE(check_batch(parts[1], b));
  b.visit_noise = {1};
  CHECK(check_batch(parts[1], b));

  const noise_sampler noise(zipf_counts(vocab, 1e3), {negatives_mode::tns, false, p});
  rng r(1);
  minibatch cbow;
  cbow.negatives = 2;
  cbow.mean_inputs = true;
  cbow.inputs = {0, 2};
  cbow.input_counts = {2};
  cbow.outputs = {5};
  auto plan = plan_visits(cbow, 0, word_layout{p}, negatives_mode::tns, *noise.partition(0), r);
  REQUIRE_FALSE(plan);
  CHECK(plan.error() == "the word split trains skip-gram with negative sampling only (not -cbow 1 or -hs 1)");
  minibatch foreign;
  foreign.negatives = 2;
  foreign.inputs = {3};
  foreign.outputs = {4};
  plan = plan_visits(foreign, 0, word_layout{p}, negatives_mode::tns, *noise.partition(0), r);
  REQUIRE_FALSE(plan);
  CHECK(plan.error() == "input word 3 belongs to partition 1, not 0");
}

TEST_CASE("word split: training through the exchange learns, in every mode", "[word_split]") {
  // Two topics of 20 words each: a word's context is its own topic. After
  // training, a word's input vector is closer to its topic's output
  // vectors than to the other topic's, and the loss has fallen.
  const uint32_t vocab = 40, dim = 16, p = 4;
  const auto counts = std::vector<uint64_t>(vocab, 100);
  for (auto mode : {negatives_mode::bns, negatives_mode::sns, negatives_mode::tns}) {
    auto parts = make_parts(p, dim, vocab, 3);
    const noise_sampler noise(counts, {mode, true, p});
    example_builder builder(3, false);
    rng r(19);
    split_traffic wire;
    double first_loss = 0, last_loss = 0;
    for (int round = 0; round < 300; ++round) {
      minibatch mb;
      mb.seed = r.next();
      mb.negatives = 5;
      for (int s = 0; s < 4; ++s) {
        const uint32_t topic = r.below(2);
        std::vector<uint32_t> sentence(10);
        for (auto& w : sentence)
          w = topic * 20 + r.below(20);
        for (size_t pos = 0; pos < sentence.size(); ++pos)
          builder.add(sentence, pos, r, mb);
      }
      const float alpha = 0.05f * (1.0f - static_cast<float>(round) / 300.0f) + 1e-4f;
      auto w = train_word_split(parts, noise, mb, mode, alpha, wire);
      REQUIRE(w);
      REQUIRE_FALSE(w->diverged);
      const double per_pair = w->loss / static_cast<double>(w->pairs);
      if (round < 10)
        first_loss += per_pair / 10;
      if (round >= 290)
        last_loss += per_pair / 10;
    }
    INFO(negatives_mode_name(mode) << ": loss " << first_loss << " -> " << last_loss);
    CHECK(last_loss < 0.8 * first_loss);
    CHECK(wire.vectors > 0);
    CHECK(wire.batches > 0);
    word_layout layout{p};
    int right = 0;
    for (uint32_t a = 0; a < vocab; ++a) {
      double same = 0, other = 0;
      for (uint32_t b = 0; b < vocab; ++b) {
        double f = 0;
        for (uint32_t j = 0; j < dim; ++j)
          f += parts[layout.owner(a)].input(a)[j] * parts[layout.owner(b)].output(b)[j];
        (a / 20 == b / 20 ? same : other) += f;
      }
      right += same > other;
    }
    CHECK(right == static_cast<int>(vocab));
  }
}
