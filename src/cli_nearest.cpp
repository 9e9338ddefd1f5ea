// gridvec nearest: cosine nearest neighbours of words in a vectors file
// (word2vec text or binary), like fastText's `nn`.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "src/cli.hpp"
#include "src/vector_math.hpp"
#include "src/vectors_file.hpp"

namespace gridvec {

int cli_nearest(const std::vector<std::string>& args) {
  std::string path;
  std::vector<std::string> words;
  size_t k = 10;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      std::puts("usage: gridvec nearest VECTORS WORD [WORD ...] [-k N]\n"
                "Prints the N (default 10) nearest neighbours of each WORD by cosine similarity.");
      return 0;
    }
    if (a == "-k" || a == "--k") {
      if (i + 1 >= args.size() ||
          std::from_chars(args[i + 1].data(), args[i + 1].data() + args[i + 1].size(), k).ec != std::errc{} || k == 0) {
        std::fprintf(stderr, "gridvec nearest: -k needs a positive number\n");
        return 2;
      }
      ++i;
    } else if (path.empty()) {
      path = a;
    } else {
      words.push_back(a);
    }
  }
  if (path.empty() || words.empty()) {
    std::fprintf(stderr, "gridvec nearest: usage: gridvec nearest VECTORS WORD [WORD ...] [-k N]\n");
    return 2;
  }
  auto table = read_vectors(path);
  if (!table) {
    std::fprintf(stderr, "gridvec nearest: %s\n", table.error().c_str());
    return 1;
  }
  const uint32_t d = table->dim;
  std::vector<float> norms(table->words.size());
  for (size_t i = 0; i < norms.size(); ++i)
    norms[i] = std::sqrt(dot(table->row(i), table->row(i), d)) + 1e-12f;
  int status = 0;
  for (const auto& w : words) {
    auto it = std::find(table->words.begin(), table->words.end(), w);
    if (it == table->words.end()) {
      std::fprintf(stderr, "gridvec nearest: '%s' is not in the vocabulary\n", w.c_str());
      status = 1;
      continue;
    }
    const size_t q = static_cast<size_t>(it - table->words.begin());
    std::vector<std::pair<float, size_t>> scored;
    for (size_t i = 0; i < norms.size(); ++i)
      if (i != q)
        scored.emplace_back(dot(table->row(q), table->row(i), d) / (norms[q] * norms[i]), i);
    const size_t n = std::min(k, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<long>(n), scored.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    std::printf("%s:\n", w.c_str());
    for (size_t i = 0; i < n; ++i)
      std::printf("  %-32s %.3f\n", table->words[scored[i].second].c_str(), scored[i].first);
  }
  return status;
}

} // namespace gridvec
