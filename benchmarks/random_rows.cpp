// What one random row access costs on this machine as the table grows: the
// memory-system ceiling under `scripts/bench-scale`'s V = 10M target.
//
// A training step touches rows at random positions of the u and v matrices
// (noise words, rare context words). This reads (and with --write updates)
// `lines` cache lines of a row at random rows of a table of MB megabytes,
// allocated as the shards allocate theirs (allocate_floats: zeroed, on
// transparent huge pages), with each row prefetched `depth` rows ahead --
// as the fused kernel does. If the cost per row grows with MB even though
// prefetching hides DRAM latency for small tables, the extra is address
// translation (TLB reach), which no access order inside one row can help.
//
// With --window W the rows are not spread over the whole table: W accesses
// in a row go to W consecutive rows (in random order) at a random place,
// then the next W to another place -- what a minibatch's noise words would
// cost if they were drawn from one stretch of the vocabulary instead of all
// of it (not how gridvec draws them; see docs/performance.md).
//
// Usage: gridvec_random_rows MB [DEPTH] [LINES] [--write] [--window W]
//   e.g. for mb in 64 1024 4096 8192; do build/gridvec_random_rows $mb 16 7; done
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "src/util/huge_buffer.hpp"
#include "src/util/rng.hpp"
#include "src/sgns/vector_math.hpp"

using namespace gridvec;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MB [DEPTH] [LINES] [--write] [--window W]\n", argv[0]);
    return 2;
  }
  const size_t megabytes = std::strtoull(argv[1], nullptr, 10);
  const size_t depth = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 16;
  const size_t lines = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 7;
  bool write = false;
  size_t window = 0;
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "--write") == 0)
      write = true;
    else if (std::strcmp(argv[i], "--window") == 0 && i + 1 < argc)
      window = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "random_rows: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  constexpr size_t row_floats = 128; // a 512-byte row slot, 8 lines
  if (megabytes == 0 || lines == 0 || lines > 8) {
    std::fprintf(stderr, "random_rows: MB must be > 0 and LINES in 1..8\n");
    return 2;
  }
  const size_t rows = (megabytes << 20) / (row_floats * sizeof(float));
  float_buffer table = allocate_floats(rows * row_floats);
  for (size_t i = 0; i < rows * row_floats; i += 1024) // fault every page in
    table[i] = 1.0f;

  constexpr size_t accesses = 4000000;
  std::vector<uint32_t> order(accesses);
  rng r(1);
  if (window == 0 || window >= rows) {
    for (auto& row : order)
      row = r.below(static_cast<uint32_t>(rows));
  } else {
    uint32_t base = 0;
    for (size_t i = 0; i < accesses; ++i) {
      if (i % window == 0)
        base = r.below(static_cast<uint32_t>(rows - window));
      order[i] = base + r.below(static_cast<uint32_t>(window));
    }
  }

  const auto start = std::chrono::steady_clock::now();
  float sum = 0;
  for (size_t i = 0; i < accesses; ++i) {
    if (i + depth < accesses)
      prefetch_row(table.get() + size_t{order[i + depth]} * row_floats, lines * 16);
    float* row = table.get() + size_t{order[i]} * row_floats;
    for (size_t l = 0; l < lines; ++l) {
      sum += row[16 * l];
      if (write)
        row[16 * l + 1] += 1.0f;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu MB, depth %zu, %zu lines%s%s: %.1f ns per row (checksum %g)\n", megabytes, depth, lines,
              write ? ", written" : "", window ? (", windows of " + std::to_string(window) + " rows").c_str() : "",
              seconds / accesses * 1e9, static_cast<double>(sum));
  return 0;
}
