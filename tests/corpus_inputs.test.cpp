#include "src/corpus/corpus_inputs.hpp"
#include "src/corpus/corpus_origins.hpp"
#include "src/corpus/text_corpus.hpp"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::temp_dir;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string write_gzip(const temp_dir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
  REQUIRE(gzclose(f) == Z_OK);
  return path;
}

} // namespace

TEST_CASE("corpus inputs: a plain file is read as it is", "[corpus_inputs]") {
  temp_dir dir;
  auto a = dir.write("a.txt", "one two\n");
  auto inputs = resolve_corpus_inputs(a);
  REQUIRE(inputs);
  REQUIRE(inputs->size() == 1);
  CHECK(is_plain_file(*inputs));
}

TEST_CASE("corpus inputs: files, a directory, gzip and stdin are staged in order", "[corpus_inputs]") {
  temp_dir dir;
  auto a = dir.write("a.txt", "alpha beta\ngamma"); // no final newline: one is added
  auto b = write_gzip(dir, "b.data", "delta\n");    // gzip told by its bytes, not its name
  std::filesystem::create_directory(dir.file("d"));
  dir.write("d/2.txt", "zeta\n");
  dir.write("d/1.txt", "epsilon\n");
  dir.write("d/.hidden", "never\n");
  auto inputs = resolve_corpus_inputs(a + "," + b + "," + dir.file("d") + ",-");
  REQUIRE(inputs);
  REQUIRE(inputs->size() == 5);
  CHECK_FALSE(is_plain_file(*inputs));
  CHECK((*inputs)[1].gzip);
  CHECK((*inputs)[2].path == dir.file("d/1.txt"));
  std::istringstream stdin_text{"eta theta"};
  auto bytes = stage_corpus(*inputs, dir.file("staged.txt"), stdin_text);
  REQUIRE(bytes);
  const std::string expected = "alpha beta\ngamma\ndelta\nepsilon\nzeta\neta theta\n";
  CHECK(read_all(dir.file("staged.txt")) == expected);
  CHECK(*bytes == expected.size());
}

TEST_CASE("corpus inputs: bad specs fail in one line, and nothing is half-written", "[corpus_inputs]") {
  temp_dir dir;
  auto a = dir.write("a.txt", "one\n");
  std::filesystem::create_directory(dir.file("empty"));
  CHECK_THAT(resolve_corpus_inputs(dir.file("missing")).error(), Catch::Contains("no such file"));
  CHECK_THAT(resolve_corpus_inputs(dir.file("empty")).error(), Catch::Contains("holds no files"));
  CHECK_THAT(resolve_corpus_inputs(a + ",," + a).error(), Catch::Contains("empty path"));
  CHECK_THAT(resolve_corpus_inputs("-,-").error(), Catch::Contains("twice"));
  // A gzip file cut short fails the staging; the destination never appears.
  auto whole = write_gzip(dir, "whole.gz", std::string(200000, 'x') + "\n");
  auto bytes = read_all(whole);
  auto cut = dir.write("cut.gz", bytes.substr(0, bytes.size() / 2));
  auto inputs = resolve_corpus_inputs(cut);
  REQUIRE(inputs);
  std::istringstream none;
  auto staged = stage_corpus(*inputs, dir.file("staged.txt"), none);
  REQUIRE_FALSE(staged);
  CHECK_THAT(staged.error(), Catch::Contains("not a readable gzip file"));
  CHECK_FALSE(std::filesystem::exists(dir.file("staged.txt")));
}

TEST_CASE("corpus inputs: paths are made absolute one by one; stdin stays '-'", "[corpus_inputs]") {
  const auto cwd = std::filesystem::current_path().string();
  CHECK(absolute_corpus_spec("a.txt,-,/x/y.gz") == cwd + "/a.txt,-,/x/y.gz");
  // Repeated -train values (one a line) and @LIST stay apart.
  CHECK(absolute_corpus_spec("a.txt\n@l/list.txt\n-") == cwd + "/a.txt\n@" + cwd + "/l/list.txt\n-");
  CHECK(corpus_spec_text("a.txt\nb.txt") == "a.txt -train b.txt");
}

namespace {

// The error a scan of the staged corpus gives.
std::string scan_error(const std::string& corpus, invalid_utf8 mode = invalid_utf8::fail) {
  corpus_scanner scanner{corpus, mode};
  const auto size = std::filesystem::file_size(corpus);
  auto st = scanner.scan(
    {0, size}, [](std::string_view) {}, [] {});
  return st ? std::string{} : st.error();
}

std::vector<std::string> paths_of(const std::vector<corpus_input>& inputs) {
  std::vector<std::string> out;
  for (const auto& i : inputs)
    out.push_back(i.path);
  return out;
}

} // namespace

TEST_CASE("corpus inputs: a directory is read recursively, sorted by path, hidden names skipped", "[corpus_inputs]") {
  temp_dir dir;
  namespace fs = std::filesystem;
  fs::create_directories(dir.file("c/b/deep"));
  fs::create_directories(dir.file("c/.git"));
  dir.write("c/b/deep/z.txt", "z\n");
  dir.write("c/b/a.txt", "ba\n");
  dir.write("c/a.txt", "a\n");
  dir.write("c/c.txt", "c\n");
  dir.write("c/.git/config", "never\n");
  dir.write("c/b/.swap", "never\n");
  auto inputs = resolve_corpus_inputs(dir.file("c"));
  REQUIRE(inputs);
  CHECK(paths_of(*inputs) == std::vector<std::string>{dir.file("c/a.txt"), dir.file("c/b/a.txt"),
                                                      dir.file("c/b/deep/z.txt"), dir.file("c/c.txt")});
  for (const auto& i : *inputs)
    CHECK(i.directory == dir.file("c"));
  // One file in a directory is that file, read as it is.
  fs::create_directories(dir.file("one/sub"));
  dir.write("one/sub/only.txt", "x\n");
  auto one = resolve_corpus_inputs(dir.file("one"));
  REQUIRE(one);
  CHECK(is_plain_file(*one));
  CHECK((*one)[0].path == dir.file("one/sub/only.txt"));
}

TEST_CASE("corpus inputs: without commas -- -train repeated, @LIST, a name with a comma", "[corpus_inputs]") {
  temp_dir dir;
  auto comma = dir.write("a,b.txt", "comma\n");
  auto plain = dir.write("p.txt", "plain\n");
  std::filesystem::create_directory(dir.file("lists"));
  dir.write("c.txt", "listed\n");
  // Relative to the list's own directory; blank lines and \r\n endings are fine.
  dir.write("lists/paths.txt", "../a,b.txt\r\n\n" + dir.file("c.txt") + "\n");
  // A path that exists is taken whole, commas and all.
  auto whole = resolve_corpus_inputs(comma);
  REQUIRE(whole);
  CHECK(paths_of(*whole) == std::vector<std::string>{comma});
  // Repeated -train values, one a line in train_options::train.
  auto repeated = resolve_corpus_inputs(comma + "\n" + plain);
  REQUIRE(repeated);
  CHECK(paths_of(*repeated) == std::vector<std::string>{comma, plain});
  auto listed = resolve_corpus_inputs("@" + dir.file("lists/paths.txt") + "\n" + plain);
  REQUIRE(listed);
  CHECK(paths_of(*listed) == std::vector<std::string>{dir.file("lists/../a,b.txt"), dir.file("c.txt"), plain});
  // Commas still separate paths that do not exist as one.
  auto split = resolve_corpus_inputs(plain + "," + dir.file("c.txt"));
  REQUIRE(split);
  CHECK(split->size() == 2);
  CHECK_THAT(resolve_corpus_inputs("@" + dir.file("nope.txt")).error(), Catch::Contains("nope.txt"));
  dir.write("lists/empty.txt", "\n\n");
  CHECK_THAT(resolve_corpus_inputs("@" + dir.file("lists/empty.txt")).error(), Catch::Contains("names no file"));
  CHECK_THAT(resolve_corpus_inputs("-\n-").error(), Catch::Contains("twice"));
}

TEST_CASE("corpus inputs: gzip on standard input is told by its magic bytes", "[corpus_inputs]") {
  temp_dir dir;
  // Two members, as `cat a.gz b.gz` gives: both are read, as zcat does.
  auto a = read_all(write_gzip(dir, "a.gz", "one two\n"));
  auto b = read_all(write_gzip(dir, "b.gz", "three"));
  auto inputs = resolve_corpus_inputs("-");
  REQUIRE(inputs);
  std::istringstream piped{a + b};
  auto bytes = stage_corpus(*inputs, dir.file("staged.txt"), piped);
  REQUIRE(bytes);
  CHECK(read_all(dir.file("staged.txt")) == "one two\nthree\n");
  // Text on standard input is copied as it is, even one byte of it.
  std::istringstream one{"x"};
  REQUIRE(stage_corpus(*inputs, dir.file("staged.txt"), one));
  CHECK(read_all(dir.file("staged.txt")) == "x\n");
  // A gzip stream cut short fails in one line, naming standard input.
  std::istringstream cut{a.substr(0, a.size() - 6)};
  auto failed = stage_corpus(*inputs, dir.file("cut.txt"), cut);
  REQUIRE_FALSE(failed);
  CHECK_THAT(failed.error(), Catch::Contains("standard input") && Catch::Contains("gzip"));
  CHECK_FALSE(std::filesystem::exists(dir.file("cut.txt")));
}

TEST_CASE("corpus inputs: errors in the staged corpus name the user's file and line", "[corpus_inputs]") {
  temp_dir dir;
  auto a = dir.write("a.txt", "good line\nanother\n");
  auto gz = write_gzip(dir, "b", "fine\nstill fine\nbad \xff here\n"); // gzip without .gz
  auto c = dir.write("c.txt", "x\ny\nz \xc3( w\n");
  const std::string staged = dir.file("staged.txt");
  SECTION("a file after others") {
    auto inputs = resolve_corpus_inputs(a + "\n" + c);
    REQUIRE(inputs);
    std::istringstream none;
    REQUIRE(stage_corpus(*inputs, staged, none));
    const auto e = scan_error(staged);
    CHECK_THAT(e, Catch::StartsWith("corpus " + c + " has invalid UTF-8"));
    CHECK_THAT(e, Catch::Contains("on line 3, at byte 7"));
    CHECK_THAT(e, Catch::Contains("--invalid-utf8 skip"));
    CHECK_THAT(e, !Catch::Contains(staged));
  }
  SECTION("a gzip file: lines of its uncompressed text") {
    auto inputs = resolve_corpus_inputs(a + "," + gz);
    REQUIRE(inputs);
    std::istringstream none;
    REQUIRE(stage_corpus(*inputs, staged, none));
    CHECK_THAT(scan_error(staged), Catch::StartsWith("corpus " + gz + " has invalid UTF-8") &&
                                     Catch::Contains("on line 3, at byte 20 of its uncompressed text"));
  }
  SECTION("standard input") {
    auto inputs = resolve_corpus_inputs(a + ",-");
    REQUIRE(inputs);
    std::istringstream piped{"one\ntwo \x80\n"};
    REQUIRE(stage_corpus(*inputs, staged, piped));
    CHECK_THAT(scan_error(staged),
               Catch::StartsWith("corpus standard input has invalid UTF-8") && Catch::Contains("on line 2, at byte 8"));
    // The origins say where each input starts.
    auto origins = read_corpus_origins(staged);
    REQUIRE(origins.size() == 2);
    CHECK(origins[0].name == a);
    CHECK(origins[1].begin == 18);
    CHECK(origins[1].kind == "stdin");
  }
  SECTION("origins of another staging are ignored") {
    auto inputs = resolve_corpus_inputs(a + "," + c);
    REQUIRE(inputs);
    std::istringstream none;
    REQUIRE(stage_corpus(*inputs, staged, none));
    std::ofstream(staged, std::ios::app) << "more\n"; // the staged file is not the one described
    CHECK_THAT(scan_error(staged), Catch::StartsWith("corpus " + staged + " has invalid UTF-8") &&
                                     Catch::Contains("on line 5, at byte 25"));
  }
  SECTION("a plain file, not staged, is named with its line") {
    CHECK_THAT(scan_error(c),
               Catch::StartsWith("corpus " + c + " has invalid UTF-8") && Catch::Contains("on line 3, at byte 7"));
    CHECK(scan_error(c, invalid_utf8::skip).empty());
  }
}
