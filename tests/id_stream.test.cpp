#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "src/corpus/id_stream.hpp"
#include "src/util/rng.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;
using gridvec::test::sentences_t;
using gridvec::test::temp_dir;
using gridvec::test::write_id_file;

namespace {

sentences_t read_all(id_reader& r) {
  sentences_t out;
  std::vector<uint32_t> s{99, 98}; // must be cleared by next_sentence
  while (r.next_sentence(s))
    out.push_back(s);
  return out;
}

} // namespace

TEST_CASE("id_stream: round trip of sentences", "[id_stream]") {
  temp_dir dir;
  const auto path = dir.file("ids.bin");
  sentences_t in{{0, 1, 2}, {7}, {4000000000u, 0, 5, 5, 5}, {3, 2, 1, 0}};
  write_id_file(path, in);

  // Header and layout as documented: magic, ids, 0xFFFFFFFF after each sentence.
  auto bytes = gridvec::test::read_file(path);
  REQUIRE(bytes.size() == 8 + 4 * (3 + 1 + 5 + 4 + 4));
  CHECK(bytes.substr(0, 8) == std::string("GVIDS01\n"));
  uint32_t first[4];
  std::memcpy(first, bytes.data() + 8, sizeof first);
  CHECK(first[0] == 0u);
  CHECK(first[2] == 2u);
  CHECK(first[3] == sentence_end);

  auto r = id_reader::open(path);
  REQUIRE(r);
  CHECK(read_all(*r) == in);
  std::vector<uint32_t> s;
  CHECK_FALSE(r->next_sentence(s)); // stays at the end
  CHECK(s.empty());
}

TEST_CASE("id_stream: empty sentences are skipped, counters", "[id_stream]") {
  temp_dir dir;
  const auto path = dir.file("ids.bin");
  auto w = id_writer::create(path);
  REQUIRE(w);
  w->end_sentence(); // nothing yet: no sentence
  w->add(1);
  w->add(2);
  w->end_sentence();
  w->end_sentence(); // twice: still one sentence
  w->add(3);         // close() ends the last sentence
  CHECK(w->words() == 3u);
  CHECK(w->sentences() == 1u);
  REQUIRE(w->close());
  CHECK(w->sentences() == 2u);

  auto r = id_reader::open(path);
  REQUIRE(r);
  CHECK(read_all(*r) == sentences_t{{1, 2}, {3}});
}

TEST_CASE("id_stream: long sentences are split at max_sentence_words", "[id_stream]") {
  REQUIRE(max_sentence_words == 1000u);
  temp_dir dir;
  const auto path = dir.file("ids.bin");
  std::vector<uint32_t> exactly(1000), longer(1001), much_longer(2500);
  for (uint32_t i = 0; i < 1000; ++i)
    exactly[i] = i;
  for (uint32_t i = 0; i < 1001; ++i)
    longer[i] = 10000 + i;
  for (uint32_t i = 0; i < 2500; ++i)
    much_longer[i] = 20000 + i;

  auto w = id_writer::create(path);
  REQUIRE(w);
  for (const auto* s : {&exactly, &longer, &much_longer}) {
    for (uint32_t id : *s)
      w->add(id);
    w->end_sentence();
  }
  REQUIRE(w->close());
  CHECK(w->words() == 4501u);
  CHECK(w->sentences() == 1u + 2u + 3u);

  auto r = id_reader::open(path);
  REQUIRE(r);
  auto got = read_all(*r);
  REQUIRE(got.size() == 6u);
  CHECK(got[0] == exactly);
  CHECK(got[1] == std::vector<uint32_t>(longer.begin(), longer.begin() + 1000));
  CHECK(got[2] == std::vector<uint32_t>{11000});
  CHECK(got[3] == std::vector<uint32_t>(much_longer.begin(), much_longer.begin() + 1000));
  CHECK(got[4] == std::vector<uint32_t>(much_longer.begin() + 1000, much_longer.begin() + 2000));
  CHECK(got[5] == std::vector<uint32_t>(much_longer.begin() + 2000, much_longer.end()));
}

TEST_CASE("id_stream: rewind reads the same again, across buffer refills", "[id_stream]") {
  temp_dir dir;
  const auto path = dir.file("ids.bin");
  // About 300k ids: several reader buffers (64k ids each).
  rng g(5);
  sentences_t in;
  size_t total = 0;
  while (total < 300'000) {
    std::vector<uint32_t> s(1 + g.below(999));
    for (auto& x : s)
      x = g.below(1'000'000);
    total += s.size();
    in.push_back(std::move(s));
  }
  write_id_file(path, in);
  auto r = id_reader::open(path);
  REQUIRE(r);
  CHECK(read_all(*r) == in);
  r->rewind();
  CHECK(read_all(*r) == in);

  // Rewind in the middle of the file, too.
  r->rewind();
  std::vector<uint32_t> s;
  for (int i = 0; i < 123; ++i)
    REQUIRE(r->next_sentence(s));
  CHECK(s == in[122]);
  r->rewind();
  CHECK(read_all(*r) == in);

  // A moved reader keeps its position.
  r->rewind();
  REQUIRE(r->next_sentence(s));
  id_reader moved(std::move(*r));
  REQUIRE(moved.next_sentence(s));
  CHECK(s == in[1]);
}

TEST_CASE("id_stream: failures", "[id_stream]") {
  temp_dir dir;
  SECTION("wrong magic") {
    auto path = dir.write("bad.bin", std::string("GVIDS02\n") + std::string(8, '\0'));
    auto r = id_reader::open(path);
    REQUIRE_FALSE(r);
    INFO(r.error());
    CHECK(contains(r.error(), path));
    CHECK(contains(r.error(), "not a gridvec preprocessed corpus"));
  }
  SECTION("text file") {
    auto path = dir.write("corpus.txt", "the quick brown fox\n");
    CHECK_FALSE(id_reader::open(path));
  }
  SECTION("shorter than the magic") {
    auto path = dir.write("short.bin", "GVID");
    CHECK_FALSE(id_reader::open(path));
    path = dir.write("empty.bin", "");
    CHECK_FALSE(id_reader::open(path));
  }
  SECTION("missing file") {
    auto r = id_reader::open(dir.file("nope.bin"));
    REQUIRE_FALSE(r);
    CHECK(contains(r.error(), "nope.bin"));
  }
  SECTION("writer into a missing directory") {
    auto w = id_writer::create(dir.file("missing/ids.bin"));
    REQUIRE_FALSE(w);
    CHECK(contains(w.error(), "missing/ids.bin"));
  }
  SECTION("a file with only the magic has no sentences") {
    auto path = dir.write("magic.bin", "GVIDS01\n");
    auto r = id_reader::open(path);
    REQUIRE(r);
    std::vector<uint32_t> s;
    CHECK_FALSE(r->next_sentence(s));
  }
}
