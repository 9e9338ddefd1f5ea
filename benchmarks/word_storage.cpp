// What holding words costs: counts a corpus with word_counts on one thread
// (the scan and the table, as a count worker does), then builds the
// vocabulary, and prints tokens per second, and the bytes each distinct
// word costs beside its own bytes in the counting table and in the
// vocabulary (the words' arena and index, their counts and ids), measured
// from what the structures hold.
//
// Usage: gridvec_word_storage CORPUS [MIN_COUNT]
//   e.g. scripts/gen-id-corpus.py --out /tmp/ids-3m.txt --vocab 3000000
//        build/gridvec_word_storage /tmp/ids-3m.txt 1
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/text_corpus.hpp"

using namespace gridvec;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS [MIN_COUNT]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const uint64_t min_count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  auto ranges = split_corpus(path, 1);
  if (!ranges) {
    std::fprintf(stderr, "%s\n", ranges.error().c_str());
    return 1;
  }
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  word_counts counts;
  corpus_scanner scanner{path};
  auto scanned = scanner.scan(
    ranges->front(), [&](std::string_view w) { counts.add(w); }, [&] { counts.add_line_end(); });
  if (!scanned) {
    std::fprintf(stderr, "%s\n", scanned.error().c_str());
    return 1;
  }
  const double count_s = std::chrono::duration<double>(clock::now() - t0).count();
  uint64_t string_bytes = 0;
  counts.for_each([&](std::string_view w, word_counts::seen) { string_bytes += w.size(); });
  const auto distinct = static_cast<double>(counts.distinct());
  std::printf("counted %llu tokens, %zu distinct words in %.2f s: %.2fM tokens/s on one thread\n",
              static_cast<unsigned long long>(counts.total()), counts.distinct(), count_s,
              static_cast<double>(counts.total()) / count_s / 1e6);
  std::printf("counting table: %.1f bytes a word beside its %.1f bytes (%.1f MB in all)\n",
              (static_cast<double>(counts.memory_bytes()) - static_cast<double>(string_bytes)) / distinct,
              static_cast<double>(string_bytes) / distinct, static_cast<double>(counts.memory_bytes()) / 1e6);
  const auto t1 = clock::now();
  auto vocab = vocabulary::build(counts, min_count, 0);
  if (!vocab) {
    std::fprintf(stderr, "%s\n", vocab.error().c_str());
    return 1;
  }
  const double build_s = std::chrono::duration<double>(clock::now() - t1).count();
  uint64_t vocab_bytes = 0;
  for (uint32_t id = 0; id < vocab->size(); ++id)
    vocab_bytes += vocab->word(id).size();
  std::printf("vocabulary of %u words built in %.2f s: %.1f bytes a word beside its bytes, counts and ids "
              "included (%.1f MB in all)\n",
              vocab->size(), build_s,
              (static_cast<double>(vocab->memory_bytes()) - static_cast<double>(vocab_bytes)) / vocab->size(),
              static_cast<double>(vocab->memory_bytes()) / 1e6);
  return 0;
}
