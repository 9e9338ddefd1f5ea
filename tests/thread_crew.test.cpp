// The helper threads a replicated host trains its minibatches with.
#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "src/util/thread_crew.hpp"

using namespace gridvec;

TEST_CASE("a thread crew runs each part once, part 0 on the caller, the others on its helpers", "[thread_crew]") {
  thread_crew crew(3);
  CHECK(crew.helpers() == 3);
  const auto caller = std::this_thread::get_id();
  for (size_t n : {1u, 2u, 4u, 3u, 1u, 4u}) {
    CAPTURE(n);
    std::vector<std::thread::id> ran_on(n);
    std::vector<int> runs(n, 0);
    crew.run(n, [&](size_t i) {
      ran_on[i] = std::this_thread::get_id();
      ++runs[i];
    });
    CHECK(runs == std::vector<int>(n, 1)); // every part, once, before run returned
    CHECK(ran_on[0] == caller);
    std::set<std::thread::id> distinct(ran_on.begin(), ran_on.end());
    CHECK(distinct.size() == n); // each part on a thread of its own
  }
  CHECK_THROWS_AS(crew.run(5, [](size_t) {}), std::invalid_argument);
}

TEST_CASE("a thread crew's parts run at the same time, job after job", "[thread_crew]") {
  thread_crew crew(1);
  // Part 1 waits for part 0's signal and part 0 for part 1's: only parts
  // that run at once finish.
  for (int job = 0; job < 2000; ++job) {
    std::atomic<int> arrived{0};
    long sum = 0, other = 0;
    crew.run(2, [&](size_t i) {
      arrived.fetch_add(1);
      while (arrived.load() < 2)
        std::this_thread::yield();
      (i == 0 ? sum : other) = job + static_cast<long>(i);
    });
    REQUIRE(sum == job);
    REQUIRE(other == job + 1);
  }
}

TEST_CASE("a thread crew rethrows a part's exception once every part has ended", "[thread_crew]") {
  thread_crew crew(2);
  std::atomic<int> ended{0};
  auto throwing = [&](size_t i) {
    if (i == 2)
      throw std::runtime_error("part 2 failed");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ended.fetch_add(1);
  };
  CHECK_THROWS_WITH(crew.run(3, throwing), "part 2 failed");
  CHECK(ended.load() == 2); // the others were waited for
  // The caller's own part too.
  CHECK_THROWS_WITH(crew.run(2,
                             [](size_t i) {
                               if (i == 0)
                                 throw std::runtime_error("mine");
                             }),
                    "mine");
  // And the crew goes on working.
  std::atomic<int> runs{0};
  crew.run(3, [&](size_t) { runs.fetch_add(1); });
  CHECK(runs.load() == 3);
}
