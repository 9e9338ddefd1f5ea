// The evaluation pieces behind `gridvec eval`, checked against numbers
// scipy.stats.spearmanr gives for the same inputs.
#include <catch2/catch.hpp>

#include <cmath>

#include "src/eval/correlation.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;

TEST_CASE("average ranks share tied positions", "[eval]") {
  const auto r = average_ranks({10, 20, 20, 5, 20});
  CHECK(r == std::vector<double>{2, 4, 4, 1, 4});
}

TEST_CASE("Spearman with ties matches scipy", "[eval]") {
  // scipy.stats.spearmanr([1,2,2,3,4],[2,1,3,3,5]).correlation = 0.7631578947368421
  CHECK(spearman_rho({1, 2, 2, 3, 4}, {2, 1, 3, 3, 5}) == Approx(0.7631578947368421).epsilon(1e-12));
  CHECK(spearman_rho({1, 2, 3}, {3, 2, 1}) == Approx(-1.0));
  CHECK(std::isnan(spearman_rho({1, 1, 1}, {1, 2, 3})));
}

#include <cstdio>
#include <fstream>

#include "src/eval/word_analogies.hpp"
#include "src/eval/word_pairs.hpp"

using gridvec::test::table_of;

namespace {

std::string file_with(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/gridvec-eval-test-" + name;
  std::ofstream(path) << text;
  return path;
}

} // namespace

TEST_CASE("analogies: 3CosAdd over unit vectors, the question's words excluded", "[eval]") {
  // king - man + woman = queen; the scale of a vector does not matter.
  auto t = table_of({{"man", {1, 0, 0}},
                     {"woman", {0, 1, 0}},
                     {"king", {10, 0, 10}},
                     {"queen", {0, 1, 1}},
                     {"Paris", {0, 0, 1}},
                     {"rare", {1, 1, 1}}});
  auto q = file_with("analogies.txt", ": royals\nman woman king queen\nMAN WOMAN KING QUEEN\n"
                                      "man woman king nowhere\n: places\nman king woman paris\nbad line\n");
  auto r = evaluate_analogies(eval_vocabulary(t, 30000), q);
  REQUIRE(r);
  CHECK(r->correct == 2); // case does not matter
  CHECK(r->skipped == 1); // 'nowhere' is not in the vocabulary
  REQUIRE(r->sections.size() == 2);
  CHECK(r->sections[0].name == "royals");
  CHECK(r->sections[0].correct == 2);
  CHECK(r->sections[1].correct + r->sections[1].incorrect == 1);
  CHECK(r->accuracy() == Approx(r->correct / 3.0));

  // Only the first `restrict` words take part: 'queen' is the 4th.
  auto small = evaluate_analogies(eval_vocabulary(t, 3), q);
  REQUIRE(small);
  CHECK(small->correct + small->incorrect == 0);
  CHECK(small->accuracy() == 0.0);
}

TEST_CASE("analogies: a bad file is one error", "[eval]") {
  auto t = table_of({{"a", {1, 0}}});
  auto r = evaluate_analogies(eval_vocabulary(t, 10), file_with("nosection.txt", "a b c d\n"));
  REQUIRE(!r);
  CHECK(r.error().find("before the first section") != std::string::npos);
  CHECK(!evaluate_analogies(eval_vocabulary(t, 10), "/nonexistent/questions.txt"));
}

TEST_CASE("word pairs: Spearman of cosines against human scores, unknown pairs counted", "[eval]") {
  auto t = table_of({{"a", {1, 0}}, {"b", {1, 0.1f}}, {"c", {0, 1}}, {"d", {-1, 0.2f}}});
  // Cosines a-b > a-c > a-d, the human scores agree: rho = 1.
  auto tsv = file_with("pairs.tsv", "# header\na\tb\t9.0\nA\tc\t5.5\na\td\t1.0\na\tzz\t3\n");
  auto r = evaluate_word_pairs(eval_vocabulary(t, 300000), tsv);
  REQUIRE(r);
  CHECK(r->pairs == 3);
  CHECK(r->unknown == 1);
  CHECK(r->unknown_percent() == Approx(25.0));
  CHECK(r->spearman == Approx(1.0));
  // The CSV spelling of WordSim-353, header and all.
  auto csv = file_with("pairs.csv", "Word 1,Word 2,Human (mean)\na,b,1\na,c,5\na,d,9\n");
  auto r2 = evaluate_word_pairs(eval_vocabulary(t, 300000), csv);
  REQUIRE(r2);
  CHECK(r2->spearman == Approx(-1.0));
  CHECK(!evaluate_word_pairs(eval_vocabulary(t, 10), file_with("none.tsv", "# only a comment\n")));
}
