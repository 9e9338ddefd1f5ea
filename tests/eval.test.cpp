// The evaluation pieces behind `gridvec eval`, checked against numbers
// scipy.stats.spearmanr gives for the same inputs.
#include <catch2/catch.hpp>

#include <cmath>

#include "src/eval/spearman.hpp"

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
