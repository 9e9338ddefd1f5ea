// A replicated host's synchronisation rounds (src/replicated/sync_round.hpp)
// driven directly: changes kept until every host's are in, a host a round
// ahead accepted, out-of-step messages refused with one line, and the round
// complete once every master's values are heard.
#include <catch2/catch.hpp>

#include "src/replicated/sync_round.hpp"

namespace sync_round_test {

using namespace gridvec;

row_block changes_of(uint32_t host, uint64_t round, bool last = false) {
  row_block b;
  b.host = host;
  b.round = round;
  b.last = last;
  return b;
}

TEST_CASE("a master combines a round once every host's changes are in", "[sync_round]") {
  sync_round sync;
  sync.restart();
  sync.set(sync_round::phase::training);
  REQUIRE(sync.receive_changes(changes_of(1, 0)));
  REQUIRE(sync.receive_changes(changes_of(2, 1))); // host 2 is a round ahead
  CHECK_FALSE(sync.complete_changes(0, 3));        // not every host, and this one still training
  sync.set(sync_round::phase::syncing);
  REQUIRE(sync.receive_changes(changes_of(0, 0)));
  CHECK_FALSE(sync.complete_changes(0, 3)); // host 2's round 0 is missing
  REQUIRE(sync.receive_changes(changes_of(2, 0)));
  auto all = sync.complete_changes(0, 3);
  REQUIRE(all);
  CHECK(all->size() == 3);
  CHECK_FALSE(sync.complete_changes(0, 3)); // taken once

  // Out of step: twice, two rounds ahead, or a round already over.
  auto twice = sync.receive_changes(changes_of(2, 1));
  REQUIRE_FALSE(twice);
  CHECK(twice.error() == "host 2 sent changes of round 1 twice");
  auto ahead = sync.receive_changes(changes_of(0, 2));
  REQUIRE_FALSE(ahead);
  CHECK(ahead.error() == "host 0 sent changes of round 2 during round 0");
}

TEST_CASE("a host's round is complete once every master's values are heard", "[sync_round]") {
  sync_round sync;
  sync.restart();
  sync.set(sync_round::phase::syncing);
  row_block values = changes_of(1, 0);
  REQUIRE(sync.check_values(values));
  CHECK(sync.shards_current()); // loaded from the shards
  CHECK_FALSE(sync.hear_values(false, false, 2));
  CHECK(sync.hear_values(false, false, 2));
  CHECK(sync.round() == 1);
  CHECK_FALSE(sync.shards_current()); // a round the masters did not store
  CHECK(sync.at() == sync_round::phase::training);
  // Values of a round this host is not syncing are refused.
  auto early = sync.check_values(changes_of(1, 1));
  REQUIRE_FALSE(early);
  CHECK(early.error() == "round 1's values came in round 1");
  sync.set(sync_round::phase::syncing);
  CHECK_FALSE(sync.check_values(changes_of(0, 0)));
  // A master out of work makes this the last round; every master stores it.
  CHECK_FALSE(sync.hear_values(true, true, 2));
  CHECK(sync.hear_values(false, true, 2));
  CHECK(sync.shards_current());
  CHECK(sync.finishing());
  CHECK(sync.at() == sync_round::phase::finished);
  // A halt forgets the round; a rollback starts again at round 0.
  sync.forget();
  CHECK(sync.at() == sync_round::phase::loading);
  CHECK_FALSE(sync.finishing());
  sync.restart();
  CHECK(sync.round() == 0);
  // The shards hold a round only if every master stored it.
  sync.set(sync_round::phase::syncing);
  CHECK_FALSE(sync.hear_values(false, true, 2));
  CHECK(sync.hear_values(false, false, 2));
  CHECK_FALSE(sync.shards_current());
  sync.set(sync_round::phase::syncing);
  CHECK_FALSE(sync.hear_values(false, true, 2));
  CHECK(sync.hear_values(false, true, 2));
  CHECK(sync.shards_current());
  sync.forget(); // a rollback loads the model from the shards
  CHECK(sync.shards_current());
}

} // namespace sync_round_test
