#include "src/eval/word_analogies.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "src/model/similarity.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

namespace {

struct question {
  uint32_t section = 0;
  std::array<std::string, 4> upper; // a, b, c, expected
  std::array<uint32_t, 4> row{};
};

// gensim asks most_similar for the 5 best and takes the first of them that
// is not one of the question's words; 5 is part of what makes its numbers.
constexpr size_t candidates = 5;

// `summed` is top_cosine's layout (src/model/similarity.hpp), its squared
// norms (one per unit row) already filled in: the same cosine top-k as
// the cluster's queries.
bool answered_right(const eval_vocabulary& vocab, const question& q, std::vector<float>& query,
                    std::vector<float>& summed) {
  const uint32_t d = vocab.dim();
  query.assign(d, 0.0f);
  const float* a = vocab.unit_row(q.row[0]);
  const float* b = vocab.unit_row(q.row[1]);
  const float* c = vocab.unit_row(q.row[2]);
  for (uint32_t j = 0; j < d; ++j)
    query[j] = b[j] + c[j] - a[j];
  summed[0] = dot(query.data(), query.data(), d);
  for (uint32_t i = 0; i < vocab.size(); ++i)
    summed[1 + i] = dot(vocab.unit_row(i), query.data(), d);
  // The best `candidates` rows other than a, b and c themselves, best first.
  const auto best = top_cosine(summed, candidates, {q.row[0], q.row[1], q.row[2]});
  // The first candidate spelled unlike a, b and c is the answer; if none
  // is, gensim compares the last one it looked at.
  std::string predicted;
  for (const auto& candidate : best) {
    predicted = ascii_upper(vocab.word(candidate.id));
    if (predicted != q.upper[0] && predicted != q.upper[1] && predicted != q.upper[2])
      break;
  }
  return predicted == q.upper[3];
}

} // namespace

double analogy_result::accuracy() const {
  const uint64_t asked = correct + incorrect;
  return asked == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(asked);
}

expected<analogy_result> evaluate_analogies(const eval_vocabulary& vocab, const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return failure{"cannot read the analogy questions " + path};
  analogy_result result;
  std::vector<question> asked;
  std::string line;
  for (uint64_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line.rfind(": ", 0) == 0) {
      std::string name = line.substr(2);
      name.erase(name.find_last_not_of(" \t\r") + 1);
      result.sections.push_back({name});
      continue;
    }
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    if (w.size() != 4)
      continue; // gensim skips a line that is not four words
    if (result.sections.empty())
      return failure{path + ":" + std::to_string(line_no) +
                     ": a question before the first section (': name' line); is this an analogy file?"};
    question q;
    q.section = static_cast<uint32_t>(result.sections.size() - 1);
    bool known = true;
    for (size_t k = 0; k < 4; ++k) {
      q.upper[k] = ascii_upper(w[k]);
      auto row = vocab.find(w[k]);
      known = known && row.has_value();
      q.row[k] = row.value_or(0);
    }
    if (!known) {
      ++result.skipped;
      continue;
    }
    asked.push_back(std::move(q));
  }
  if (in.bad())
    return failure{"cannot read the analogy questions " + path};

  // Every question scans the whole vocabulary once: split them over the
  // cores.
  std::vector<char> right(asked.size(), 0);
  std::vector<float> layout(1 + 2 * size_t{vocab.size()});
  for (uint32_t i = 0; i < vocab.size(); ++i)
    layout[1 + vocab.size() + i] = dot(vocab.unit_row(i), vocab.unit_row(i), vocab.dim());
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::vector<float> query, summed = layout;
      for (size_t i = t; i < asked.size(); i += threads)
        right[i] = answered_right(vocab, asked[i], query, summed) ? 1 : 0;
    });
  for (auto& th : pool)
    th.join();
  for (size_t i = 0; i < asked.size(); ++i) {
    auto& section = result.sections[asked[i].section];
    (right[i] ? section.correct : section.incorrect)++;
    (right[i] ? result.correct : result.incorrect)++;
  }
  return result;
}

} // namespace gridvec
