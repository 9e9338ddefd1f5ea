#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gridvec/core/options.hpp>
#include "src/formats/vector_parts.hpp"
#include "src/formats/vectors_file.hpp"
#include "src/util/rng.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;
using gridvec::test::read_file;
using gridvec::test::temp_dir;
namespace fs = std::filesystem;

namespace {

embedding_table sample(uint32_t dim, size_t count) {
  embedding_table t;
  t.dim = dim;
  rng r(7);
  for (size_t i = 0; i < count; ++i) {
    t.words.push_back((i % 3 == 0 ? "caf\xc3\xa9" : "w") + std::to_string(i));
    for (uint32_t j = 0; j < dim; ++j)
      t.data.push_back((r.uniform() - 0.5f) * 2.0f);
  }
  return t;
}

// What the exporters do: part k of `parts` as its own word2vec file in a
// partial directory, then PARTS and the rename.
status write_parts(const std::string& dir, const embedding_table& t, uint32_t parts, bool binary) {
  auto partial = begin_vector_parts(dir);
  if (!partial)
    return failure{partial.error()};
  vector_parts_manifest m;
  m.words = t.words.size();
  m.dim = t.dim;
  m.binary = binary;
  for (uint32_t k = 0; k < parts; ++k) {
    const uint64_t begin = vector_parts::begin_of(k, parts, m.words);
    const uint64_t end = vector_parts::begin_of(k + 1, parts, m.words);
    auto w = vectors_writer::create(*partial + "/" + vector_parts::part_name(k), binary, end - begin, t.dim);
    if (!w)
      return failure{w.error()};
    for (uint64_t i = begin; i < end; ++i)
      w->add(t.words[i], t.row(i));
    if (auto s = w->commit(); !s)
      return s;
    m.names.push_back(vector_parts::part_name(k));
    m.part_words.push_back(end - begin);
  }
  return commit_vector_parts(*partial, dir, m);
}

} // namespace

TEST_CASE("vector parts concatenate to the single file byte for byte and read back the same vectors",
          "[vector_parts]") {
  temp_dir dir;
  const auto t = sample(5, 1001);
  for (bool binary : {false, true})
    for (uint32_t parts : {1u, 2u, 3u, 7u}) {
      INFO("binary " << binary << ", " << parts << " parts");
      const std::string single = dir.file(binary ? "single.bin" : "single.txt");
      REQUIRE(write_vectors(single, t, binary));
      const std::string out = dir.file("parts");
      auto s = write_parts(out, t, parts, binary);
      INFO((s ? std::string{"ok"} : s.error()));
      REQUIRE(s);
      CHECK_FALSE(fs::exists(out + ".partial-" + std::to_string(::getpid()) + "-0"));
      const std::string joined = dir.file("joined");
      REQUIRE(concatenate_vector_parts(out, joined));
      CHECK(read_file(joined) == read_file(single));
      auto got = read_vectors(out); // the loader eval and nearest use
      REQUIRE(got);
      auto want = read_vectors(single);
      REQUIRE(want);
      CHECK(got->dim == want->dim);
      CHECK(got->words == want->words);
      CHECK(got->data == want->data);
    }
}

TEST_CASE("vector parts: begin_of covers every id once, in order", "[vector_parts]") {
  for (uint64_t words : {0ull, 1ull, 5ull, 1000ull, 4294967295ull})
    for (uint32_t parts : {1u, 2u, 3u, 64u}) {
      CHECK(vector_parts::begin_of(0, parts, words) == 0);
      CHECK(vector_parts::begin_of(parts, parts, words) == words);
      for (uint32_t k = 0; k < parts; ++k)
        CHECK(vector_parts::begin_of(k, parts, words) <= vector_parts::begin_of(k + 1, parts, words));
    }
}

TEST_CASE("a damaged, missing or unfinished directory of parts fails with one line", "[vector_parts]") {
  temp_dir dir;
  const auto t = sample(4, 300);
  const std::string out = dir.file("parts");
  REQUIRE(write_parts(out, t, 3, false));
  auto one_line = [](const std::string& e) { return !e.empty() && e.find('\n') == std::string::npos; };

  SECTION("a missing part") {
    fs::remove(out + "/part-00001.vec");
    auto r = read_vectors(out);
    REQUIRE_FALSE(r);
    CHECK(one_line(r.error()));
    CHECK(contains(r.error(), "part 1 of " + out));
    CHECK_FALSE(concatenate_vector_parts(out, dir.file("joined")));
    CHECK_FALSE(fs::exists(dir.file("joined")));
  }
  SECTION("a part cut short") {
    const std::string part = out + "/part-00002.vec";
    fs::resize_file(part, fs::file_size(part) / 2);
    auto r = read_vectors(out);
    REQUIRE_FALSE(r);
    CHECK(one_line(r.error()));
    CHECK(contains(r.error(), "part 2 of " + out));
  }
  SECTION("a part of other words than PARTS says") {
    const std::string part = out + "/part-00000.vec";
    REQUIRE(write_vectors(part, sample(4, 3), false));
    auto r = read_vectors(out);
    REQUIRE_FALSE(r);
    CHECK(one_line(r.error()));
    CHECK(contains(r.error(), "PARTS says 100 of 4"));
    auto c = concatenate_vector_parts(out, dir.file("joined"));
    REQUIRE_FALSE(c);
    CHECK(contains(c.error(), "does not start with \"100 4\""));
  }
  SECTION("a damaged PARTS") {
    const std::string manifest = read_file(out + "/PARTS");
    dir.write("parts/PARTS", manifest.substr(0, manifest.size() - 10));
    auto r = read_vectors(out);
    REQUIRE_FALSE(r);
    CHECK(one_line(r.error()));
    CHECK(contains(r.error(), "PARTS is damaged"));
  }
  SECTION("an export that did not finish: no PARTS") {
    fs::remove(out + "/PARTS");
    auto r = read_vectors(out);
    REQUIRE_FALSE(r);
    CHECK(one_line(r.error()));
    CHECK(contains(r.error(), "an export that did not finish"));
  }
}

TEST_CASE("an export that stops before its commit leaves the previous directory whole", "[vector_parts]") {
  temp_dir dir;
  const std::string out = dir.file("parts");
  const auto before = sample(4, 50);
  REQUIRE(write_parts(out, before, 2, true));
  {
    // A new export's parts, written but never committed (the job failed).
    auto partial = begin_vector_parts(out);
    REQUIRE(partial);
    auto w = vectors_writer::create(*partial + "/" + vector_parts::part_name(0), true, 1, 4);
    REQUIRE(w);
    w->add("new", sample(4, 1).row(0));
    REQUIRE(w->commit());
    abandon_vector_parts(*partial);
    CHECK_FALSE(fs::exists(*partial));
  }
  auto got = read_vectors(out);
  REQUIRE(got);
  CHECK(got->words == before.words);
  CHECK(got->data == before.data);
  // A file, or a directory of something else, is never replaced.
  const std::string file = dir.write("file.txt", "x\n");
  CHECK_FALSE(begin_vector_parts(file));
  fs::create_directories(dir.file("other"));
  dir.write("other/notes.txt", "mine\n");
  auto other = begin_vector_parts(dir.file("other"));
  REQUIRE_FALSE(other);
  CHECK(contains(other.error(), "holds something other than vector parts"));
}

TEST_CASE("the option --output-parts is refused with -classes, and on a file or a foreign directory before training",
          "[vector_parts]") {
  temp_dir dir;
  const std::string corpus = dir.write("corpus.txt", "a b c\n");
  auto with = [&](const std::string& output, std::vector<std::string> more) {
    std::vector<std::string> args{"-train", corpus, "-output", output, "--output-parts", "1"};
    args.insert(args.end(), more.begin(), more.end());
    return parse_train_options(args);
  };
  auto classes = with(dir.file("out"), {"-classes", "5"});
  REQUIRE_FALSE(classes);
  CHECK(contains(classes.error(), "-classes"));

  auto fresh = with(dir.file("out"), {});
  REQUIRE(fresh);
  CHECK(fresh->output_parts);
  CHECK(check_outputs(*fresh));
  CHECK_FALSE(fs::exists(dir.file("out")));

  auto file = with(dir.write("file.txt", "x\n"), {});
  REQUIRE(file);
  auto s = check_outputs(*file);
  REQUIRE_FALSE(s);
  CHECK(contains(s.error(), "is a file"));
  CHECK(read_file(dir.file("file.txt")) == "x\n");
}
