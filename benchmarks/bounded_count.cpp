// What bounded, partitioned counting costs: counts a corpus on one thread
// over P partitions (src/corpus/partitioned_count.hpp), each a bounded
// counter of BUDGET / P bytes spilling to WORK_DIR, then merges every
// partition's runs and keeps its words (min-count 1, as
// vocabulary_partition::collect does), and prints tokens per second for
// the count and for the merge, the runs written, the bytes a word costs in
// a counter beside its own bytes (when nothing was spilled: with spills a
// counter holds what its budget allows), and the process's peak RSS.
//
// Usage: gridvec_bounded_count CORPUS [BUDGET_MIB] [PARTITIONS] [WORK_DIR]
//   (defaults: 1024 MiB, 1 partition, /tmp)
//   e.g. build/gridvec_bounded_count /tmp/ids-3m.txt 64 2 /tmp
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "src/corpus/partitioned_count.hpp"
#include "src/corpus/vocabulary_partition.hpp"

using namespace gridvec;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS [BUDGET_MIB] [PARTITIONS] [WORK_DIR]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const size_t budget = (argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1024) << 20;
  const auto partitions = static_cast<uint32_t>(argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1);
  const std::string work = argc > 4 ? argv[4] : "/tmp";
  if (partitions == 0) {
    std::fprintf(stderr, "PARTITIONS must be at least 1\n");
    return 2;
  }
  auto ranges = split_corpus(path, 1);
  if (!ranges) {
    std::fprintf(stderr, "%s\n", ranges.error().c_str());
    return 1;
  }
  std::vector<bounded_counter> counters;
  for (uint32_t p = 0; p < partitions; ++p) {
    auto c = bounded_counter::create(work, budget / partitions);
    if (!c) {
      std::fprintf(stderr, "%s\n", c.error().c_str());
      return 1;
    }
    counters.push_back(std::move(*c));
  }
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  uint64_t lines = 0;
  if (auto counted = count_partitioned(path, *ranges, counters, lines); !counted) {
    std::fprintf(stderr, "%s\n", counted.error().c_str());
    return 1;
  }
  const double count_s = std::chrono::duration<double>(clock::now() - t0).count();
  uint64_t tokens = 0, spilled = 0;
  size_t spills = 0, held_bytes = 0, held_words = 0;
  for (const auto& c : counters) {
    tokens += c.tokens();
    spills += c.spills();
    spilled += c.spilled_bytes();
    held_bytes += c.memory_bytes();
    held_words += c.words_in_memory();
  }
  const auto t1 = clock::now();
  uint64_t distinct = 0, word_bytes = 0;
  size_t kept_bytes = 0;
  for (auto& c : counters) {
    auto part = vocabulary_partition::collect(c, 1);
    if (!part) {
      std::fprintf(stderr, "%s\n", part.error().c_str());
      return 1;
    }
    distinct += part->size();
    part->for_each([&](std::string_view w, uint64_t, uint64_t, uint32_t) { word_bytes += w.size(); });
    kept_bytes += part->memory_bytes();
  }
  const double merge_s = std::chrono::duration<double>(clock::now() - t1).count();
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const double mb = 1e6;
  std::printf("counted %llu tokens, %llu distinct words (%.1f bytes on average) over %u partition(s) of %.1f MiB "
              "in %.2f s: %.2fM tokens/s on one thread\n",
              static_cast<unsigned long long>(tokens), static_cast<unsigned long long>(distinct),
              static_cast<double>(word_bytes) / static_cast<double>(distinct), partitions,
              static_cast<double>(budget / partitions) / 1048576.0, count_s,
              static_cast<double>(tokens) / count_s / 1e6);
  std::printf("runs written: %zu, %.1f MB; merged and kept in %.2f s (%.2fM tokens/s counting and merging)\n", spills,
              static_cast<double>(spilled) / mb, merge_s, static_cast<double>(tokens) / (count_s + merge_s) / 1e6);
  if (spills == 0)
    std::printf("counters: %.1f bytes a word beside its own bytes (%.1f MB for %zu words)\n",
                (static_cast<double>(held_bytes) - static_cast<double>(word_bytes)) / static_cast<double>(held_words),
                static_cast<double>(held_bytes) / mb, held_words);
  else
    std::printf("counters: %.1f MB held at the end for %zu words (each within its budget)\n",
                static_cast<double>(held_bytes) / mb, held_words);
  std::printf("partitions' kept words (count, first place, id, order): %.1f bytes a word beside its own bytes\n",
              (static_cast<double>(kept_bytes) - static_cast<double>(word_bytes)) / static_cast<double>(distinct));
  std::printf("peak RSS: %.1f MiB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
