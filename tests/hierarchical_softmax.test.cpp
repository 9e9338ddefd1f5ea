// Hierarchical softmax (-hs 1): the Huffman tree as word2vec.c builds it,
// and training with it on both paths against a word2vec.c-style loop
// written out here (its own targets, labels and skips, in double).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include "src/model/shard_store.hpp"
#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/huffman_tree.hpp"
#include "src/sgns/local_trainer.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/sgns/sgns.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::max_abs_diff;

namespace {

std::vector<uint64_t> zipf_counts(uint32_t vocab) {
  std::vector<uint64_t> counts(vocab);
  for (uint32_t i = 0; i < vocab; ++i)
    counts[i] = 1000 / (i + 1) + 1;
  return counts;
}

std::string code_string(const huffman_tree& t, uint32_t w) {
  std::string s;
  for (uint32_t d = 0; d < t.length(w); ++d)
    s += t.codes(w)[d] ? '1' : '0';
  return s;
}

} // namespace

TEST_CASE("huffman_tree: word2vec.c's codes and points on a hand-worked example", "[hs]") {
  // Joins: {3,2} -> node 0 (count 3); then node 0 before word 1 (equal
  // counts take the inner node) -> node 1 (6); then word 0 and node 1 ->
  // node 2, the root (11). The second of each join gets code 1.
  auto t = huffman_tree::from_counts({5, 3, 2, 1});
  REQUIRE(t.words() == 4u);
  REQUIRE(t.inner_nodes() == 3u);
  CHECK(code_string(t, 0) == "0");
  CHECK(code_string(t, 1) == "11");
  CHECK(code_string(t, 2) == "101");
  CHECK(code_string(t, 3) == "100");
  CHECK(std::vector<uint32_t>(t.points(0), t.points(0) + 1) == std::vector<uint32_t>{2});
  CHECK(std::vector<uint32_t>(t.points(1), t.points(1) + 2) == std::vector<uint32_t>{2, 1});
  CHECK(std::vector<uint32_t>(t.points(2), t.points(2) + 3) == std::vector<uint32_t>{2, 1, 0});
  CHECK(std::vector<uint32_t>(t.points(3), t.points(3) + 3) == std::vector<uint32_t>{2, 1, 0});
  CHECK(t.mean_length() == Approx((5 * 1 + 3 * 2 + 2 * 3 + 1 * 3) / 11.0));
}

TEST_CASE("huffman_tree: a prefix code of optimal length, paths from the root", "[hs]") {
  for (uint32_t vocab : {2u, 3u, 17u, 1000u}) {
    INFO("vocab " << vocab);
    const auto counts = zipf_counts(vocab);
    auto t = huffman_tree::from_counts(counts);
    REQUIRE(t.inner_nodes() == vocab - 1);
    std::set<std::string> codes;
    double kraft = 0, weighted = 0;
    for (uint32_t w = 0; w < vocab; ++w) {
      REQUIRE(t.length(w) >= 1u);
      CHECK(t.points(w)[0] == vocab - 2); // the root
      for (uint32_t d = 0; d < t.length(w); ++d)
        CHECK(t.points(w)[d] < vocab - 1);
      codes.insert(code_string(t, w));
      kraft += std::ldexp(1.0, -static_cast<int>(t.length(w)));
      weighted += static_cast<double>(counts[w]) * t.length(w);
    }
    // Sorted, a prefix of a code would sit right before it.
    for (auto it = codes.begin(); std::next(it) != codes.end(); ++it)
      CHECK(std::next(it)->compare(0, it->size(), *it) != 0);
    CHECK(codes.size() == vocab);
    CHECK(kraft == Approx(1.0)); // a full binary tree
    // Optimal: the cost every Huffman tree shares, summed joins of a heap.
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> heap(counts.begin(), counts.end());
    double optimal = 0;
    while (heap.size() > 1) {
      uint64_t a = heap.top();
      heap.pop();
      uint64_t b = heap.top();
      heap.pop();
      optimal += static_cast<double>(a + b);
      heap.push(a + b);
    }
    CHECK(weighted == Approx(optimal));
  }
  CHECK(huffman_tree::from_counts({7}).inner_nodes() == 0u);
  CHECK(huffman_tree::from_counts({7}).length(0) == 0u);
}

TEST_CASE("minibatch: -hs 1 targets and labels follow the Huffman path", "[hs]") {
  auto t = huffman_tree::from_counts({5, 3, 2, 1});
  minibatch mb;
  mb.hierarchical = true;
  mb.tree = &t;
  mb.inputs = {0, 1};
  mb.outputs = {2, 0};
  mb.negatives = 0;
  CHECK(mb.dot_count() == 3u + 1u);
  std::vector<uint8_t> labels;
  mb.labels(labels);
  // Word 2's code 101, then word 0's code 0; label = 1 - code.
  CHECK(labels == std::vector<uint8_t>{target_label::node_code1, target_label::node_code0, target_label::node_code1,
                                       target_label::node_code0});
  mb.negatives = 2; // both, as word2vec.c -hs 1 -negative 2
  CHECK(mb.dot_count() == 4u + 2 * 3u);
  mb.labels(labels);
  CHECK(labels.size() == 10u);
  CHECK(labels[3] == target_label::positive);
  CHECK(labels[4] == target_label::noise);
}

TEST_CASE("target_weights: an inner node past +-6 is skipped, a noise word clipped", "[hs]") {
  const float alpha = 0.1f;
  const float dots[] = {7.0f, -7.0f, 7.0f, -7.0f, 0.0f};
  const uint8_t labels[] = {target_label::node_code0, target_label::node_code1, target_label::noise,
                            target_label::positive, target_label::node_code1};
  float w[5];
  auto r = target_weights(dots, labels, 5, alpha, w);
  CHECK(w[0] == 0.0f);
  CHECK(w[1] == 0.0f);
  CHECK(w[2] == Approx(-alpha));
  CHECK(w[3] == Approx(alpha));
  CHECK(w[4] == Approx(-0.5f * alpha)); // label 0 (code 1) at f = 0
  CHECK(r.loss > 0);
}

namespace {

using stores_t = std::vector<std::shared_ptr<shard_store>>;

struct hs_model {
  uint32_t vocab, dim;
  std::vector<double> u, v; // v: words, then inner nodes (as the stores)
  double* urow(uint32_t w) { return u.data() + size_t{w} * dim; }
  double* vrow(uint32_t r) { return v.data() + size_t{r} * dim; }
};

stores_t make_stores(uint32_t shards, uint32_t dim, uint32_t vocab, std::shared_ptr<const huffman_tree> tree) {
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(zipf_counts(vocab)));
  stores_t out;
  for (uint32_t s = 0; s < shards; ++s) {
    out.push_back(std::make_shared<shard_store>(s, shards, dim, vocab, 3, noise, tree));
    auto& st = *out.back();
    REQUIRE(st.output_rows() == 2 * vocab - 1);
    for (uint32_t r = 0; r < st.output_rows(); ++r) // nonzero, so every dot product matters
      for (uint32_t j = 0; j < st.slice().width; ++j)
        st.output_row(r)[j] = 0.3f * std::sin(0.7f * static_cast<float>(r * dim + st.slice().first + j));
  }
  return out;
}

hs_model gather_hs(const stores_t& stores, uint32_t dim, uint32_t vocab) {
  const uint32_t rows = stores[0]->output_rows();
  hs_model m{vocab, dim, std::vector<double>(size_t{vocab} * dim), std::vector<double>(size_t{rows} * dim)};
  for (const auto& st : stores)
    for (uint32_t j = 0; j < st->slice().width; ++j) {
      for (uint32_t w = 0; w < vocab; ++w)
        m.urow(w)[st->slice().first + j] = st->input_row(w)[j];
      for (uint32_t r = 0; r < rows; ++r)
        m.vrow(r)[st->slice().first + j] = st->output_row(r)[j];
    }
  return m;
}

// word2vec.c's inner loop, pair by pair: for each node d on the output
// word's path, f = h . syn1[point[d]], skipped if |f| >= 6, else
// g = (1 - code[d] - sigmoid(f)) alpha; then negative sampling with the
// noise words the shards draw from the seed (the same rng sequence).
// The sigmoid is word2vec.c's table (table_sigmoid), as in gridvec.
void word2vec_c_train(hs_model& m, const huffman_tree& t, const shard_store& noise, const minibatch& mb, float alpha) {
  rng r(mb.seed);
  size_t in = 0, out = 0;
  for (size_t e = 0; e < mb.examples(); ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    for (uint32_t o = 0; o < n_out; ++o) {
      const uint32_t word = mb.outputs[out + o];
      std::vector<double> h(m.dim, 0.0), err(m.dim, 0.0);
      for (uint32_t i = 0; i < n_in; ++i)
        for (uint32_t j = 0; j < m.dim; ++j)
          h[j] += m.urow(mb.inputs[in + i])[j] / n_in;
      auto step = [&](uint32_t row, double label, bool skip_saturated) {
        double f = 0;
        for (uint32_t j = 0; j < m.dim; ++j)
          f += h[j] * m.vrow(row)[j];
        double g;
        if (f >= 6 || f <= -6)
          g = skip_saturated ? 0.0 : (label - (f > 0 ? 1.0 : 0.0)) * alpha;
        else
          g = (label - table_sigmoid(static_cast<float>(f))) * alpha;
        for (uint32_t j = 0; j < m.dim; ++j) {
          err[j] += g * m.vrow(row)[j];
          m.vrow(row)[j] += g * h[j];
        }
      };
      for (uint32_t d = 0; d < t.length(word); ++d)
        step(m.vocab + t.points(word)[d], 1.0 - t.codes(word)[d], true);
      if (mb.negatives > 0) {
        step(word, 1.0, false);
        for (uint32_t n = 0; n < mb.negatives; ++n)
          step(noise.draw_negative(r, word), 0.0, false);
      }
      for (uint32_t i = 0; i < n_in; ++i)
        for (uint32_t j = 0; j < m.dim; ++j)
          m.urow(mb.inputs[in + i])[j] += err[j];
    }
    in += n_in;
    out += n_out;
  }
}

// Every row of the stores within `tolerance` of the reference's.
void check_close(const stores_t& stores, const hs_model& expect, double tolerance) {
  auto after = gather_hs(stores, expect.dim, expect.vocab);
  CHECK(max_abs_diff(after.u, expect.u) < tolerance);
  CHECK(max_abs_diff(after.v, expect.v) < tolerance);
}

minibatch make_batch(uint64_t seed, uint32_t vocab, bool cbow, uint32_t negatives, const huffman_tree& t,
                     size_t sentences = 5) {
  rng r(seed);
  example_builder b(3, cbow);
  minibatch mb;
  mb.seed = seed * 7919 + 1;
  mb.negatives = negatives;
  mb.mean_inputs = cbow;
  mb.hierarchical = true;
  mb.tree = &t;
  gridvec::test::add_random_sentences(r, b, vocab, sentences, 8, mb);
  return mb;
}

} // namespace

TEST_CASE("hierarchical softmax on the fused path is word2vec.c's update, alone or with negative sampling", "[hs]") {
  const uint32_t vocab = 40, dim = 21;
  auto tree = std::make_shared<const huffman_tree>(huffman_tree::from_counts(zipf_counts(vocab)));
  for (uint32_t negatives : {0u, 3u})
    for (bool cbow : {false, true})
      for (uint32_t shards : {1u, 3u}) {
        INFO("-negative " << negatives << (cbow ? " CBOW" : " skip-gram") << ", " << shards << " shards");
        auto stores = make_stores(shards, dim, vocab, tree);
        hs_model expect = gather_hs(stores, dim, vocab);
        local_trainer trainer(stores);
        for (uint64_t round = 1; round <= 10; ++round) {
          auto mb = make_batch(round, vocab, cbow, negatives, *tree);
          REQUIRE(stores[0]->validate(mb));
          word2vec_c_train(expect, *tree, *stores[0], mb, 0.05f);
          auto got = trainer.train(mb, 0.05f);
          CHECK(got.pairs == mb.pairs());
          CHECK_FALSE(got.diverged);
        }
        // Float against double: a dot product on the other side of a step
        // of the sigmoid table (0.012 wide) changes its weight by up to
        // alpha * 0.003 and the rows it touches by about 1e-4 (a layout or
        // label error shows as 1e-2 and more).
        check_close(stores, expect, 3e-4);
      }
}

TEST_CASE("hierarchical softmax through dotprod and adjust across shards equals one pair at a time", "[hs]") {
  // One pair per minibatch: the end-of-call update is then the per-pair
  // one (a path's nodes are distinct), so the protocol must match it.
  const uint32_t vocab = 40, dim = 21;
  auto tree = std::make_shared<const huffman_tree>(huffman_tree::from_counts(zipf_counts(vocab)));
  for (uint32_t shards : {1u, 3u}) {
    INFO(shards << " shards");
    auto stores = make_stores(shards, dim, vocab, tree);
    hs_model expect = gather_hs(stores, dim, vocab);
    std::vector<adjust_scratch> scratch;
    for (const auto& s : stores)
      scratch.emplace_back(s->slice().width);
    size_t trained = 0;
    for (uint64_t round = 1; round <= 30; ++round) {
      minibatch mb;
      mb.seed = round;
      mb.hierarchical = true;
      mb.negatives = 0;
      mb.inputs = {static_cast<uint32_t>(round % vocab)};
      mb.outputs = {static_cast<uint32_t>((round * 7 + 3) % vocab)};
      if (mb.inputs == mb.outputs)
        continue;
      std::vector<float> sum, part, hidden, weights;
      for (auto& s : stores) {
        REQUIRE(s->validate(mb));
        part.resize(mb.dot_count());
        s->dotprod(mb, part.data(), hidden);
        sum.resize(part.size(), 0.0f);
        for (size_t k = 0; k < part.size(); ++k)
          sum[k] += part[k];
      }
      std::vector<uint8_t> labels;
      mb.labels(labels);
      weights.resize(sum.size());
      target_weights(sum.data(), labels.data(), sum.size(), 0.05f, weights.data());
      for (size_t s = 0; s < stores.size(); ++s)
        stores[s]->adjust(mb, weights.data(), scratch[s]);
      word2vec_c_train(expect, *tree, *stores[0], mb, 0.05f);
      ++trained;
    }
    REQUIRE(trained > 20);
    check_close(stores, expect, 1e-4);
  }
}

TEST_CASE("shard_store: -hs 1 minibatches only where the job trains with it", "[hs]") {
  const uint32_t vocab = 10, dim = 4;
  auto tree = std::make_shared<const huffman_tree>(huffman_tree::from_counts(zipf_counts(vocab)));
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(zipf_counts(vocab)));
  shard_store plain(0, 1, dim, vocab, 1, noise);
  shard_store hs(0, 1, dim, vocab, 1, noise, tree);
  CHECK(plain.output_rows() == vocab);
  CHECK(hs.output_rows() == 2 * vocab - 1);
  CHECK(hs.bytes() == (vocab + 2 * vocab - 1) * dim * sizeof(float));
  minibatch mb;
  mb.inputs = {1};
  mb.outputs = {2};
  mb.hierarchical = true;
  CHECK_FALSE(plain.validate(mb));
  REQUIRE(hs.validate(mb));
  CHECK(mb.tree == hs.tree());
  mb.hierarchical = false;
  CHECK_FALSE(hs.validate(mb));
}
