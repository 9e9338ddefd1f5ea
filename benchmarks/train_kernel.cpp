// Time per trained word of the fused SGNS kernel (src/sgns/local_trainer.hpp) as
// the vocabulary grows, without the rest of the pipeline: the vectors are
// allocated and initialised as in a shard, and minibatches of random
// sentences are trained on them by T threads (Hogwild, as gridvec train).
// Sentence words are drawn like a corpus of gen-large-corpus.py --min-occurrences:
// a third uniformly over all V words, the rest Zipf(1); noise words follow
// Zipf(1)^0.75 over V.
//
// Usage: gridvec_train_kernel V [DIM] [WORDS] [THREADS] [SHARED_NEGATIVES 0|1]
//   e.g. build/gridvec_train_kernel 10000000 100 20000000 2
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/local_trainer.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/model/shard_store.hpp"

using namespace gridvec;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s V [DIM] [WORDS] [THREADS]\n", argv[0]);
    return 2;
  }
  const auto vocab = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  const uint32_t dim = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 100;
  const uint64_t words = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 10000000;
  const unsigned threads = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : 2;
  const bool shared = argc > 5 && std::atoi(argv[5]) != 0;

  auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> counts(vocab);
  for (uint32_t i = 0; i < vocab; ++i)
    counts[i] = 1 + 100000000ull / (i + 1);
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(counts));
  auto zipf = std::make_shared<const alias_sampler>(alias_sampler::from_counts(counts, 1.0));
  auto store = std::make_shared<shard_store>(0, 1, dim, vocab, 1, noise);
  auto t1 = std::chrono::steady_clock::now();

  std::atomic<uint64_t> pairs{0};
  auto work = [&](unsigned id) {
    local_trainer trainer({store});
    rng r(1000 + id);
    example_builder builder(5, false);
    minibatch mb;
    std::vector<uint32_t> sentence(20);
    uint64_t my_pairs = 0;
    for (uint64_t done = 0; done < words / threads;) {
      mb.clear();
      mb.seed = r.next();
      mb.negatives = 5;
      mb.shared_negatives = shared;
      while (mb.examples() < 32) {
        for (auto& w : sentence)
          w = r.below(3) == 0 ? r.below(vocab) : zipf->draw(r);
        for (size_t pos = 0; pos < sentence.size(); ++pos)
          builder.add(sentence, pos, r, mb);
      }
      done += mb.examples();
      my_pairs += mb.pairs();
      trainer.train(mb, 0.01f);
    }
    pairs += my_pairs;
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i)
    pool.emplace_back(work, i);
  for (auto& t : pool)
    t.join();
  auto t2 = std::chrono::steady_clock::now();
  const double setup = std::chrono::duration<double>(t1 - t0).count();
  const double train = std::chrono::duration<double>(t2 - t1).count();
  std::printf("V=%u d=%u threads=%u shared=%d: setup %.1f s, %llu words in %.2f s = %.0f words/s, %.1f ns/pair\n",
              vocab, dim, threads, static_cast<int>(shared), setup, static_cast<unsigned long long>(words), train,
              words / train, 1e9 * train * threads / static_cast<double>(pairs.load()));
  return 0;
}
