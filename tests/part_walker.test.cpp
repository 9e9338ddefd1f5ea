// part_walker: reads its parts sentence by sentence over every epoch and
// keeps each part's cursor exact, so that a cursor taken anywhere restarts
// the part at the same sentence.
#include <catch2/catch.hpp>

#include "src/corpus/id_stream.hpp"
#include "src/corpus/part_walker.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::sentences_t;
using gridvec::test::temp_dir;
using gridvec::test::write_id_file;

namespace {

part_cursor write_part(const temp_dir& dir, uint32_t part, const sentences_t& sentences) {
  auto path = dir.file("part-" + std::to_string(part) + ".ids");
  uint64_t words = write_id_file(path, sentences);
  return part_cursor{part, path, words, 0, id_reader::first_offset, 0};
}

sentences_t drain(part_walker& walker, size_t* part_ends = nullptr) {
  sentences_t out;
  std::vector<uint32_t> s;
  for (;;) {
    status error;
    auto step = walker.next(s, error);
    REQUIRE(error);
    if (step == part_walker::step::no_work)
      return out;
    if (step == part_walker::step::epoch_end)
      continue;
    if (step == part_walker::step::part_end) {
      if (part_ends)
        ++*part_ends;
      continue;
    }
    out.push_back(s);
  }
}

} // namespace

TEST_CASE("part_walker: every epoch of every part, epoch by epoch", "[part_walker]") {
  temp_dir dir;
  auto a = write_part(dir, 0, {{1, 2}, {3}});
  auto b = write_part(dir, 1, {{4, 5, 6}});
  part_walker walker{2};
  REQUIRE(walker.add({a, b}));
  size_t ends = 0;
  auto all = drain(walker, &ends);
  CHECK(all == sentences_t{{1, 2}, {3}, {4, 5, 6}, {1, 2}, {3}, {4, 5, 6}});
  CHECK(ends == 4); // a part ends each time the walk moves to another, and at the last
  CHECK_FALSE(walker.has_work());
  REQUIRE(walker.parts().size() == 2);
  CHECK(walker.parts()[0].epoch == 2);
  CHECK(walker.parts()[0].processed == 6);
  CHECK(walker.parts()[1].processed == 6);
  CHECK(walker.parts()[1].finished(2));
}

TEST_CASE("part_walker: a cursor taken mid-way restarts at the same sentence", "[part_walker]") {
  temp_dir dir;
  auto a = write_part(dir, 0, {{1}, {2, 2}, {3, 3, 3}, {4}});
  part_walker walker{2};
  REQUIRE(walker.add({a}));
  std::vector<uint32_t> s;
  status error;
  for (int i = 0; i < 4; ++i) // epoch 1
    REQUIRE(walker.next(s, error) == part_walker::step::sentence);
  REQUIRE(walker.next(s, error) == part_walker::step::epoch_end);
  CHECK(walker.sentence_start().epoch == 1);
  for (int i = 0; i < 2; ++i) // half of epoch 2
    REQUIRE(walker.next(s, error) == part_walker::step::sentence);
  const part_cursor here = walker.current();
  CHECK(here.epoch == 1);
  CHECK(here.processed == 7 + 3);
  const part_cursor before_last = walker.sentence_start();
  CHECK(before_last.processed == 7 + 1);

  part_walker resumed{2};
  REQUIRE(resumed.add({here}));
  CHECK(drain(resumed) == sentences_t{{3, 3, 3}, {4}});
  part_walker again{2};
  REQUIRE(again.reset({before_last}));
  CHECK(drain(again) == sentences_t{{2, 2}, {3, 3, 3}, {4}});
}

TEST_CASE("part_walker: finished and empty parts are skipped; bad cursors are errors", "[part_walker]") {
  temp_dir dir;
  auto a = write_part(dir, 0, {{1}});
  auto done = a;
  done.epoch = 3;
  auto empty = write_part(dir, 1, {});
  part_walker walker{3};
  REQUIRE(walker.add({done, empty}));
  CHECK_FALSE(walker.has_work());
  REQUIRE(walker.add({a}));
  CHECK(drain(walker).size() == 3);

  auto bad = a;
  bad.offset = 7; // not a word boundary
  part_walker w2{1};
  CHECK_FALSE(w2.add({bad}));
  auto gone = a;
  gone.ids_path = dir.file("missing.ids");
  part_walker w3{1};
  CHECK_FALSE(w3.reset({gone}));
}

TEST_CASE("part_walker: a word id past the vocabulary fails with a line", "[part_walker]") {
  temp_dir dir;
  auto a = write_part(dir, 0, {{1, 2}, {3, 70000}});
  part_walker walker{1, 1000};
  REQUIRE(walker.add({a}));
  std::vector<uint32_t> s;
  status error;
  REQUIRE(walker.next(s, error) == part_walker::step::sentence);
  REQUIRE(error);
  CHECK(walker.next(s, error) == part_walker::step::no_work);
  REQUIRE_FALSE(error);
  CHECK(gridvec::test::contains(error.error(), "damaged word-id file"));
  CHECK(gridvec::test::contains(error.error(), "word id 70000 is not below the vocabulary's 1000 words"));
  CHECK(s.empty());
}

TEST_CASE("part_walker: with leases, each part given is trained to the end of its epoch", "[part_walker]") {
  temp_dir dir;
  auto a = write_part(dir, 0, {{1, 2}, {3}});
  auto b = write_part(dir, 1, {{4, 5, 6}});
  part_walker walker{3, UINT64_MAX, true};
  REQUIRE(walker.add({a}));
  size_t ends = 0;
  CHECK(drain(walker, &ends) == sentences_t{{1, 2}, {3}}); // one epoch, not three
  CHECK(ends == 1);
  CHECK_FALSE(walker.has_work());
  CHECK(walker.parts()[0].epoch == 1);
  CHECK(walker.parts()[0].offset == id_reader::first_offset);
  CHECK_FALSE(walker.parts()[0].finished(3));
  // The coordinator hands out another part, then part 0 again for its next
  // epoch: the ended lease of part 0 gives way to the new one.
  REQUIRE(walker.add({b}));
  CHECK(drain(walker) == sentences_t{{4, 5, 6}});
  auto again = walker.parts()[0];
  REQUIRE(walker.add({again}));
  CHECK(drain(walker) == sentences_t{{1, 2}, {3}});
  REQUIRE(walker.parts().size() == 2);
  CHECK(walker.parts()[0].part == 1);
  CHECK(walker.parts()[1].part == 0);
  CHECK(walker.parts()[1].epoch == 2);
  CHECK(walker.parts()[1].processed == 6);
}

TEST_CASE("part_walker: a lease taken mid-epoch ends at that epoch's end", "[part_walker]") {
  temp_dir dir;
  auto a = write_part(dir, 0, {{1, 2}, {3}, {4}});
  part_walker first{2, UINT64_MAX, true};
  REQUIRE(first.add({a}));
  std::vector<uint32_t> s;
  status error;
  REQUIRE(first.next(s, error) == part_walker::step::sentence);
  auto cursor = first.current(); // after {1, 2}: a learner lost here hands this on
  part_walker second{2, UINT64_MAX, true};
  REQUIRE(second.add({cursor}));
  CHECK(drain(second) == sentences_t{{3}, {4}});
  CHECK(second.parts()[0].epoch == 1);
  CHECK(second.parts()[0].processed == 4);
}

TEST_CASE("part_walker: parts at different epochs go on from the fewest epochs done", "[part_walker]") {
  temp_dir dir;
  auto a = write_part(dir, 0, {{1}, {2}});
  auto b = write_part(dir, 1, {{3}});
  auto c = write_part(dir, 2, {{4}});
  // A rollback's cursors: part 0 one epoch in and half through its second,
  // part 1 one epoch in, part 2 none yet.
  {
    part_walker first{2};
    REQUIRE(first.add({a}));
    std::vector<uint32_t> s;
    status error;
    REQUIRE(first.next(s, error) == part_walker::step::sentence);
    a.offset = first.current().offset; // after {1}
  }
  a.epoch = 1;
  b.epoch = 1;
  part_walker walker{2};
  REQUIRE(walker.reset({a, b, c}));
  CHECK(walker.current().part == 2);
  size_t ends = 0;
  CHECK(drain(walker, &ends) == sentences_t{{4}, {2}, {3}, {4}});
  CHECK(ends == 4); // 2 -> 0 -> 1 -> 2 -> no more
  for (const auto& p : walker.parts())
    CHECK(p.finished(2));
}
