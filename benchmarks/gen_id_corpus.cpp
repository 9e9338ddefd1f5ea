// A corpus whose words look like query or ad ids, for the scale lab at
// vocabularies that scripts/gen-id-corpus.py cannot make in reasonable time
// or memory (V = 10^8: it would hold every word as a Python object). The
// same shape: V distinct ids of 16-24 bytes (a short prefix, hex, and the
// word's rank in hex, so distinct by construction), each seen at least K
// times (K passes over the V words in a pseudo-random order), the rest of
// the N tokens drawn with Zipfian popularity (exponent 1), lines of L
// words. Not byte-identical to the Python script's output.
//
// Memory is O(chunk), not O(V): a word is made from its rank when written,
// the K passes walk a bijection of [0, V) (an affine map modulo a power of
// two, cycle-walked into range), and a Zipfian rank is an inverse of the
// harmonic numbers' approximation ln(r) + gamma.
//
// Usage: gridvec_gen_id_corpus OUT V [TOKENS (default 6 V)] [K (5)] [L (20)] [SEED (1)]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

uint64_t mix(uint64_t x) { // splitmix64's finaliser: a word's bytes from its rank
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Appends word `rank`'s id: 16-24 bytes, "q_"/"ad"/"u_"/"s_", hex, "_", rank in hex.
void append_word(std::string& out, uint64_t rank, uint64_t seed) {
  static const char* prefixes[] = {"q_", "ad", "u_", "s_"};
  static const char hex[] = "0123456789abcdef";
  const uint64_t h = mix(rank ^ (seed << 40));
  const size_t length = 16 + h % 9;
  char tail[20];
  size_t t = 0;
  for (uint64_t r = rank;; r >>= 4) {
    tail[t++] = hex[r & 15];
    if (r < 16)
      break;
  }
  out += prefixes[(h >> 8) % 4];
  const size_t body = length > 2 + t + 1 ? length - 2 - t - 1 : 0;
  const uint64_t salt = mix(h);
  for (size_t i = 0; i < body; ++i)
    out += hex[(salt >> (4 * (i % 16))) & 15];
  out += '_';
  while (t > 0)
    out += tail[--t];
}

// A bijection of [0, v): x -> (a x + b) mod 2^k, walked until it lands below v.
struct permutation {
  uint64_t v, mask, a, b;
  permutation(uint64_t v, uint64_t seed) : v(v) {
    uint64_t size = 1;
    while (size < v)
      size <<= 1;
    mask = size - 1;
    a = (mix(seed) | 1) & mask; // odd: invertible modulo a power of two
    b = mix(seed + 1) & mask;
    if (a == 0)
      a = 1;
  }
  uint64_t operator()(uint64_t x) const {
    do
      x = (a * x + b) & mask;
    while (x >= v);
    return x;
  }
};

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT V [TOKENS] [K] [L] [SEED]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const uint64_t v = std::strtoull(argv[2], nullptr, 10);
  const uint64_t n = argc > 3 && std::strtoull(argv[3], nullptr, 10) > 0 ? std::strtoull(argv[3], nullptr, 10) : 6 * v;
  const uint64_t k = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 5;
  const uint64_t line_words = argc > 5 ? std::max<uint64_t>(1, std::strtoull(argv[5], nullptr, 10)) : 20;
  const uint64_t seed = argc > 6 ? std::strtoull(argv[6], nullptr, 10) : 1;
  if (v == 0 || n < k * v) {
    std::fprintf(stderr, "gen_id_corpus: V must be positive and TOKENS at least K x V\n");
    return 2;
  }
  FILE* out = std::fopen(path.c_str(), "wb");
  if (!out) {
    std::perror(path.c_str());
    return 1;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  // Zipf (s = 1) by inverting H(r) ~ ln(r) + gamma over [1, V].
  const double gamma = 0.5772156649015329, total = std::log(double(v)) + gamma;
  auto zipf_rank = [&] {
    const double r = std::exp(uniform(rng) * total - gamma);
    return std::min<uint64_t>(v - 1, r < 1 ? 0 : static_cast<uint64_t>(r) - 1);
  };
  const uint64_t cover = k * v;
  std::vector<permutation> passes;
  for (uint64_t p = 0; p < k; ++p)
    passes.emplace_back(v, seed * 1000 + p);
  const uint64_t chunk = 2'000'000;
  std::vector<uint64_t> ids;
  std::string text;
  uint64_t done = 0, covered = 0, column = 0;
  while (done < n) {
    const uint64_t m = std::min(chunk, n - done);
    // The coverage tokens in proportion, all of what is left in the last chunk.
    uint64_t take = done + m >= n ? cover - covered : std::min<uint64_t>(cover - covered, (m * cover + n / 2) / n);
    take = std::min(take, m);
    ids.clear();
    for (uint64_t i = 0; i < take; ++i, ++covered)
      ids.push_back(passes[covered / v](covered % v));
    while (ids.size() < m)
      ids.push_back(zipf_rank());
    std::shuffle(ids.begin(), ids.end(), rng);
    text.clear();
    for (uint64_t id : ids) {
      append_word(text, id, seed);
      text += ++column % line_words == 0 ? '\n' : ' ';
    }
    if (std::fwrite(text.data(), 1, text.size(), out) != text.size()) {
      std::perror(path.c_str());
      return 1;
    }
    done += m;
  }
  if (column % line_words != 0)
    std::fputc('\n', out);
  if (std::fclose(out) != 0) {
    std::perror(path.c_str());
    return 1;
  }
  std::fprintf(stderr, "%s: %llu tokens, %llu distinct words, each at least %llu times\n", path.c_str(),
               static_cast<unsigned long long>(n), static_cast<unsigned long long>(v),
               static_cast<unsigned long long>(k));
  return 0;
}
