#include <catch2/catch.hpp>

#include "apps/shell/shell_words.hpp"

using namespace gridvec;

namespace {

std::vector<shell_words> split(std::string_view text) {
  auto r = split_shell_text(text);
  REQUIRE(r);
  return *r;
}

} // namespace

TEST_CASE("shell text splits into commands at ';' and new lines", "[shell]") {
  auto c = split("status; nodes\nnearest king 5");
  REQUIRE(c.size() == 3);
  CHECK(c[0] == shell_words{"status"});
  CHECK(c[1] == shell_words{"nodes"});
  CHECK(c[2] == shell_words{"nearest", "king", "5"});
}

TEST_CASE("blank commands, blanks and CRLF are dropped", "[shell]") {
  auto c = split("  \t; ;\r\n  status  \r\n;;");
  REQUIRE(c.size() == 1);
  CHECK(c[0] == shell_words{"status"});
  CHECK(split("").empty());
  CHECK(split(" ;\n; ").empty());
}

TEST_CASE("double quotes group blanks and ';' into one word", "[shell]") {
  auto c = split(R"(export "my vectors; v1.txt" binary; status)");
  REQUIRE(c.size() == 2);
  CHECK(c[0] == shell_words{"export", "my vectors; v1.txt", "binary"});
  CHECK(c[1] == shell_words{"status"});
  // Quotes may sit inside a word; "" is an empty word.
  CHECK(split(R"(a"b c"d "")")[0] == shell_words{"ab cd", ""});
  // Inside quotes \" and \\ are escapes; any other backslash is literal.
  CHECK(split(R"(x "a\"b\\c\n")")[0] == shell_words{"x", R"(a"b\c\n)"});
}

TEST_CASE("single quotes are ordinary characters (words like don't)", "[shell]") {
  auto c = split("nearest don't; analogy 'a b c'");
  REQUIRE(c.size() == 2);
  CHECK(c[0] == shell_words{"nearest", "don't"});
  CHECK(c[1] == shell_words{"analogy", "'a", "b", "c'"});
}

TEST_CASE("a command starting with '#' is a comment up to the end of the line", "[shell]") {
  auto c = split("# set up\nstatus # not a comment here\n  # indented; still a comment\nnodes");
  REQUIRE(c.size() == 2);
  CHECK(c[0] == shell_words{"status", "#", "not", "a", "comment", "here"});
  CHECK(c[1] == shell_words{"nodes"});
  // '#' inside a word or after a ';' on the same line.
  CHECK(split("nearest #tag")[0] == shell_words{"nearest", "#tag"});
  CHECK(split("status; # the rest\nnodes").size() == 2);
}

TEST_CASE("an unterminated quote is one error line", "[shell]") {
  auto r = split_shell_text(R"(export "vectors.txt)");
  REQUIRE_FALSE(r);
  CHECK(r.error() == "unterminated \" (opened at column 8)");
  CHECK_FALSE(split_shell_text(R"(x "a\")"));
}

TEST_CASE("joined words split back into the same words", "[shell]") {
  for (const shell_words& words :
       {shell_words{"status"}, shell_words{"export", "a b.txt", "binary"}, shell_words{"nearest", "don't"},
        shell_words{"x", "", "a;b", R"(q"u\o)"}, shell_words{"#tag", "#x"}}) {
    const std::string line = join_shell_words(words);
    INFO(line);
    auto back = split_shell_text(line);
    REQUIRE(back);
    REQUIRE(back->size() == 1);
    CHECK(back->front() == words);
  }
  CHECK(join_shell_words({"export", "a b"}) == R"(export "a b")");
}
