#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <sys/stat.h>
#include <vector>

#include "src/util/atomic_file.hpp"
#include "src/util/rng.hpp"
#include "src/formats/vectors_file.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;
using gridvec::test::read_file;
using gridvec::test::temp_dir;
namespace fs = std::filesystem;

namespace {

struct table {
  std::vector<std::string> words;
  uint32_t dim;
  std::vector<float> data;
};

table sample_table(uint32_t dim, size_t count, uint64_t seed) {
  table t;
  t.dim = dim;
  rng r(seed);
  const std::vector<std::string> base{"the", "caf\xc3\xa9", "</s>", "x", "\xe6\x97\xa5\xe6\x9c\xac", "word-2-vec"};
  for (size_t i = 0; i < count; ++i) {
    t.words.push_back(base[i % base.size()] + (i < base.size() ? "" : std::to_string(i)));
    for (uint32_t j = 0; j < dim; ++j)
      t.data.push_back((r.uniform() - 0.5f) * 2.0f);
  }
  return t;
}

status write_table(const std::string& path, const table& t, bool binary) {
  auto w = vectors_writer::create(path, binary, t.words.size(), t.dim);
  if (!w)
    return failure{w.error()};
  for (size_t i = 0; i < t.words.size(); ++i)
    w->add(t.words[i], t.data.data() + i * t.dim);
  return w->commit();
}

void check_round_trip(const std::string& path, const table& t, bool binary) {
  REQUIRE(write_table(path, t, binary));
  auto got = read_vectors(path);
  INFO("read_vectors: " << (got ? std::string{"ok"} : got.error()));
  CHECK(got);
  if (!got)
    return;
  CHECK(got->dim == t.dim);
  CHECK(got->words == t.words);
  if (got->words != t.words || got->data.size() != t.data.size())
    return;
  for (size_t i = 0; i < t.data.size(); ++i) {
    INFO("value " << i << (binary ? " (binary)" : " (text)"));
    if (binary)
      CHECK(std::memcmp(&got->data[i], &t.data[i], sizeof(float)) == 0);
    else
      CHECK(std::abs(got->data[i] - t.data[i]) <= 1e-6 * std::max(1.0f, std::abs(t.data[i])));
  }
  for (size_t i = 0; i < t.words.size(); ++i)
    CHECK(got->row(i)[0] == got->data[i * t.dim]);
}

} // namespace

TEST_CASE("vectors_file: text round trip", "[vectors_file]") {
  temp_dir dir;
  auto t = sample_table(13, 50, 1);
  // Some special values.
  t.data[0] = 0.0f;
  t.data[1] = -0.0f;
  t.data[2] = 1e-30f;
  t.data[3] = -123456.78f;
  t.data[4] = 3.0f;
  const auto path = dir.file("v.txt");
  check_round_trip(path, t, false);
  // word2vec's text layout: header, then "word x1 ... xd" per line.
  const auto text = read_file(path);
  CHECK(text.rfind("50 13\nthe 0 -0 1e-30 -123456.78 3 ", 0) == 0);
  size_t lines = 0;
  for (char c : text)
    lines += c == '\n';
  CHECK(lines == 51u);
}

TEST_CASE("vectors_file: binary round trip is exact", "[vectors_file]") {
  temp_dir dir;
  auto t = sample_table(10, 40, 2);
  t.data[0] = -0.0f;
  t.data[1] = std::numeric_limits<float>::denorm_min();
  t.data[2] = 1e38f;
  t.data[3] = 1.0f / 3.0f;
  const auto path = dir.file("v.bin");
  check_round_trip(path, t, true);
  const auto bytes = read_file(path);
  const std::string header = "40 10\n";
  CHECK(bytes.rfind(header, 0) == 0);
  size_t words_bytes = 0;
  for (const auto& w : t.words)
    words_bytes += w.size() + 1 + 1; // "word " + ... + "\n"
  CHECK(bytes.size() == header.size() + words_bytes + t.data.size() * sizeof(float));
  // First row: "the " then the raw little-endian floats.
  REQUIRE(bytes.compare(header.size(), 4, "the ") == 0);
  float first[10];
  std::memcpy(first, bytes.data() + header.size() + 4, sizeof first);
  CHECK(std::memcmp(first, t.data.data(), sizeof first) == 0);
}

TEST_CASE("vectors_file: small dimensions and short numbers", "[vectors_file]") {
  temp_dir dir;
  for (bool binary : {false, true}) {
    for (uint32_t dim : {1u, 2u, 3u}) {
      table t;
      t.dim = dim;
      t.words = {"a", "b", "c"};
      const float short_values[3] = {0.0f, 1.0f, 0.5f}; // short in text: "0", "1", "0.5"
      for (size_t i = 0; i < 3 * dim; ++i)
        t.data.push_back(short_values[i % 3]);
      INFO("dim " << dim << (binary ? " binary" : " text"));
      check_round_trip(dir.file("small"), t, binary);
    }
  }
}

TEST_CASE("vectors_file: binary values whose bytes look like digits", "[vectors_file]") {
  // 6.4097e-10 is stored as the bytes "0000": a binary file must not be
  // taken for text because its first value happens to look printable.
  temp_dir dir;
  auto t = sample_table(4, 3, 7);
  std::memcpy(&t.data[0], "0000", 4);
  CHECK(t.data[0] == Approx(6.40969e-10).epsilon(1e-4));
  check_round_trip(dir.file("digits.bin"), t, true);
}

TEST_CASE("vectors_file: the file appears only on commit", "[vectors_file]") {
  temp_dir dir;
  const auto path = dir.file("vectors.txt");
  auto t = sample_table(4, 5, 3);
  {
    auto w = vectors_writer::create(path, false, t.words.size(), t.dim);
    REQUIRE(w);
    for (size_t i = 0; i < t.words.size(); ++i)
      w->add(t.words[i], t.data.data() + i * t.dim);
    CHECK_FALSE(fs::exists(path));
    auto names = dir.entries();
    REQUIRE(names.size() == 1u);
    CHECK(names[0].rfind("vectors.txt.tmp-", 0) == 0); // a temporary next to the target
    REQUIRE(w->commit());
    CHECK(fs::exists(path));
  }
  CHECK(dir.entries() == std::vector<std::string>{"vectors.txt"});
  auto got = read_vectors(path);
  REQUIRE(got);
  CHECK(got->words == t.words);
  CHECK((fs::status(path).permissions() & fs::perms::others_read) != fs::perms::none);
}

TEST_CASE("vectors_file: an uncommitted writer leaves the target untouched", "[vectors_file]") {
  temp_dir dir;
  const auto path = dir.write("vectors.bin", "previous contents\n");
  auto t = sample_table(8, 20, 4);
  {
    auto w = vectors_writer::create(path, true, t.words.size(), t.dim);
    REQUIRE(w);
    for (size_t i = 0; i < t.words.size(); ++i)
      w->add(t.words[i], t.data.data() + i * t.dim);
    CHECK(dir.entries().size() == 2u);
    CHECK(read_file(path) == "previous contents\n");
    // destroyed without commit
  }
  CHECK(read_file(path) == "previous contents\n");
  CHECK(dir.entries() == std::vector<std::string>{"vectors.bin"});

  // Without a previous file: nothing at all is left.
  {
    auto w = vectors_writer::create(dir.file("new.bin"), true, 1, 8);
    REQUIRE(w);
    w->add("x", t.data.data());
  }
  CHECK(dir.entries() == std::vector<std::string>{"vectors.bin"});

  // A committed writer replaces the previous file.
  REQUIRE(write_table(path, t, true));
  auto got = read_vectors(path);
  REQUIRE(got);
  CHECK(got->words == t.words);
  CHECK(dir.entries() == std::vector<std::string>{"vectors.bin"});
}

TEST_CASE("vectors_file: write failures", "[vectors_file]") {
  temp_dir dir;
  SECTION("missing directory") {
    const auto path = dir.file("no/such/dir/vectors.txt");
    auto w = vectors_writer::create(path, false, 1, 3);
    REQUIRE_FALSE(w);
    INFO(w.error());
    CHECK(contains(w.error(), path));
    CHECK(contains(w.error(), "No such file or directory"));
    CHECK(dir.entries().empty());
  }
  SECTION("target is a directory") {
    auto w = vectors_writer::create(dir.path(), false, 1, 3);
    REQUIRE_FALSE(w);
    CHECK(contains(w.error(), "directory"));
  }
  SECTION("empty path") {
    auto f = atomic_file::create("");
    REQUIRE_FALSE(f);
    CHECK_FALSE(f.error().empty());
  }
}

TEST_CASE("atomic_file: a device or a pipe is written in place, never replaced", "[vectors_file]") {
  namespace fs = std::filesystem;
  // -output /dev/null renamed a regular file over the device node once.
  auto null = atomic_file::create("/dev/null", "the output");
  REQUIRE(null);
  std::fputs("3 2\n", null->stream());
  REQUIRE(null->commit());
  CHECK(fs::is_character_file("/dev/null"));
  // A FIFO: the reader gets the bytes, and the FIFO stays one.
  temp_dir dir;
  const auto fifo = dir.file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo);
    got.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  {
    auto f = atomic_file::create(fifo, "the output");
    REQUIRE(f);
    std::fputs("hello\n", f->stream());
    REQUIRE(f->commit());
  }
  reader.join();
  CHECK(got == "hello\n");
  CHECK(fs::is_fifo(fifo));
  CHECK(dir.entries().size() == 1); // no temporary left beside it
}

TEST_CASE("vectors_file: read failures", "[vectors_file]") {
  temp_dir dir;
  SECTION("missing file") {
    auto r = read_vectors(dir.file("nope.vec"));
    REQUIRE_FALSE(r);
    CHECK(contains(r.error(), "nope.vec"));
  }
  SECTION("bad header") {
    CHECK_FALSE(read_vectors(dir.write("a.vec", "hello world\n")));
    CHECK_FALSE(read_vectors(dir.write("b.vec", "")));
    CHECK_FALSE(read_vectors(dir.write("c.vec", "3 0\n")));
  }
  SECTION("fewer rows than the header says") {
    auto t = sample_table(5, 4, 5);
    const auto path = dir.file("t.vec");
    REQUIRE(write_table(path, t, false));
    auto text = read_file(path);
    text.replace(0, 3, "6 5"); // header claims 6 rows
    dir.write("t.vec", text);
    auto r = read_vectors(path);
    REQUIRE_FALSE(r);
    INFO(r.error());
    CHECK(contains(r.error(), "row 5"));
  }
  SECTION("truncated binary row") {
    auto t = sample_table(6, 3, 6);
    const auto path = dir.file("t.bin");
    REQUIRE(write_table(path, t, true));
    auto bytes = read_file(path);
    bytes.resize(bytes.size() - 10);
    dir.write("t.bin", bytes);
    auto r = read_vectors(path);
    REQUIRE_FALSE(r);
    CHECK(contains(r.error(), "row 3"));
  }
}

TEST_CASE("vectors_file: a header that announces more than the file holds fails, allocating nothing",
          "[vectors_file]") {
  // "-1" reads as 2^64 - 1: reserving that many rows threw (gridvec nearest
  // ended with length_error) where a line was due.
  gridvec::test::temp_dir dir;
  for (const char* header : {"-1 4", "18446744073709551615 4", "1000000 100", "2 4294967295"}) {
    INFO(header);
    auto path = dir.write("v.txt", std::string{header} + "\ncat 1 2 3 4\nmat 1 2 3 4\n");
    expected<embedding_table> t = failure{"not read"};
    REQUIRE_NOTHROW(t = read_vectors(path));
    REQUIRE_FALSE(t);
    CHECK(gridvec::test::contains(t.error(), "is not a word2vec vectors file"));
  }
}
