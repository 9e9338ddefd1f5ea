// gridvec nearest: cosine nearest neighbours of words in a vectors file
// (word2vec text or binary), like fastText's `nn`.
#include <algorithm>
#include <charconv>
#include <cstdio>

#include "apps/cli/cli.hpp"
#include "src/model/similarity.hpp"
#include "src/sgns/vector_math.hpp"
#include "src/formats/vectors_file.hpp"

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
  // The same cosine top-k as the cluster's `nearest` (src/model/similarity.hpp),
  // from the layout it takes: [|q|^2, q.u(0..V-1), |u(0..V-1)|^2].
  const uint32_t d = table->dim;
  const size_t vocab = table->words.size();
  std::vector<float> summed(1 + 2 * vocab);
  for (size_t i = 0; i < vocab; ++i)
    summed[1 + vocab + i] = dot(table->row(i), table->row(i), d);
  int status = 0;
  for (const auto& w : words) {
    auto it = std::find(table->words.begin(), table->words.end(), w);
    if (it == table->words.end()) {
      std::fprintf(stderr, "gridvec nearest: '%s' is not in the vocabulary\n", w.c_str());
      status = 1;
      continue;
    }
    const auto q = static_cast<uint32_t>(it - table->words.begin());
    summed[0] = summed[1 + vocab + q];
    for (size_t i = 0; i < vocab; ++i)
      summed[1 + i] = dot(table->row(q), table->row(i), d);
    std::printf("%s:\n", w.c_str());
    for (const auto& best : top_cosine(summed, static_cast<uint32_t>(std::min<size_t>(k, vocab)), {q}))
      std::printf("  %-32s %.3f\n", table->words[best.id].c_str(), best.score);
  }
  return status;
}

} // namespace gridvec
