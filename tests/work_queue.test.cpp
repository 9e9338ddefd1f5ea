// The work queue (src/corpus/work_queue.hpp): a slow learner trains fewer
// parts, every part is trained exactly once per epoch, and a lost
// learner's lease goes back to the queue from its last safe cursor.
#include <catch2/catch.hpp>

#include <map>
#include <optional>

#include "src/corpus/work_queue.hpp"

using namespace gridvec;

namespace {

std::vector<part_cursor> parts_of(uint32_t n, uint64_t words) {
  std::vector<part_cursor> out;
  for (uint32_t p = 0; p < n; ++p)
    out.push_back(part_cursor{p, "part-" + std::to_string(p) + ".ids", words, 0, 8, 0});
  return out;
}

struct simulation {
  uint64_t ticks = 0;
  std::vector<uint64_t> completed;                                   // per learner
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> by; // (part, epoch) -> who trained it
};

/// Trains the whole job: learner l does speed[l] words per tick; a learner
/// holding nothing takes the next part.
simulation simulate(uint32_t parts, uint32_t iterations, const std::vector<uint64_t>& speed) {
  const uint64_t words = 100;
  auto cursors = parts_of(parts, words);
  work_queue queue{parts, iterations};
  std::vector<std::optional<uint32_t>> holding(speed.size());
  simulation out;
  for (;;) {
    for (uint32_t l = 0; l < speed.size(); ++l)
      if (!holding[l])
        holding[l] = queue.take(l, cursors);
    bool any = false;
    for (uint32_t l = 0; l < speed.size(); ++l) {
      if (!holding[l])
        continue;
      any = true;
      auto& c = cursors[*holding[l]];
      const uint64_t in_epoch = c.processed - uint64_t{c.epoch} * words;
      c.processed += std::min(speed[l], words - in_epoch);
      if (c.processed == uint64_t{c.epoch + 1} * words) {
        out.by[{c.part, c.epoch}].push_back(l);
        ++c.epoch;
      }
      if (queue.progressed(l, c))
        holding[l].reset();
    }
    if (!any)
      break;
    ++out.ticks;
  }
  for (const auto& c : cursors)
    CHECK(c.finished(iterations));
  out.completed = queue.completed();
  out.completed.resize(speed.size(), 0);
  return out;
}

} // namespace

TEST_CASE("work queue: every part's epoch trained exactly once, lowest epoch first", "[work_queue]") {
  auto cursors = parts_of(4, 100);
  work_queue queue{4, 2};
  // Two learners take parts 0 and 1; the next one is part 2 (epoch 0),
  // not part 0's second epoch.
  CHECK(queue.take(0, cursors) == 0u);
  CHECK(queue.take(1, cursors) == 1u);
  cursors[0].epoch = 1;
  cursors[0].processed = 100;
  CHECK(queue.progressed(0, cursors[0]));
  CHECK(queue.holder(0) == work_queue::nobody);
  CHECK(queue.take(0, cursors) == 2u);
  CHECK(queue.take(2, cursors) == 3u);
  CHECK(queue.take(3, cursors) == 0u);           // every epoch-0 part is held: part 0's epoch 1
  CHECK(queue.take(4, cursors) == std::nullopt); // the rest is held
  // A report within the epoch does not end the lease; one from another
  // learner (a stale one) does nothing.
  cursors[1].processed = 50;
  CHECK_FALSE(queue.progressed(1, cursors[1]));
  CHECK_FALSE(queue.progressed(0, cursors[1]));
  CHECK(queue.holder(1) == 1);
}

TEST_CASE("work queue: a learner at half speed trains fewer parts and costs the epoch little", "[work_queue]") {
  // 2 learners, 4 parts each, 3 epochs; learner 1 at half speed.
  const auto slow = simulate(8, 3, {10, 5});
  REQUIRE(slow.by.size() == 8 * 3);
  for (const auto& [key, learners] : slow.by)
    CHECK(learners.size() == 1); // exactly once per epoch
  CHECK(slow.completed[0] + slow.completed[1] == 24);
  CHECK(slow.completed[0] > slow.completed[1]);
  // A fixed split would take the slow learner 4 parts x 3 epochs x 100
  // words / 5 = 240 ticks; together they do 2400 words at 15 a tick: 160,
  // and whole parts round it up a little.
  CHECK(slow.ticks < 200);
  // Both at full speed: 120 ticks; the slow one costs a third more, not double.
  CHECK(simulate(8, 3, {10, 10}).ticks == 120);
}

TEST_CASE("work queue: a lost learner's part goes back from its last safe cursor", "[work_queue]") {
  auto cursors = parts_of(3, 100);
  work_queue queue{3, 1};
  REQUIRE(queue.take(0, cursors) == 0u);
  REQUIRE(queue.take(1, cursors) == 1u);
  cursors[1].processed = 40; // learner 1's last safe cursor
  CHECK(queue.release_all(1) == std::vector<uint32_t>{1});
  CHECK(queue.holder(1) == work_queue::nobody);
  // The survivor, done with part 0, takes part 1 where learner 1 left it
  // (before part 2: same epoch, lower index) and trains only its rest.
  cursors[0].epoch = 1;
  cursors[0].processed = 100;
  CHECK(queue.progressed(0, cursors[0]));
  CHECK(queue.take(0, cursors) == 1u);
  CHECK(cursors[1].processed == 40);
  CHECK(queue.held_by(0) == std::vector<uint32_t>{1});
  // A rollback clears every lease.
  queue.clear();
  CHECK(queue.held_by(0).empty());
}
