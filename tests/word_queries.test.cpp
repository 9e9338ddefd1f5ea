#include "src/eval/word_queries.hpp"
#include "tests/test_util.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gridvec;

using gridvec::test::table_of;

namespace {

std::vector<std::string> words_of(const word_queries& q, const std::vector<word_score>& scores) {
  std::vector<std::string> out;
  for (const auto& s : scores)
    out.push_back(q.word(s.row));
  return out;
}

} // namespace

TEST_CASE("word_queries: most_similar is 3CosAdd over unit vectors, the query words left out", "[word_queries]") {
  // Lengths differ on purpose: only directions count.
  word_queries q{table_of({{"man", {2, 0, 0}},
                           {"woman", {0, 3, 0}},
                           {"king", {1, 0, 1}},
                           {"queen", {0, 5, 5}},
                           {"apple", {0, 0, -1}},
                           {"king", {9, 9, 9}}})}; // a word twice: the first row answers
  auto best = q.most_similar({"king", "woman"}, {"man"}, 3);
  REQUIRE(best);
  REQUIRE(best->size() == 3);
  CHECK(words_of(q, *best) == std::vector<std::string>{"queen", "king", "apple"});
  // unit(king) - unit(man) + unit(woman) = (1/r2 - 1, 1, 1/r2); queen's unit = (0, 1/r2, 1/r2).
  const double r2 = std::sqrt(2.0);
  const double qx = 1 / r2 - 1, qy = 1, qz = 1 / r2;
  const double qn = std::sqrt(qx * qx + qy * qy + qz * qz);
  CHECK((*best)[0].score == Approx((qy / r2 + qz / r2) / qn).epsilon(1e-6));
  // The second "king" is another row, not the query word: it may answer.
  CHECK(q.word((*best)[1].row) == "king");
  CHECK((*best)[1].row == 5);
  // Only the first rows, with --restrict-vocab.
  auto restricted = q.most_similar({"man"}, {}, 10, 3);
  REQUIRE(restricted);
  CHECK(words_of(q, *restricted) == std::vector<std::string>{"king", "woman"});
  CHECK_THAT(q.most_similar({"man", "prince"}, {}, 3).error(), Catch::Contains("'prince' is not in the vocabulary"));
  CHECK_FALSE(q.most_similar({}, {}, 3));
}

TEST_CASE("word_queries: the word that does not match has the lowest cosine with the mean", "[word_queries]") {
  word_queries q{table_of({{"cat", {1, 0.1f}}, {"dog", {1, -0.1f}}, {"mouse", {1, 0.3f}}, {"car", {-0.2f, 1}}})};
  std::vector<std::string> missing;
  auto ranked = q.rank_by_centrality({"cat", "car", "dog", "unicorn", "mouse"}, missing);
  REQUIRE(ranked);
  CHECK(q.word(ranked->front().row) == "car");
  CHECK(ranked->size() == 4);
  CHECK(missing == std::vector<std::string>{"unicorn"});
  for (size_t i = 1; i < ranked->size(); ++i)
    CHECK((*ranked)[i - 1].score <= (*ranked)[i].score);
  CHECK_FALSE(q.rank_by_centrality({"unicorn"}, missing));
}
