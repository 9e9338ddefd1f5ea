#pragma once
// Helpers shared by the unit tests: a per-test temporary directory (removed
// with everything in it when the test ends) and small file utilities.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "src/corpus/id_stream.hpp"
#include "src/formats/vectors_file.hpp"
#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/util/rng.hpp"

namespace gridvec::test {

/// Appends to `mb` the examples of `sentences` random sentences of
/// 2 + r.below(spread) words below `vocab` (with `repeat_first`, the first
/// word again at the end: a word twice in a sentence); words, sentence
/// lengths and windows all come from `r`, in that order.
inline void add_random_sentences(rng& r, const example_builder& b, uint32_t vocab, size_t sentences, uint32_t spread,
                                 minibatch& mb, bool repeat_first = false) {
  for (size_t s = 0; s < sentences; ++s) {
    std::vector<uint32_t> sent(2 + r.below(spread));
    for (auto& x : sent)
      x = r.below(vocab);
    if (repeat_first)
      sent.push_back(sent[0]);
    for (size_t pos = 0; pos < sent.size(); ++pos)
      b.add(sent, pos, r, mb);
  }
}

/// Zipf-like word counts, most frequent first (as vocabulary ids are):
/// word r seen top / (r + 1) times, at least once.
inline std::vector<uint64_t> zipf_counts(size_t words, double top) {
  std::vector<uint64_t> counts(words);
  for (size_t r = 0; r < words; ++r)
    counts[r] = std::max<uint64_t>(1, static_cast<uint64_t>(top / static_cast<double>(r + 1)));
  return counts;
}

/// Pearson's statistic of `seen` against `expected` (same total), and the
/// 0.1% critical value for its degrees of freedom (Wilson-Hilferty); cells
/// expected empty must be empty.
struct chi_square {
  double statistic = 0, critical = 0;
};
inline chi_square chi_square_of(const std::vector<double>& seen, const std::vector<double>& expected) {
  chi_square c;
  size_t cells = 0;
  for (size_t i = 0; i < seen.size(); ++i) {
    if (expected[i] <= 0) {
      REQUIRE(seen[i] == 0);
      continue;
    }
    c.statistic += (seen[i] - expected[i]) * (seen[i] - expected[i]) / expected[i];
    ++cells;
  }
  const double df = static_cast<double>(cells - 1);
  c.critical = df * std::pow(1 - 2 / (9 * df) + 3.09 * std::sqrt(2 / (9 * df)), 3);
  return c;
}

/// The largest |a[i] - b[i]|: how far a trained model is from a reference.
inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i)
    d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

class temp_dir {
public:
  temp_dir() {
    char tmpl[] = "/tmp/gridvec-test-XXXXXX";
    char* p = ::mkdtemp(tmpl);
    REQUIRE(p != nullptr);
    path_ = p;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  /// Writes `bytes` to `name` in this directory and returns its full path.
  std::string write(const std::string& name, const std::string& bytes) const {
    std::string p = file(name);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    REQUIRE(out.good());
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    REQUIRE(out.good());
    return p;
  }

  /// Names of the entries in this directory, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  std::string path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// A noise sampler over `vocab` words with Zipf-like counts (1000/(i+1)+1).
inline std::shared_ptr<const noise_sampler> zipf_noise(uint32_t vocab) {
  std::vector<uint64_t> counts(vocab);
  for (uint32_t i = 0; i < vocab; ++i)
    counts[i] = 1000 / (i + 1) + 1;
  return std::make_shared<const noise_sampler>(alias_sampler::from_counts(counts));
}

/// A table of the given words and their vectors (all of one length).
inline embedding_table table_of(const std::vector<std::pair<std::string, std::vector<float>>>& rows) {
  embedding_table t;
  t.dim = static_cast<uint32_t>(rows.front().second.size());
  for (const auto& [w, v] : rows) {
    t.words.push_back(w);
    t.data.insert(t.data.end(), v.begin(), v.end());
  }
  return t;
}

/// A corpus with structure: `lines` lines of 12 words, each line from one
/// of two topics ("sea0".."sea19", "sky0".."sky19") whose words co-occur
/// only with each other.
inline void write_topic_corpus(const std::string& file, int lines, uint64_t seed) {
  std::ofstream out(file);
  rng r(seed);
  for (int i = 0; i < lines; ++i) {
    int topic = static_cast<int>(r.below(2));
    for (int k = 0; k < 12; ++k)
      out << (topic ? "sea" : "sky") << r.below(20) << ' ';
    out << '\n';
  }
}

/// How far vectors trained on write_topic_corpus's corpus learnt its two
/// topics: the cosine of ten words of one topic to another of theirs, less
/// their cosine to a word of the other topic, summed (about 0 untrained).
inline double topic_separation(const embedding_table& table) {
  auto cosine = [&](const std::string& a, const std::string& b) {
    auto row = [&](const std::string& w) {
      return table.row(static_cast<size_t>(std::find(table.words.begin(), table.words.end(), w) - table.words.begin()));
    };
    const float *x = row(a), *y = row(b);
    double xy = 0, xx = 0, yy = 0;
    for (uint32_t j = 0; j < table.dim; ++j) {
      xy += x[j] * y[j];
      xx += x[j] * x[j];
      yy += y[j] * y[j];
    }
    return xy / std::sqrt(xx * yy);
  };
  double same = 0, across = 0;
  for (int i = 0; i < 10; ++i) {
    same += cosine("sea" + std::to_string(i), "sea" + std::to_string(i + 10));
    across += cosine("sea" + std::to_string(i), "sky" + std::to_string(i));
  }
  return same - across;
}

using sentences_t = std::vector<std::vector<uint32_t>>;

/// Writes `sentences` as a word-id file (src/corpus/id_stream.hpp); returns its
/// word count.
inline uint64_t write_id_file(const std::string& path, const sentences_t& sentences) {
  auto w = id_writer::create(path);
  REQUIRE(w);
  for (const auto& s : sentences) {
    for (uint32_t id : s)
      w->add(id);
    w->end_sentence();
  }
  uint64_t words = w->words();
  REQUIRE(w->close());
  return words;
}

} // namespace gridvec::test
