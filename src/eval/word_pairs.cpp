#include "src/eval/word_pairs.hpp"

#include <cstdlib>
#include <fstream>
#include <vector>

#include "src/eval/correlation.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::vector<std::string> fields(const std::string& line) {
  const char sep = line.find('\t') != std::string::npos ? '\t' : ',';
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t next; (next = line.find(sep, at)) != std::string::npos; at = next + 1)
    out.push_back(trimmed(line.substr(at, next - at)));
  out.push_back(trimmed(line.substr(at)));
  return out;
}

} // namespace

double word_pairs_result::unknown_percent() const {
  const uint64_t all = pairs + unknown;
  return all == 0 ? 0.0 : 100.0 * static_cast<double>(unknown) / static_cast<double>(all);
}

expected<word_pairs_result> evaluate_word_pairs(const eval_vocabulary& vocab, const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return failure{"cannot read the word pairs " + path};
  word_pairs_result result;
  std::vector<double> human, model;
  uint64_t lines = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    auto f = fields(line);
    if (f.size() != 3)
      continue;
    char* end = nullptr;
    const double score = std::strtod(f[2].c_str(), &end);
    if (f[2].empty() || *end != '\0')
      continue; // a header line
    ++lines;
    auto a = vocab.find(f[0]), b = vocab.find(f[1]);
    if (!a || !b) {
      ++result.unknown;
      continue;
    }
    human.push_back(score);
    model.push_back(dot(vocab.unit_row(*a), vocab.unit_row(*b), vocab.dim()));
  }
  if (in.bad())
    return failure{"cannot read the word pairs " + path};
  if (lines == 0)
    return failure{path + " has no word pairs (lines of 'word1<TAB>word2<TAB>score')"};
  result.pairs = human.size();
  result.spearman = spearman_rho(human, model);
  result.pearson = pearson_r(human, model);
  return result;
}

} // namespace gridvec
