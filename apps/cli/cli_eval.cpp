// gridvec eval: how good a vectors file is, with the numbers gensim's
// KeyedVectors would print for it (src/eval/), without Python:
//   analogy accuracy (evaluate_word_analogies, restrict_vocab=30000) and
//   Spearman's rho on word pairs (evaluate_word_pairs).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "apps/cli/cli.hpp"
#include "src/eval/word_analogies.hpp"
#include "src/eval/word_pairs.hpp"
#include "src/formats/vectors_file.hpp"

namespace gridvec {

namespace {

const char* eval_usage = "usage: gridvec eval VECTORS [--analogies FILE] [--similarity FILE] [options]\n"
                         "Scores word vectors (word2vec text or binary, or a directory of part files\n"
                         "that train --output-parts 1 writes) as gensim's KeyedVectors does.\n\n"
                         "  --analogies FILE      questions as in questions-words.txt: accuracy over the\n"
                         "                        questions whose words are all in the vocabulary\n"
                         "  --similarity FILE     word pairs with human scores, as WordSim-353:\n"
                         "                        Spearman's rho of the cosines against the scores\n"
                         "  --restrict-vocab N    analogies use the N most frequent words [30000]\n"
                         "  --sections            analogy accuracy of every section too\n"
                         "  --json                one JSON object instead of the lines\n"
                         "  --floor-analogy X     exit 1 (a FAIL line on stderr) if analogy accuracy is\n"
                         "                        below X; with --analogies\n"
                         "  --floor-wordsim X     the same for Spearman's rho; with --similarity\n";

struct eval_args {
  std::string vectors, analogies, similarity;
  size_t restrict = 30000;
  bool sections = false;
  bool json = false;
  std::optional<double> floor_analogy, floor_wordsim; // a quality gate, for scripts and tests
};

// "0.025" as a floor; false for anything else.
bool parse_floor(const std::string& text, std::optional<double>& floor) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(x))
    return false;
  floor = x;
  return true;
}

// gensim's evaluate_word_pairs keeps its default restrict_vocab.
constexpr size_t pairs_restrict = 300000;

int eval_usage_error(const std::string& why) {
  std::fprintf(stderr, "gridvec eval: %s (gridvec eval --help)\n", why.c_str());
  return 2;
}

std::string format_score(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", x);
  return buf;
}

// A number for JSON: NaN (too few pairs) has no JSON spelling.
std::string json_number(double x) {
  if (std::isnan(x))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", x);
  return buf;
}

} // namespace

int cli_eval(const std::vector<std::string>& args) {
  eval_args a;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    if (arg == "--help" || arg == "-h") {
      std::fputs(eval_usage, stdout);
      return 0;
    } else if (arg == "--analogies" || arg == "--similarity") {
      const std::string* v = value();
      if (!v)
        return eval_usage_error(arg + " needs a file");
      (arg == "--analogies" ? a.analogies : a.similarity) = *v;
    } else if (arg == "--restrict-vocab") {
      const std::string* v = value();
      if (!v || std::from_chars(v->data(), v->data() + v->size(), a.restrict).ec != std::errc{} || a.restrict == 0)
        return eval_usage_error("--restrict-vocab needs a positive number");
    } else if (arg == "--floor-analogy" || arg == "--floor-wordsim") {
      const std::string* v = value();
      if (!v || !parse_floor(*v, arg == "--floor-analogy" ? a.floor_analogy : a.floor_wordsim))
        return eval_usage_error(arg + " needs a number");
    } else if (arg == "--sections") {
      a.sections = true;
    } else if (arg == "--json") {
      a.json = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return eval_usage_error("unknown option " + arg);
    } else if (a.vectors.empty()) {
      a.vectors = arg;
    } else {
      return eval_usage_error("one vectors file at a time ('" + arg + "' is a second)");
    }
  }
  if (a.vectors.empty())
    return eval_usage_error("which vectors file?");
  if (a.analogies.empty() && a.similarity.empty())
    return eval_usage_error("nothing to score: give --analogies FILE, --similarity FILE or both");
  if (a.floor_analogy && a.analogies.empty())
    return eval_usage_error("--floor-analogy needs --analogies FILE");
  if (a.floor_wordsim && a.similarity.empty())
    return eval_usage_error("--floor-wordsim needs --similarity FILE");
  std::vector<std::string> below; // the floors not met

  auto table = read_vectors(a.vectors);
  if (!table) {
    std::fprintf(stderr, "gridvec eval: %s\n", table.error().c_str());
    return 1;
  }
  std::string json = "{\"vocab\": " + std::to_string(table->words.size()) + ", \"dim\": " + std::to_string(table->dim);
  if (!a.analogies.empty()) {
    eval_vocabulary vocab(*table, a.restrict);
    auto r = evaluate_analogies(vocab, a.analogies);
    if (!r) {
      std::fprintf(stderr, "gridvec eval: %s\n", r.error().c_str());
      return 1;
    }
    const uint64_t asked = r->correct + r->incorrect;
    if (a.floor_analogy && !(r->accuracy() >= *a.floor_analogy))
      below.push_back("analogy " + format_score(r->accuracy()) + " is below the floor " +
                      format_score(*a.floor_analogy));
    if (a.json) {
      json += ", \"analogy\": " + json_number(r->accuracy()) + ", \"analogy_correct\": " + std::to_string(r->correct) +
              ", \"analogy_asked\": " + std::to_string(asked) + ", \"analogy_skipped\": " + std::to_string(r->skipped);
      if (a.sections) {
        json += ", \"sections\": {";
        for (size_t s = 0; s < r->sections.size(); ++s) {
          const auto& sec = r->sections[s];
          const uint64_t n = sec.correct + sec.incorrect;
          json += (s ? ", \"" : "\"") + sec.name + "\": " + json_number(n ? double(sec.correct) / double(n) : 0.0);
        }
        json += "}";
      }
    } else {
      std::printf("analogy  %.4f  (%llu of %llu right; %llu of %llu questions skipped: a word not among the %zu most "
                  "frequent)\n",
                  r->accuracy(), static_cast<unsigned long long>(r->correct), static_cast<unsigned long long>(asked),
                  static_cast<unsigned long long>(r->skipped), static_cast<unsigned long long>(asked + r->skipped),
                  a.restrict);
      if (a.sections)
        for (const auto& sec : r->sections) {
          const uint64_t n = sec.correct + sec.incorrect;
          std::printf("  %-28s %.4f  (%llu of %llu)\n", sec.name.c_str(), n ? double(sec.correct) / double(n) : 0.0,
                      static_cast<unsigned long long>(sec.correct), static_cast<unsigned long long>(n));
        }
    }
  }
  if (!a.similarity.empty()) {
    eval_vocabulary vocab(*table, pairs_restrict);
    auto r = evaluate_word_pairs(vocab, a.similarity);
    if (!r) {
      std::fprintf(stderr, "gridvec eval: %s\n", r.error().c_str());
      return 1;
    }
    // No score (too few pairs) meets no floor.
    if (a.floor_wordsim && !(r->spearman >= *a.floor_wordsim))
      below.push_back("WordSim-353 Spearman " + format_score(r->spearman) + " is below the floor " +
                      format_score(*a.floor_wordsim));
    if (a.json) {
      json += ", \"wordsim\": " + json_number(r->spearman) + ", \"wordsim_pearson\": " + json_number(r->pearson) +
              ", \"wordsim_pairs\": " + std::to_string(r->pairs) +
              ", \"wordsim_oov_percent\": " + json_number(r->unknown_percent());
    } else if (std::isnan(r->spearman)) {
      std::printf("wordsim  n/a     (%llu pairs scored, too few; %llu out of vocabulary)\n",
                  static_cast<unsigned long long>(r->pairs), static_cast<unsigned long long>(r->unknown));
    } else {
      std::printf("wordsim  %.4f  Spearman (Pearson %.4f; %llu pairs, %llu = %.1f%% out of vocabulary)\n", r->spearman,
                  r->pearson, static_cast<unsigned long long>(r->pairs), static_cast<unsigned long long>(r->unknown),
                  r->unknown_percent());
    }
  }
  if (a.json)
    std::printf("%s}\n", json.c_str());
  for (const auto& why : below)
    std::fprintf(stderr, "FAIL: %s\n", why.c_str());
  return below.empty() ? 0 : 1;
}

} // namespace gridvec
