// Time per trained word of one cluster shard's kernels (src/model/shard_store.hpp)
// without the network: a learner's stream of minibatches arrives as a shard
// sees it, the dotprod of minibatch k followed by the adjust of minibatch
// k - 20 (the minibatches in flight of two learners), on one thread, on the
// first column slice of the model.
//
// COUNTS picks the shape of the vocabulary's counts:
//   zipf:     count(i) = 1 + 10^7 / (i + 1), few distinct counts: the noise
//             table has a few thousand runs and stays in the caches;
//   distinct: count(i) = 10^8 - i, every count differs: one run per word,
//             a table too large for the caches (the draw look-ahead's case);
//   ids:      count(i) = 7, 6 or 5 (a third of the words each), so sentence
//             words are drawn almost uniformly, as in a corpus of query or
//             ad ids (scripts/bench-vocab-scale): every row about as likely,
//             and at a large V nearly every row is a cache miss.
// D and S: the model's dimension and the number of column slices (default
// 100 and 2); the first slice is timed.
//
// pairs|windows: minibatches of pairs (the exact kernel) or of skip-gram
// windows with shared negatives (HogBatch, the default); IN_FLIGHT: the
// minibatches between a dotprod and its adjust (default 20).
//
// Usage: gridvec_shard_kernel [V] [WORDS] [zipf|distinct|ids] [D] [S] [pairs|windows] [IN_FLIGHT]
//   e.g. build/gridvec_shard_kernel 1000000 2000000 distinct
//        build/gridvec_shard_kernel 1000000 2000000 ids 8 4
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/drawn_targets.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/model/shard_store.hpp"

using namespace gridvec;

int main(int argc, char** argv) {
  const auto vocab = static_cast<uint32_t>(argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 15000);
  const uint64_t words = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 3000000;
  const char* shape = argc > 3 ? argv[3] : "zipf";
  const bool distinct = std::strcmp(shape, "distinct") == 0;
  const bool ids = std::strcmp(shape, "ids") == 0;
  const auto dim = static_cast<uint32_t>(argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 100);
  const auto slices = static_cast<uint32_t>(argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 2);
  const bool windows = argc > 6 && std::strcmp(argv[6], "windows") == 0; // else pairs
  if (vocab == 0 || words == 0 || (!distinct && !ids && std::strcmp(shape, "zipf") != 0) || dim == 0 || slices == 0 ||
      slices > dim) {
    std::fprintf(stderr, "usage: %s [V] [WORDS] [zipf|distinct|ids] [D] [S] [pairs|windows] [IN_FLIGHT]\n", argv[0]);
    return 2;
  }
  // Minibatches between a dotprod and its adjust: two learners' default.
  const size_t in_flight = argc > 7 ? std::strtoul(argv[7], nullptr, 10) : 20;
  std::vector<uint64_t> counts(vocab);
  for (uint32_t i = 0; i < vocab; ++i)
    counts[i] = distinct ? 100000000ull - i : ids ? 7 - 3ull * i / vocab : 1 + 10000000ull / (i + 1);
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(counts));
  // Sentence words are drawn by the counts (Zipf(1) for zipf), noise words by
  // their 0.75th power.
  auto sentence_words = std::make_shared<const alias_sampler>(alias_sampler::from_counts(counts, 1.0));
  shard_store store(0, slices, dim, vocab, 1, noise);

  rng r(7);
  example_builder builder(5, false);
  std::vector<uint32_t> sentence(20);
  std::deque<std::pair<minibatch, std::vector<float>>> flight; // minibatch and its weights
  drawn_targets drawn;
  adjust_scratch scratch(store.slice().width);
  std::vector<float> hidden, dots;
  std::vector<uint8_t> labels;
  using clock = std::chrono::steady_clock;
  double dotprod_s = 0, adjust_s = 0;
  for (uint64_t done = 0; done < words;) {
    minibatch mb;
    mb.seed = r.next();
    mb.negatives = 5;
    mb.shared_negatives = windows;
    while (mb.examples() < 64) {
      for (auto& w : sentence)
        w = sentence_words->draw(r);
      for (size_t pos = 0; pos < sentence.size(); ++pos)
        builder.add(sentence, pos, r, mb);
    }
    done += mb.examples();
    dots.resize(mb.dot_count());
    auto t0 = clock::now();
    store.dotprod(mb, dots.data(), hidden, &drawn.record(mb));
    drawn.keep_partials(dots.data(), dots.size());
    dotprod_s += std::chrono::duration<double>(clock::now() - t0).count();
    // Small weights of the right signs keep the vectors finite; the shard
    // refreshes them as it does on the protocol path.
    mb.alpha = 0.025f;
    mb.staleness = static_cast<uint32_t>(in_flight);
    std::vector<float> weights(dots.size());
    mb.labels(labels);
    for (size_t i = 0; i < weights.size(); ++i)
      weights[i] = labels[i] == target_label::positive ? 0.001f : -0.001f;
    flight.emplace_back(std::move(mb), std::move(weights));
    if (flight.size() > in_flight) {
      auto& [old, w] = flight.front();
      auto t1 = clock::now();
      const auto* kept = drawn.find(old);
      store.adjust(old, w.data(), scratch, kept ? &kept->targets : nullptr, kept ? kept->partials.data() : nullptr);
      adjust_s += std::chrono::duration<double>(clock::now() - t1).count();
      flight.pop_front();
    }
  }
  std::printf(
    "V=%u d=%u/%u counts=%s (%u noise-table runs): %.0f words/s of kernel time; dotprod %.2f s, adjust %.2f s\n", vocab,
    store.slice().width, dim, shape, noise->whole()->runs(), static_cast<double>(words) / (dotprod_s + adjust_s),
    dotprod_s, adjust_s);
  return 0;
}
