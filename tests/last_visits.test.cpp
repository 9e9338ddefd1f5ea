#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "src/model/last_visits.hpp"

using namespace gridvec;

namespace last_visits_test {

// Whether targets[k] comes again after k, the slow way.
std::vector<bool> reference(const std::vector<uint32_t>& targets) {
  std::vector<bool> last(targets.size(), true);
  for (size_t k = 0; k < targets.size(); ++k)
    for (size_t j = k + 1; j < targets.size(); ++j)
      if (targets[j] == targets[k])
        last[k] = false;
  return last;
}

void check(last_visits& visits, const std::vector<uint32_t>& targets) {
  visits.mark(targets);
  const auto want = reference(targets);
  for (size_t k = 0; k < targets.size(); ++k) {
    INFO("dot product " << k << ", row " << targets[k]);
    CHECK(visits.is_last(k) == want[k]);
  }
}

} // namespace last_visits_test

TEST_CASE("last_visits marks each row's last dot product of a call", "[shard_store]") {
  last_visits visits;
  last_visits_test::check(visits, {});
  last_visits_test::check(visits, {7});
  last_visits_test::check(visits, {3, 3, 3});
  last_visits_test::check(visits, {1, 2, 1, 4, 2, 9, 1});
  // Rows far apart and at the top of the 32-bit range (the largest row an
  // id may have), reusing the set between calls of other sizes.
  last_visits_test::check(visits, {0, 4294967294u, 0, 4294967294u, 65536, 131072});

  // Calls as a shard sees them: thousands of targets, frequent rows
  // repeated many times, rare ones once, over a vocabulary of 10^8.
  std::mt19937 gen(5);
  std::uniform_int_distribution<uint32_t> rare(0, 100000000), frequent(0, 50);
  for (size_t size : {100u, 2040u, 7000u}) {
    std::vector<uint32_t> targets(size);
    for (auto& t : targets)
      t = gen() % 3 == 0 ? frequent(gen) : rare(gen);
    last_visits_test::check(visits, targets);
  }
}
