// gridvec nearest, analogy and doesnt-match: questions asked of a vectors
// file (word2vec text or binary), answered as gensim's KeyedVectors
// most_similar and doesnt_match answer them (src/eval/word_queries.hpp),
// like word2vec.c's distance and word-analogy. With no words on the
// command line, each reads its questions from standard input, one a line,
// with a prompt when that is a terminal.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "apps/cli/cli.hpp"
#include "src/eval/word_queries.hpp"
#include "src/formats/vectors_file.hpp"

namespace gridvec {

namespace {

enum class query_kind { nearest, analogy, doesnt_match };

struct query_args {
  std::string vectors;
  std::vector<std::string> words;    // as given, outside --positive/--negative
  std::vector<std::string> positive; // --positive
  std::vector<std::string> negative; // --negative
  size_t k = 10;
  size_t restrict = 0;
};

const char* name_of(query_kind kind) {
  switch (kind) {
    case query_kind::nearest: return "nearest";
    case query_kind::analogy: return "analogy";
    default: return "doesnt-match";
  }
}

const char* usage_of(query_kind kind) {
  switch (kind) {
    case query_kind::nearest:
      return "usage: gridvec nearest VECTORS [WORD ...] [--positive A,B] [--negative C] [-k N]\n"
             "Prints the N words nearest by cosine: to each WORD on its own, or to one query\n"
             "of --positive and --negative words (gensim's most_similar: the mean of their\n"
             "unit vectors, negatives subtracted; the query words left out).\n"
             "With no words, reads queries from standard input, one a line: words, each\n"
             "added to the query, or subtracted after a '-' (king - man + woman).\n"
             "VECTORS: a word2vec file (text or binary) or a directory of part files\n"
             "(train --output-parts 1).\n\n"
             "  -k N                  how many words [10]\n"
             "  --positive W,W,...    words added to the query (may be repeated)\n"
             "  --negative W,W,...    words subtracted from the query (may be repeated)\n"
             "  --restrict-vocab N    answer among the file's first N words only [all]\n";
    case query_kind::analogy:
      return "usage: gridvec analogy VECTORS [A B C] [-k N]\n"
             "\"A is to B as C is to ?\": the N words nearest to B - A + C (gensim's\n"
             "most_similar(positive=[B, C], negative=[A]), word2vec.c's word-analogy).\n"
             "With no words, reads A B C triples from standard input, one a line.\n\n"
             "  -k N                  how many words [10]\n"
             "  --restrict-vocab N    answer among the file's first N words only [all]\n";
    default:
      return "usage: gridvec doesnt-match VECTORS [WORD WORD ...]\n"
             "Prints the word that does not match the others (gensim's doesnt_match: the\n"
             "lowest cosine with the mean of the words' unit vectors), then every word by\n"
             "that cosine, lowest first. Words outside the vocabulary are left out.\n"
             "With no words, reads lists of words from standard input, one a line.\n";
  }
}

std::vector<std::string> split_words(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::string word;
  std::istringstream in(text);
  while (std::getline(in, word, separator))
    if (!word.empty())
      out.push_back(word);
  return out;
}

std::vector<std::string> whitespace_words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string w;
  while (in >> w)
    out.push_back(w);
  return out;
}

// "a + b - c"
std::string query_text(const std::vector<std::string>& positive, const std::vector<std::string>& negative) {
  std::string out;
  for (const auto& w : positive)
    out += (out.empty() ? "" : " + ") + w;
  for (const auto& w : negative)
    out += (out.empty() ? "- " : " - ") + w;
  return out;
}

// One question; false if it could not be answered (the reason on stderr).
bool answer(const word_queries& q, query_kind kind, const query_args& a, const std::vector<std::string>& positive,
            const std::vector<std::string>& negative) {
  const char* name = name_of(kind);
  if (kind == query_kind::doesnt_match) {
    std::vector<std::string> missing;
    auto ranked = q.rank_by_centrality(positive, missing);
    if (!missing.empty()) {
      std::string list;
      for (const auto& w : missing)
        list += " " + w;
      std::fprintf(stderr, "gridvec %s: left out, not in the vocabulary:%s\n", name, list.c_str());
    }
    if (!ranked) {
      std::fprintf(stderr, "gridvec %s: %s\n", name, ranked.error().c_str());
      return false;
    }
    std::printf("%s\n", q.word(ranked->front().row).c_str());
    for (const auto& s : *ranked)
      std::printf("  %-32s %.4f\n", q.word(s.row).c_str(), s.score);
    return true;
  }
  auto best = q.most_similar(positive, negative, a.k, a.restrict);
  if (!best) {
    std::fprintf(stderr, "gridvec %s: %s\n", name, best.error().c_str());
    return false;
  }
  std::printf("%s:\n", query_text(positive, negative).c_str());
  for (const auto& s : *best)
    std::printf("  %-32s %.4f\n", q.word(s.row).c_str(), s.score);
  return true;
}

// One line of standard input as a question.
bool answer_line(const word_queries& q, query_kind kind, const query_args& a, const std::string& line) {
  auto words = whitespace_words(line);
  if (kind == query_kind::analogy) {
    if (words.size() != 3) {
      std::fprintf(stderr, "gridvec analogy: give three words, A B C (A is to B as C is to ?)\n");
      return false;
    }
    return answer(q, kind, a, {words[1], words[2]}, {words[0]});
  }
  if (kind == query_kind::doesnt_match)
    return answer(q, kind, a, words, {});
  std::vector<std::string> positive, negative;
  bool subtract = false;
  for (const auto& w : words) {
    if (w == "-" || w == "+") {
      subtract = w == "-";
      continue;
    }
    (subtract ? negative : positive).push_back(w);
    subtract = false;
  }
  return answer(q, kind, a, positive, negative);
}

int usage_error(query_kind kind, const std::string& why) {
  std::fprintf(stderr, "gridvec %s: %s (gridvec %s --help)\n", name_of(kind), why.c_str(), name_of(kind));
  return 2;
}

int run_query(query_kind kind, const std::vector<std::string>& args) {
  query_args a;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    auto number = [&](size_t& out) {
      const std::string* v = value();
      if (!v)
        return false;
      auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
      return ec == std::errc{} && ptr == v->data() + v->size() && out > 0;
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage_of(kind), stdout);
      return 0;
    } else if (kind != query_kind::doesnt_match && (arg == "-k" || arg == "--k")) {
      if (!number(a.k))
        return usage_error(kind, "-k needs a positive number");
    } else if (kind != query_kind::doesnt_match && arg == "--restrict-vocab") {
      if (!number(a.restrict))
        return usage_error(kind, "--restrict-vocab needs a positive number");
    } else if (kind == query_kind::nearest && (arg == "--positive" || arg == "--negative")) {
      const std::string* v = value();
      if (!v || split_words(*v, ',').empty())
        return usage_error(kind, arg + " needs words (W,W,...)");
      for (auto& w : split_words(*v, ','))
        (arg == "--positive" ? a.positive : a.negative).push_back(w);
    } else if (a.vectors.empty()) {
      if (arg.size() > 1 && arg[0] == '-')
        return usage_error(kind, "unknown option " + arg);
      a.vectors = arg;
    } else {
      a.words.push_back(arg);
    }
  }
  if (a.vectors.empty())
    return usage_error(kind, "no vectors file given");
  const bool combined = !a.positive.empty() || !a.negative.empty();
  if (combined && !a.words.empty())
    return usage_error(kind, "give the words either one by one or with --positive/--negative, not both");
  if (kind == query_kind::analogy && !a.words.empty() && a.words.size() != 3)
    return usage_error(kind, "give three words, A B C (A is to B as C is to ?)");
  if (kind == query_kind::doesnt_match && a.words.size() == 1)
    return usage_error(kind, "give two or more words");
  auto table = read_vectors(a.vectors);
  if (!table) {
    std::fprintf(stderr, "gridvec %s: %s\n", name_of(kind), table.error().c_str());
    return 1;
  }
  const word_queries q{std::move(*table)};
  bool ok = true;
  if (combined) {
    ok = answer(q, kind, a, a.positive, a.negative);
  } else if (!a.words.empty()) {
    if (kind == query_kind::nearest)
      for (const auto& w : a.words)
        ok = answer(q, kind, a, {w}, {}) && ok;
    else if (kind == query_kind::analogy)
      ok = answer(q, kind, a, {a.words[1], a.words[2]}, {a.words[0]});
    else
      ok = answer(q, kind, a, a.words, {});
  } else {
    // Interactive, as word2vec.c's distance: a prompt on a terminal; EXIT
    // or the end of the input stops.
    const bool terminal = ::isatty(STDIN_FILENO) != 0;
    std::string line;
    for (;;) {
      if (terminal) {
        std::printf("%s> ", name_of(kind));
        std::fflush(stdout);
      }
      if (!std::getline(std::cin, line))
        break;
      if (line == "EXIT")
        break;
      if (whitespace_words(line).empty())
        continue;
      ok = answer_line(q, kind, a, line) && ok;
      std::fflush(stdout);
    }
    if (terminal)
      std::printf("\n");
  }
  return ok ? 0 : 1;
}

} // namespace

int cli_nearest(const std::vector<std::string>& args) { return run_query(query_kind::nearest, args); }
int cli_analogy(const std::vector<std::string>& args) { return run_query(query_kind::analogy, args); }
int cli_doesnt_match(const std::vector<std::string>& args) { return run_query(query_kind::doesnt_match, args); }

} // namespace gridvec
