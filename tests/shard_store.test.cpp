#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/drawn_targets.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/util/rng.hpp"
#include "src/sgns/sgns.hpp"
#include "src/model/shard_store.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;
using gridvec::test::max_abs_diff;

using gridvec::test::zipf_noise;

namespace {

using owned_stores = std::vector<std::unique_ptr<shard_store>>;

owned_stores make_stores(uint32_t shards, uint32_t dim, uint32_t vocab, uint64_t seed,
                         const std::shared_ptr<const noise_sampler>& noise) {
  owned_stores out;
  for (uint32_t s = 0; s < shards; ++s)
    out.push_back(std::make_unique<shard_store>(s, shards, dim, vocab, seed, noise));
  return out;
}

// A deterministic value in [-1, 1) for (tag, word, global column).
float value_at(uint64_t tag, uint32_t w, uint32_t col) {
  uint64_t h = mix64(tag, uint64_t{w} * 1000003u + col);
  return static_cast<float>(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

// Sets every shard's part of u and v from value_at, scaled.
void set_vectors(owned_stores& stores, uint32_t vocab, float u_scale, float v_scale) {
  for (auto& st : stores) {
    const auto sl = st->slice();
    for (uint32_t w = 0; w < vocab; ++w)
      for (uint32_t j = 0; j < sl.width; ++j) {
        st->input_row(w)[j] = u_scale * value_at(1, w, sl.first + j);
        st->output_row(w)[j] = v_scale * value_at(2, w, sl.first + j);
      }
  }
}

// The full model, gathered from the shards: row-major vocab x dim.
struct full_model {
  uint32_t dim = 0;
  std::vector<double> u, v;
  double* urow(uint32_t w) { return u.data() + size_t{w} * dim; }
  double* vrow(uint32_t w) { return v.data() + size_t{w} * dim; }
};

full_model gather(const owned_stores& stores, uint32_t dim, uint32_t vocab) {
  full_model m;
  m.dim = dim;
  m.u.assign(size_t{vocab} * dim, 0);
  m.v.assign(size_t{vocab} * dim, 0);
  for (const auto& st : stores) {
    const auto sl = st->slice();
    for (uint32_t w = 0; w < vocab; ++w)
      for (uint32_t j = 0; j < sl.width; ++j) {
        m.u[size_t{w} * dim + sl.first + j] = st->input_row(w)[j];
        m.v[size_t{w} * dim + sl.first + j] = st->output_row(w)[j];
      }
  }
  return m;
}

// The noise words of every positive pair, drawn exactly as the shard does:
// one rng seeded with mb.seed for the whole call, pairs in wire order, a
// word equal to the positive output redrawn up to 8 times.
std::vector<uint32_t> reference_negatives(const minibatch& mb, const alias_sampler& noise, size_t* redraws = nullptr) {
  rng r(mb.seed);
  std::vector<uint32_t> out;
  for (uint32_t positive : mb.outputs)
    for (uint32_t n = 0; n < mb.negatives; ++n) {
      uint32_t w = noise.draw(r);
      for (int tries = 0; w == positive && tries < 8; ++tries) {
        w = noise.draw(r);
        if (redraws)
          ++*redraws;
      }
      out.push_back(w);
    }
  return out;
}

// One entry per dot product, in the layout of dotprod/adjust.
struct dot_ref {
  size_t example;
  uint32_t word;
  double label;
};

struct batch_layout {
  std::vector<size_t> in_first, in_count;
  std::vector<dot_ref> dots;
  bool mean = false;
};

batch_layout layout_of(const minibatch& mb, const alias_sampler& noise) {
  const auto negs = reference_negatives(mb, noise);
  batch_layout l;
  l.mean = mb.mean_inputs;
  size_t in = 0, out = 0, neg = 0;
  for (size_t e = 0; e < mb.examples(); ++e) {
    const size_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const size_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    l.in_first.push_back(in);
    l.in_count.push_back(n_in);
    for (size_t o = 0; o < n_out; ++o) {
      l.dots.push_back({e, mb.outputs[out + o], 1.0});
      for (uint32_t n = 0; n < mb.negatives; ++n)
        l.dots.push_back({e, negs[neg++], 0.0});
    }
    in += n_in;
    out += n_out;
  }
  return l;
}

std::vector<double> hidden_of(const minibatch& mb, const batch_layout& l, size_t e, full_model& m) {
  std::vector<double> h(m.dim, 0.0);
  const size_t n = l.in_count[e];
  for (size_t k = 0; k < n; ++k) {
    const double* u = m.urow(mb.inputs[l.in_first[e] + k]);
    for (uint32_t j = 0; j < m.dim; ++j)
      h[j] += u[j];
  }
  if (n != 1 || l.mean)
    for (auto& x : h)
      x /= static_cast<double>(n);
  return h;
}

double dot(const std::vector<double>& a, const double* b) {
  double s = 0;
  for (size_t j = 0; j < a.size(); ++j)
    s += a[j] * b[j];
  return s;
}

std::vector<double> reference_dots(const minibatch& mb, const batch_layout& l, full_model& m) {
  std::vector<double> out;
  for (const auto& d : l.dots)
    out.push_back(dot(hidden_of(mb, l, d.example, m), m.vrow(d.word)));
  return out;
}

// Sum over the shards of their partial dot products.
std::vector<float> summed_dots(const owned_stores& stores, const minibatch& mb) {
  std::vector<float> sum(mb.dot_count(), 0.0f), part(mb.dot_count());
  std::vector<float> hidden;
  for (const auto& st : stores) {
    std::fill(part.begin(), part.end(), std::nanf(""));
    st->dotprod(mb, part.data(), hidden);
    for (size_t k = 0; k < sum.size(); ++k)
      sum[k] += part[k];
  }
  return sum;
}

// The update adjust must make, every read at the values from the start of
// the call (word2vec.c's CBOW: the whole error goes to every context word).
void reference_adjust(const minibatch& mb, const batch_layout& l, const std::vector<float>& weights, full_model& m) {
  full_model start = m;
  size_t k = 0;
  for (size_t e = 0; e < l.in_first.size(); ++e) {
    const auto h = hidden_of(mb, l, e, start);
    std::vector<double> row(m.dim, 0.0);
    for (; k < l.dots.size() && l.dots[k].example == e; ++k) {
      const double g = weights[k];
      const double* v0 = start.vrow(l.dots[k].word);
      double* v = m.vrow(l.dots[k].word);
      for (uint32_t j = 0; j < m.dim; ++j) {
        row[j] += g * v0[j];
        v[j] += g * h[j];
      }
    }
    for (size_t i = 0; i < l.in_count[e]; ++i) {
      double* u = m.urow(mb.inputs[l.in_first[e] + i]);
      for (uint32_t j = 0; j < m.dim; ++j)
        u[j] += row[j];
    }
  }
}

minibatch skipgram_batch(uint64_t seed, uint32_t vocab, uint32_t negatives, size_t sentences) {
  rng r(seed);
  example_builder b(4, false);
  minibatch mb;
  mb.seed = seed * 7919 + 1;
  mb.negatives = negatives;
  gridvec::test::add_random_sentences(r, b, vocab, sentences, 10, mb);
  return mb;
}

minibatch cbow_batch(uint64_t seed, uint32_t vocab, uint32_t negatives, size_t sentences) {
  rng r(seed);
  example_builder b(3, true);
  minibatch mb;
  mb.seed = seed * 104729 + 3;
  mb.negatives = negatives;
  mb.mean_inputs = true;
  gridvec::test::add_random_sentences(r, b, vocab, sentences, 10, mb);
  return mb;
}

double exact_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

} // namespace

TEST_CASE("column_slice: the shards' columns partition the dimension", "[shard_store]") {
  for (uint32_t dim : {1u, 7u, 10u, 20u, 100u, 300u})
    for (uint32_t count = 1; count <= std::min(dim, 13u); ++count) {
      uint32_t next = 0, min_w = dim, max_w = 0;
      for (uint32_t i = 0; i < count; ++i) {
        auto sl = column_slice::of(i, count, dim);
        CHECK(sl.first == next);
        CHECK(sl.width >= 1u);
        next = sl.first + sl.width;
        min_w = std::min(min_w, sl.width);
        max_w = std::max(max_w, sl.width);
      }
      CHECK(next == dim);
      CHECK(max_w - min_w <= 1u);
    }
}

TEST_CASE("shard_store: initial vectors do not depend on the sharding", "[shard_store]") {
  const uint32_t vocab = 30;
  auto noise = zipf_noise(vocab);
  for (uint32_t dim : {10u, 20u}) {
    auto one = gather(make_stores(1, dim, vocab, 42, noise), dim, vocab);
    for (double x : one.u) {
      CHECK(x >= -0.5 / dim);
      CHECK(x < 0.5 / dim);
    }
    for (double x : one.v)
      CHECK(x == 0.0);
    // Not all the same value.
    CHECK(*std::max_element(one.u.begin(), one.u.end()) > *std::min_element(one.u.begin(), one.u.end()));
    for (uint32_t shards : {2u, 3u, 4u, 7u}) {
      auto many = gather(make_stores(shards, dim, vocab, 42, noise), dim, vocab);
      CHECK(many.u == one.u);
      CHECK(many.v == one.v);
    }
    auto other_seed = gather(make_stores(1, dim, vocab, 43, noise), dim, vocab);
    CHECK(other_seed.u != one.u);
  }
}

TEST_CASE("shard_store: read_input_rows and bytes", "[shard_store]") {
  auto noise = zipf_noise(8);
  shard_store st(1, 3, 10, 8, 5, noise);
  CHECK(st.slice().first == 3u);
  CHECK(st.slice().width == 3u);
  CHECK(st.vocab_size() == 8u);
  CHECK(st.bytes() == 2u * 8u * 3u * sizeof(float));
  std::vector<float> rows(4 * 3);
  st.read_input_rows(2, 6, rows.data());
  for (uint32_t w = 2; w < 6; ++w)
    for (uint32_t j = 0; j < 3; ++j)
      CHECK(rows[(w - 2) * 3 + j] == st.input_row(w)[j]);
}

TEST_CASE("shard_store: dotprod computes u.v for pairs and the seeded noise words", "[shard_store]") {
  const uint32_t vocab = 40, dim = 12;
  auto noise = zipf_noise(vocab);
  auto stores = make_stores(1, dim, vocab, 3, noise);
  set_vectors(stores, vocab, 0.5f, 0.5f);
  auto model = gather(stores, dim, vocab);
  for (uint64_t seed : {1u, 2u, 3u}) {
    for (bool cbow : {false, true}) {
      auto mb = cbow ? cbow_batch(seed, vocab, 5, 6) : skipgram_batch(seed, vocab, 5, 6);
      REQUIRE(stores[0]->validate(mb));
      auto layout = layout_of(mb, *noise->whole());
      REQUIRE(layout.dots.size() == mb.dot_count());
      auto expect = reference_dots(mb, layout, model);
      auto got = summed_dots(stores, mb);
      for (size_t k = 0; k < got.size(); ++k) {
        INFO("dot " << k << (cbow ? " (CBOW)" : " (skip-gram)"));
        CHECK(std::abs(got[k] - expect[k]) < 1e-5);
      }
      // The same seed gives the same noise words, another seed others.
      auto again = summed_dots(stores, mb);
      CHECK(again == got);
      mb.seed += 1;
      CHECK(summed_dots(stores, mb) != got);
    }
  }
}

TEST_CASE("shard_store: partial dot products over S shards sum to the S=1 result", "[shard_store]") {
  const uint32_t vocab = 60;
  auto noise = zipf_noise(vocab);
  for (uint32_t dim : {10u, 20u}) {
    auto single = make_stores(1, dim, vocab, 11, noise);
    set_vectors(single, vocab, 0.4f, 0.6f);
    std::vector<minibatch> batches;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      batches.push_back(skipgram_batch(seed, vocab, 5, 8));
      batches.push_back(cbow_batch(seed, vocab, 3, 8));
    }
    std::vector<std::vector<float>> reference;
    for (const auto& mb : batches)
      reference.push_back(summed_dots(single, mb));
    for (uint32_t shards : {1u, 2u, 3u, 4u, 7u}) {
      auto stores = make_stores(shards, dim, vocab, 11, noise);
      set_vectors(stores, vocab, 0.4f, 0.6f);
      for (size_t b = 0; b < batches.size(); ++b) {
        auto sum = summed_dots(stores, batches[b]);
        REQUIRE(sum.size() == reference[b].size());
        for (size_t k = 0; k < sum.size(); ++k) {
          INFO("dim " << dim << ", shards " << shards << ", batch " << b << ", dot " << k);
          CHECK(std::abs(sum[k] - reference[b][k]) < 1e-5);
        }
      }
    }
  }
}

TEST_CASE("shard_store: CBOW dotprod is the dot of the mean input row with the output row", "[shard_store]") {
  const uint32_t vocab = 10, dim = 6;
  auto noise = zipf_noise(vocab);
  auto stores = make_stores(1, dim, vocab, 8, noise);
  set_vectors(stores, vocab, 1.0f, 1.0f);
  auto m = gather(stores, dim, vocab);
  minibatch mb;
  mb.mean_inputs = true;
  mb.negatives = 0;
  mb.inputs = {0, 1, 2, 3, 4, 4};
  mb.input_counts = {3, 1, 2};
  mb.outputs = {5, 6, 7};
  REQUIRE(stores[0]->validate(mb));
  std::vector<float> dots(3);
  std::vector<float> hidden;
  stores[0]->dotprod(mb, dots.data(), hidden);
  auto mean_dot = [&](std::vector<uint32_t> ins, uint32_t out) {
    double s = 0;
    for (uint32_t j = 0; j < dim; ++j) {
      double h = 0;
      for (uint32_t w : ins)
        h += m.urow(w)[j];
      s += h / static_cast<double>(ins.size()) * m.vrow(out)[j];
    }
    return s;
  };
  CHECK(std::abs(dots[0] - mean_dot({0, 1, 2}, 5)) < 1e-6);
  CHECK(std::abs(dots[1] - mean_dot({3}, 6)) < 1e-6);
  CHECK(std::abs(dots[2] - mean_dot({4, 4}, 7)) < 1e-6);
  CHECK(std::abs(dots[2] - mean_dot({4}, 7)) < 1e-6);
}

TEST_CASE("shard_store: adjust follows the SGNS gradient (finite differences)", "[shard_store]") {
  const uint32_t vocab = 6, dim = 4;
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts({10, 8, 6, 5, 3, 2}));
  const float alpha = 0.1f;

  // The brief's case (one input, two outputs), a repeated output, and
  // two examples sharing their input word.
  std::vector<minibatch> cases(3);
  cases[0].inputs = {1};
  cases[0].outputs = {2, 3};
  cases[0].output_counts = {2};
  cases[1].inputs = {1};
  cases[1].outputs = {2, 2};
  cases[1].output_counts = {2};
  cases[2].inputs = {1, 4, 1};
  cases[2].outputs = {2, 3, 1, 5, 0};
  cases[2].output_counts = {2, 1, 2};

  size_t redraws = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      minibatch mb = cases[c];
      mb.seed = seed;
      mb.negatives = 2;
      INFO("case " << c << ", seed " << seed);
      auto stores = make_stores(1, dim, vocab, seed, noise);
      // Vectors of moderate size, so that sigmoid is far from saturation.
      for (uint32_t w = 0; w < vocab; ++w)
        for (uint32_t j = 0; j < dim; ++j) {
          stores[0]->input_row(w)[j] = 0.7f * value_at(seed * 10 + 1, w, j);
          stores[0]->output_row(w)[j] = 0.7f * value_at(seed * 10 + 2, w, j);
        }
      REQUIRE(stores[0]->validate(mb));
      full_model start = gather(stores, dim, vocab);

      // The noise words the shard uses are the ones drawn from rng(seed).
      reference_negatives(mb, *noise->whole(), &redraws);
      auto layout = layout_of(mb, *noise->whole());
      std::vector<float> dots(mb.dot_count());
      std::vector<float> hidden;
      stores[0]->dotprod(mb, dots.data(), hidden);
      auto expect_dots = reference_dots(mb, layout, start);
      for (size_t k = 0; k < dots.size(); ++k)
        REQUIRE(std::abs(dots[k] - expect_dots[k]) < 1e-6);

      // g = alpha * (label - sigmoid(f)), exact sigmoid.
      std::vector<float> weights(dots.size());
      for (size_t k = 0; k < dots.size(); ++k)
        weights[k] = static_cast<float>(alpha * (layout.dots[k].label - exact_sigmoid(dots[k])));

      // L = sum log sigmoid(u.v+) + sum log sigmoid(-u.v-), in double.
      auto loss = [&](full_model& m) {
        double l = 0;
        for (const auto& d : layout.dots) {
          double f = dot(hidden_of(mb, layout, d.example, m), m.vrow(d.word));
          l += d.label == 1.0 ? -std::log1p(std::exp(-f)) : -std::log1p(std::exp(f));
        }
        return l;
      };
      const double eps = 1e-6;
      full_model probe = start;
      std::vector<double> grad_u(start.u.size()), grad_v(start.v.size());
      for (size_t i = 0; i < start.u.size(); ++i) {
        probe.u[i] = start.u[i] + eps;
        double up = loss(probe);
        probe.u[i] = start.u[i] - eps;
        double down = loss(probe);
        probe.u[i] = start.u[i];
        grad_u[i] = (up - down) / (2 * eps);
      }
      for (size_t i = 0; i < start.v.size(); ++i) {
        probe.v[i] = start.v[i] + eps;
        double up = loss(probe);
        probe.v[i] = start.v[i] - eps;
        double down = loss(probe);
        probe.v[i] = start.v[i];
        grad_v[i] = (up - down) / (2 * eps);
      }

      adjust_scratch scratch(dim);
      stores[0]->adjust(mb, weights.data(), scratch);
      full_model after = gather(stores, dim, vocab);
      for (size_t i = 0; i < start.u.size(); ++i) {
        const double expect = alpha * grad_u[i];
        const double got = after.u[i] - start.u[i];
        INFO("u[" << i / dim << "][" << i % dim << "]: moved " << got << ", alpha*dL/du " << expect);
        CHECK(std::abs(got - expect) <= 1e-3 * std::abs(expect) + 5e-7);
        if (grad_u[i] == 0.0)
          CHECK(got == 0.0);
      }
      for (size_t i = 0; i < start.v.size(); ++i) {
        const double expect = alpha * grad_v[i];
        const double got = after.v[i] - start.v[i];
        INFO("v[" << i / dim << "][" << i % dim << "]: moved " << got << ", alpha*dL/dv " << expect);
        CHECK(std::abs(got - expect) <= 1e-3 * std::abs(expect) + 5e-7);
        if (grad_v[i] == 0.0)
          CHECK(got == 0.0);
      }
    }
  }
  // The seeds above exercise the redraw of a noise word equal to the positive.
  CHECK(redraws > 0u);
}

TEST_CASE("shard_store: updates of one adjust call are applied at its end", "[shard_store]") {
  const uint32_t vocab = 6, dim = 4;
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts({10, 8, 6, 5, 3, 2}));
  minibatch mb;
  mb.seed = 5;
  mb.negatives = 2;
  // Word 2 is the output twice; word 1 is the input of two examples and
  // also an output; word 2 is also an input.
  mb.inputs = {1, 2, 1};
  mb.outputs = {2, 2, 1, 4};
  mb.output_counts = {2, 1, 1};
  auto stores = make_stores(1, dim, vocab, 1, noise);
  set_vectors(stores, vocab, 0.8f, 0.8f);
  REQUIRE(stores[0]->validate(mb));
  full_model start = gather(stores, dim, vocab);
  auto layout = layout_of(mb, *noise->whole());

  // Large, arbitrary weights make the difference to pair-by-pair updates obvious.
  std::vector<float> weights(mb.dot_count());
  rng r(17);
  for (auto& w : weights)
    w = r.uniform() - 0.5f;

  full_model expect = start;
  reference_adjust(mb, layout, weights, expect);

  // What immediate, pair-by-pair updates would give instead.
  full_model sequential = start;
  for (size_t k = 0; k < layout.dots.size(); ++k) {
    double* u = sequential.urow(mb.inputs[layout.in_first[layout.dots[k].example]]);
    double* v = sequential.vrow(layout.dots[k].word);
    for (uint32_t j = 0; j < dim; ++j) {
      const double uj = u[j], vj = v[j];
      u[j] += weights[k] * vj;
      v[j] += weights[k] * uj;
    }
  }
  REQUIRE(max_abs_diff(sequential.u, expect.u) + max_abs_diff(sequential.v, expect.v) > 1e-3);

  adjust_scratch scratch(dim);
  stores[0]->adjust(mb, weights.data(), scratch);
  auto after = gather(stores, dim, vocab);
  CHECK(max_abs_diff(after.u, expect.u) < 1e-6);
  CHECK(max_abs_diff(after.v, expect.v) < 1e-6);

  // Zero weights leave everything as it was; the scratch is reusable.
  std::vector<float> zero(mb.dot_count(), 0.0f);
  stores[0]->adjust(mb, zero.data(), scratch);
  auto again = gather(stores, dim, vocab);
  CHECK(again.u == after.u);
  CHECK(again.v == after.v);
}

TEST_CASE("shard_store: CBOW adjust adds the error to every context word", "[shard_store]") {
  const uint32_t vocab = 20, dim = 8;
  auto noise = zipf_noise(vocab);
  for (uint32_t shards : {1u, 3u}) {
    auto stores = make_stores(shards, dim, vocab, 2, noise);
    set_vectors(stores, vocab, 0.5f, 0.5f);
    auto mb = cbow_batch(4, vocab, 3, 5);
    mb.inputs.push_back(7); // an example whose context repeats a word
    mb.inputs.push_back(7);
    mb.input_counts.push_back(2);
    mb.outputs.push_back(8);
    REQUIRE(stores[0]->validate(mb));
    full_model expect = gather(stores, dim, vocab);
    auto layout = layout_of(mb, *noise->whole());
    std::vector<float> weights(mb.dot_count());
    rng r(23);
    for (auto& w : weights)
      w = 0.2f * (r.uniform() - 0.5f);
    reference_adjust(mb, layout, weights, expect);
    for (auto& st : stores) {
      adjust_scratch scratch(st->slice().width);
      st->adjust(mb, weights.data(), scratch);
    }
    auto after = gather(stores, dim, vocab);
    INFO("shards " << shards);
    CHECK(max_abs_diff(after.u, expect.u) < 1e-6);
    CHECK(max_abs_diff(after.v, expect.v) < 1e-6);
  }
}

TEST_CASE("shard_store: S shards trained with the same weights match S=1", "[shard_store]") {
  const uint32_t vocab = 50, dim = 20;
  auto noise = zipf_noise(vocab);
  std::vector<uint32_t> shard_counts{1, 2, 3, 4, 7};
  std::vector<owned_stores> configs;
  for (uint32_t s : shard_counts)
    configs.push_back(make_stores(s, dim, vocab, 99, noise));
  std::vector<std::vector<adjust_scratch>> scratch(configs.size());
  for (size_t c = 0; c < configs.size(); ++c)
    for (auto& st : configs[c])
      scratch[c].emplace_back(st->slice().width);

  const float alpha = 0.05f;
  for (uint64_t round = 0; round < 40; ++round) {
    auto mb = round % 2 == 0 ? skipgram_batch(round + 1, vocab, 5, 4) : cbow_batch(round + 1, vocab, 5, 4);
    auto dots = summed_dots(configs[0], mb);
    std::vector<float> weights(dots.size());
    compute_weights(dots.data(), mb.pairs(), mb.negatives, alpha, weights.data());
    for (size_t c = 0; c < configs.size(); ++c) {
      auto sum = summed_dots(configs[c], mb);
      for (size_t k = 0; k < sum.size(); ++k)
        REQUIRE(std::abs(sum[k] - dots[k]) < 1e-5 * std::max(1.0f, std::abs(dots[k])));
      for (size_t s = 0; s < configs[c].size(); ++s)
        configs[c][s]->adjust(mb, weights.data(), scratch[c][s]);
    }
  }
  auto reference = gather(configs[0], dim, vocab);
  // Training moved the vectors, and not into absurd sizes.
  const auto [vmin, vmax] = std::minmax_element(reference.v.begin(), reference.v.end());
  CHECK(std::max(-*vmin, *vmax) > 1e-3);
  CHECK(std::max(-*vmin, *vmax) < 10);
  for (size_t c = 1; c < configs.size(); ++c) {
    INFO("shards " << shard_counts[c]);
    auto m = gather(configs[c], dim, vocab);
    CHECK(max_abs_diff(m.u, reference.u) < 1e-5);
    CHECK(max_abs_diff(m.v, reference.v) < 1e-5);
  }
}

TEST_CASE("shard_store: validate rejects malformed minibatches", "[shard_store]") {
  const uint32_t vocab = 10;
  auto noise = zipf_noise(vocab);
  shard_store st(0, 1, 4, vocab, 1, noise);

  minibatch good;
  good.negatives = 5;
  good.inputs = {0, 9};
  good.outputs = {1, 2, 3};
  good.output_counts = {1, 2};
  REQUIRE(st.validate(good));

  minibatch cbow;
  cbow.mean_inputs = true;
  cbow.inputs = {1, 2, 3};
  cbow.input_counts = {2, 1};
  cbow.outputs = {4, 5};
  REQUIRE(st.validate(cbow));

  minibatch plain; // one input, one output per example, no counts
  plain.inputs = {1, 2};
  plain.outputs = {3, 4};
  REQUIRE(st.validate(plain));
  minibatch empty;
  REQUIRE(st.validate(empty));

  auto expect_failure = [&](minibatch mb, const char* needle) {
    auto s = st.validate(mb);
    REQUIRE_FALSE(s);
    INFO(s.error());
    CHECK(contains(s.error(), needle));
  };

  SECTION("input id out of range") {
    auto mb = good;
    mb.inputs[1] = vocab;
    expect_failure(mb, "out of range");
  }
  SECTION("output id out of range") {
    auto mb = good;
    mb.outputs[2] = 0xFFFFFFFFu;
    expect_failure(mb, "out of range");
  }
  SECTION("output counts do not add up") {
    auto mb = good;
    mb.output_counts = {1, 1};
    expect_failure(mb, "add up");
    mb.output_counts = {2, 2};
    expect_failure(mb, "add up");
  }
  SECTION("an example with no outputs") {
    auto mb = good;
    mb.output_counts = {3, 0};
    expect_failure(mb, "no outputs");
  }
  SECTION("input counts do not add up") {
    auto mb = cbow;
    mb.input_counts = {1, 1};
    expect_failure(mb, "add up");
  }
  SECTION("an example with no inputs") {
    auto mb = cbow;
    mb.input_counts = {3, 0};
    expect_failure(mb, "no inputs");
  }
  SECTION("input and output counts disagree on the examples") {
    auto mb = cbow;
    mb.output_counts = {2};
    expect_failure(mb, "disagree");
  }
  SECTION("more inputs than examples") {
    auto mb = good;
    mb.inputs.push_back(1);
    expect_failure(mb, "inputs");
  }
  SECTION("more outputs than examples") {
    auto mb = cbow;
    mb.outputs.push_back(1);
    expect_failure(mb, "outputs");
    auto p = plain;
    p.outputs.push_back(1);
    CHECK_FALSE(st.validate(p));
  }
  SECTION("too many negatives") {
    auto mb = good;
    mb.negatives = 1000;
    CHECK(st.validate(mb));
    mb.negatives = 1001;
    expect_failure(mb, "negatives");
    mb.negatives = 0xFFFFFFFFu;
    expect_failure(mb, "negatives");
  }
}

TEST_CASE("shard_store: a one-word noise distribution does not loop", "[shard_store]") {
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts({5}));
  shard_store st(0, 1, 3, 1, 1, noise);
  minibatch mb;
  mb.negatives = 4;
  mb.inputs = {0};
  mb.outputs = {0};
  REQUIRE(st.validate(mb));
  std::vector<float> dots(mb.dot_count()), hidden;
  st.dotprod(mb, dots.data(), hidden);
  for (float d : dots)
    CHECK(d == 0.0f); // v starts at zero
  // Every dot is (word 0, word 0): v0 += 5 * 0.1 * u0; u0 += 0.1 * sum v0 = 0.
  const std::vector<float> u0(st.input_row(0), st.input_row(0) + 3);
  std::vector<float> weights(mb.dot_count(), 0.1f);
  adjust_scratch scratch(3);
  st.adjust(mb, weights.data(), scratch);
  for (uint32_t j = 0; j < 3; ++j) {
    CHECK(st.input_row(0)[j] == u0[j]);
    CHECK(st.output_row(0)[j] == Approx(0.5 * u0[j]).epsilon(1e-5));
  }
}

TEST_CASE("shard_store: adjust with the targets dotprod drew equals adjust drawing them again", "[shard_store]") {
  const uint32_t vocab = 40, dim = 8;
  auto noise = zipf_noise(vocab);
  auto kept = make_stores(1, dim, vocab, 3, noise);
  auto redrawn = make_stores(1, dim, vocab, 3, noise);
  set_vectors(kept, vocab, 0.3f, 0.2f);
  set_vectors(redrawn, vocab, 0.3f, 0.2f);
  minibatch mb;
  mb.seed = 99;
  mb.negatives = 4;
  mb.inputs = {1, 2, 3};
  mb.outputs = {4, 5, 6, 7, 8};
  mb.output_counts = {2, 2, 1};
  std::vector<float> dots(mb.dot_count()), hidden;
  std::vector<uint32_t> drawn, expected;
  kept[0]->dotprod(mb, dots.data(), hidden, &drawn);
  kept[0]->draw_targets(mb, expected);
  CHECK(drawn == expected);

  std::vector<float> weights(mb.dot_count());
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = 0.01f * static_cast<float>(i % 7) - 0.03f;
  adjust_scratch s1(dim), s2(dim);
  kept[0]->adjust(mb, weights.data(), s1, &drawn);
  redrawn[0]->adjust(mb, weights.data(), s2);
  for (uint32_t w = 0; w < vocab; ++w)
    for (uint32_t j = 0; j < dim; ++j) {
      CHECK(kept[0]->input_row(w)[j] == redrawn[0]->input_row(w)[j]);
      CHECK(kept[0]->output_row(w)[j] == redrawn[0]->output_row(w)[j]);
    }
}

TEST_CASE("drawn_targets finds a minibatch only by seed, shape and positives", "[shard_store]") {
  drawn_targets cache;
  minibatch mb;
  mb.seed = 5;
  mb.negatives = 1;
  mb.inputs = {0, 1};
  mb.outputs = {2, 3};
  auto& rec = cache.record(mb);
  rec = {2, 9, 3, 8};
  REQUIRE(cache.find(mb) != nullptr);
  CHECK(cache.find(mb)->targets == std::vector<uint32_t>{2, 9, 3, 8});
  auto other = mb;
  other.seed = 6;
  CHECK(cache.find(other) == nullptr);
  other = mb;
  other.outputs = {2, 4};
  CHECK(cache.find(other) == nullptr);
  other = mb;
  other.negatives = 2;
  CHECK(cache.find(other) == nullptr);
  // The ring forgets the oldest entries.
  for (uint64_t seed = 100; seed < 200; ++seed) {
    minibatch m = mb;
    m.seed = seed;
    cache.record(m) = {2, 1, 3, 1};
  }
  CHECK(cache.find(mb) == nullptr);
}
