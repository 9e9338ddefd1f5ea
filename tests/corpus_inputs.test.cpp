#include "src/corpus/corpus_inputs.hpp"

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
}
