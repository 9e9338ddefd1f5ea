#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "src/util/rng.hpp"
#include "src/corpus/text_corpus.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;
using gridvec::test::temp_dir;

namespace {

using lines_t = std::vector<std::vector<std::string>>;

struct scan_result {
  status st;
  lines_t lines;                    // one entry per on_line_end, with the words before it
  std::vector<std::string> pending; // words after the last line end
};

scan_result scan(const std::string& path, byte_range range, invalid_utf8 mode = invalid_utf8::fail) {
  corpus_scanner sc(path, mode);
  scan_result out;
  out.st = sc.scan(
    range, [&](std::string_view w) { out.pending.emplace_back(w); },
    [&] {
      out.lines.push_back(std::move(out.pending));
      out.pending.clear();
    });
  return out;
}

// The reference tokenisation: every '\n' ends a line, a last line without
// '\n' ends one if it has words; words are separated by ASCII white space.
lines_t reference_lines(const std::string& text) {
  lines_t lines;
  std::vector<std::string> cur;
  std::string tok;
  for (char ch : text) {
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f') {
      if (!tok.empty())
        cur.push_back(tok);
      tok.clear();
      if (ch == '\n') {
        lines.push_back(cur);
        cur.clear();
      }
    } else {
      tok.push_back(ch);
    }
  }
  if (!tok.empty())
    cur.push_back(tok);
  if (!cur.empty())
    lines.push_back(cur);
  return lines;
}

std::string random_corpus(uint64_t seed, size_t lines, bool trailing_newline) {
  static const std::vector<std::string> words{
    "the",          "a", "of", "word2vec", "x", "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x98\x80",
    "na\xc3\xafve", "z"};
  rng r(seed);
  std::string s;
  for (size_t l = 0; l < lines; ++l) {
    size_t n = r.below(12); // some lines are empty
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 || r.below(5) == 0)
        s += (r.below(6) == 0 ? "\t " : " ");
      s += words[r.below(static_cast<uint32_t>(words.size()))];
    }
    if (r.below(8) == 0)
      s += "  \r";
    if (l + 1 < lines || trailing_newline)
      s += "\n";
  }
  return s;
}

// Offset named by a "... at byte N" message, or -1.
long long offset_in(const std::string& msg) {
  std::smatch m;
  if (!std::regex_search(msg, m, std::regex("at byte ([0-9]+)")))
    return -1;
  return std::stoll(m[1].str());
}

void check_ranges(const std::vector<byte_range>& ranges, const std::string& text, size_t parts) {
  REQUIRE(ranges.size() == std::max<size_t>(parts, 1));
  CHECK(ranges.front().begin == 0u);
  CHECK(ranges.back().end == text.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    INFO("range " << i << " of " << ranges.size() << ": [" << ranges[i].begin << ", " << ranges[i].end << ")");
    CHECK(ranges[i].begin <= ranges[i].end);
    if (i + 1 < ranges.size())
      CHECK(ranges[i].end == ranges[i + 1].begin);
    // A non-empty range starts at a line start.
    if (ranges[i].begin < ranges[i].end && ranges[i].begin > 0)
      CHECK(text[ranges[i].begin - 1] == '\n');
  }
}

} // namespace

TEST_CASE("split_corpus cuts only at line starts and covers the file", "[text_corpus]") {
  temp_dir dir;
  for (bool trailing : {true, false}) {
    const std::string text = random_corpus(trailing ? 1 : 2, 60, trailing);
    const std::string path = dir.write("corpus.txt", text);
    const auto expect = reference_lines(text);
    for (size_t parts : {1u, 2u, 3u, 4u, 7u, 16u, 59u, 60u, 61u, 200u}) {
      INFO("parts = " << parts << ", trailing newline = " << trailing);
      auto ranges = split_corpus(path, parts);
      REQUIRE(ranges);
      check_ranges(*ranges, text, parts);

      // Scanning the parts one after the other reads what the whole file reads.
      lines_t joined;
      for (const auto& range : *ranges) {
        auto part = scan(path, range);
        REQUIRE(part.st);
        CHECK(part.pending.empty());
        joined.insert(joined.end(), part.lines.begin(), part.lines.end());
      }
      CHECK(joined == expect);
    }
    auto whole = scan(path, {0, text.size()});
    REQUIRE(whole.st);
    CHECK(whole.lines == expect);
  }
}

TEST_CASE("split_corpus: corner cases", "[text_corpus]") {
  temp_dir dir;
  SECTION("parts 0 is one part") {
    auto path = dir.write("c.txt", "a b\nc\n");
    auto r = split_corpus(path, 0);
    REQUIRE(r);
    REQUIRE(r->size() == 1u);
    CHECK((*r)[0].begin == 0u);
    CHECK((*r)[0].end == 6u);
  }
  SECTION("one long line cannot be split") {
    std::string text(10000, 'a');
    for (size_t i = 5; i < text.size(); i += 7)
      text[i] = ' ';
    auto path = dir.write("c.txt", text);
    auto r = split_corpus(path, 4);
    REQUIRE(r);
    check_ranges(*r, text, 4);
    CHECK((*r)[0].end == text.size());
  }
  SECTION("more parts than bytes: the lines are still spread over the parts") {
    std::string text = "a\nb\nc\n";
    auto path = dir.write("c.txt", text);
    auto r = split_corpus(path, 10);
    REQUIRE(r);
    check_ranges(*r, text, 10);
    size_t non_empty = 0;
    for (auto& x : *r)
      non_empty += x.begin < x.end;
    CHECK(non_empty == 3u);
  }
  SECTION("lines longer than the 4096-byte read buffer") {
    std::string text;
    for (int l = 0; l < 20; ++l)
      text += std::string(5000 + 97 * l, 'w') + " x\n";
    auto path = dir.write("c.txt", text);
    for (size_t parts : {2u, 3u, 5u, 8u, 30u}) {
      auto r = split_corpus(path, parts);
      REQUIRE(r);
      check_ranges(*r, text, parts);
    }
  }
}

TEST_CASE("corpus_scanner: multi-byte UTF-8 words are kept whole", "[text_corpus]") {
  temp_dir dir;
  SECTION("small file") {
    const std::string text = "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\n\xf0\x9f\x98\x80 \xd0\x96\xd0\xb8\n";
    auto path = dir.write("c.txt", text);
    auto r = scan(path, {0, text.size()});
    REQUIRE(r.st);
    lines_t expect{{"caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"}, {"\xf0\x9f\x98\x80", "\xd0\x96\xd0\xb8"}};
    CHECK(r.lines == expect);
  }
  SECTION("sequences and words straddling the 1 MiB read buffer") {
    // Put a 4-byte character across every chunk boundary in turn.
    for (size_t shift : {1u, 2u, 3u}) {
      const size_t boundary = size_t{1} << 20;
      const size_t target = boundary - shift - 6;
      std::string text;
      while (text.size() + 18 <= target)
        text += "filler words here\n"; // 18 bytes
      text += std::string(target - text.size(), 'p');
      text += " ab\xe2\x82\xac"; // 6 bytes: the emoji below starts at boundary - shift
      text += "\xf0\x9f\x98\x80z\xc3\xa9 end\n";
      text += std::string(300, 'q') + "\n";
      auto path = dir.write("big.txt", text);
      auto r = scan(path, {0, text.size()});
      INFO("shift " << shift);
      REQUIRE(r.st);
      CHECK(r.lines == reference_lines(text));
    }
  }
}

TEST_CASE("corpus_scanner: a line with no trailing newline still ends a line", "[text_corpus]") {
  temp_dir dir;
  auto path = dir.write("c.txt", "a b\n\nc d");
  auto r = scan(path, {0, 8});
  REQUIRE(r.st);
  CHECK(r.lines == lines_t{{"a", "b"}, {}, {"c", "d"}});
  CHECK(r.pending.empty());

  // Trailing white space without a newline adds no line.
  path = dir.write("d.txt", "a b\n  \t");
  r = scan(path, {0, 7});
  REQUIRE(r.st);
  CHECK(r.lines == lines_t{{"a", "b"}});
}

TEST_CASE("corpus_scanner: bad input fails naming the byte offset", "[text_corpus]") {
  temp_dir dir;
  struct bad_case {
    const char* name;
    std::string text;
    long long offset;
    const char* what;
  };
  std::vector<bad_case> cases{
    {"NUL byte", std::string("good words\nbad\0word\n", 20), 14, "NUL"},
    {"invalid lead byte 0xFF", "ok ok\nxx\xffyy\n", 8, "UTF-8"},
    {"lone continuation byte", "abc \x80\n", 4, "UTF-8"},
    {"bad continuation",
     "one two caf\xc3"
     "e\n",
     12, "UTF-8"},
    {"overlong lead 0xC0", "a \xc0\xaf\n", 2, "UTF-8"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto path = dir.write("bad.txt", c.text);
    auto r = scan(path, {0, c.text.size()});
    REQUIRE_FALSE(r.st);
    INFO(r.st.error());
    CHECK(offset_in(r.st.error()) == c.offset);
    CHECK(contains(r.st.error(), c.what));
    CHECK(contains(r.st.error(), path));
    CHECK_FALSE(contains(r.st.error(), "\n"));
  }

  SECTION("truncated UTF-8 sequence at the end of the file") {
    const std::string text = "fine words\nend \xe6\x97";
    auto path = dir.write("trunc.txt", text);
    auto r = scan(path, {0, text.size()});
    REQUIRE_FALSE(r.st);
    INFO(r.st.error());
    CHECK(contains(r.st.error(), "UTF-8"));
    auto off = offset_in(r.st.error());
    CHECK(off >= 15);                                  // where the sequence starts ...
    CHECK(off <= static_cast<long long>(text.size())); // ... up to where it is cut
  }

  SECTION("a 5000-byte token") {
    std::string text = "some words first\nthen ";
    const auto start = static_cast<long long>(text.size());
    text += std::string(5000, 'k') + " after\n";
    auto path = dir.write("long.txt", text);
    auto r = scan(path, {0, text.size()});
    REQUIRE_FALSE(r.st);
    INFO(r.st.error());
    CHECK(offset_in(r.st.error()) == start);
    CHECK(contains(r.st.error(), "4096"));
  }

  SECTION("a token of exactly 4096 bytes is fine") {
    std::string text = "x " + std::string(4096, 'k') + "\n";
    auto path = dir.write("ok.txt", text);
    auto r = scan(path, {0, text.size()});
    REQUIRE(r.st);
    REQUIRE(r.lines.size() == 1u);
    CHECK(r.lines[0][1].size() == 4096u);
  }

  SECTION("a token of more than 4096 bytes made of multi-byte characters") {
    // 1366 three-byte characters: 4098 bytes.
    std::string word;
    for (int i = 0; i < 1366; ++i)
      word += "\xe2\x82\xac";
    std::string text = "x " + word + "\n";
    auto path = dir.write("long3.txt", text);
    auto r = scan(path, {0, text.size()});
    CHECK_FALSE(r.st);
    if (!r.st)
      CHECK(offset_in(r.st.error()) == 2);
  }
}

TEST_CASE("text_corpus: missing and empty files", "[text_corpus]") {
  temp_dir dir;
  SECTION("missing file") {
    const std::string path = dir.file("does-not-exist.txt");
    auto r = split_corpus(path, 2);
    REQUIRE_FALSE(r);
    INFO(r.error());
    CHECK(contains(r.error(), path));
    CHECK(contains(r.error(), "No such file"));
    auto s = scan(path, {0, 10});
    REQUIRE_FALSE(s.st);
    CHECK(contains(s.st.error(), path));
  }
  SECTION("empty file") {
    auto path = dir.write("empty.txt", "");
    auto r = split_corpus(path, 3);
    REQUIRE_FALSE(r);
    INFO(r.error());
    CHECK(contains(r.error(), path));
    CHECK(contains(r.error(), "empty"));
  }
  SECTION("a directory") {
    auto r = split_corpus(dir.path(), 1);
    REQUIRE_FALSE(r);
    INFO(r.error());
    CHECK(contains(r.error(), "not a regular file"));
  }
}

TEST_CASE("corpus_scanner: --invalid-utf8 skip drops the word, replace puts U+FFFD as Python does", "[text_corpus]") {
  temp_dir dir;
  const std::string R = "\xEF\xBF\xBD"; // U+FFFD
  struct utf8_case {
    const char* name;
    std::string text;
    lines_t replaced; // Python's bytes.decode("utf-8", errors="replace"), split into words
    lines_t skipped;
  };
  std::vector<utf8_case> cases{
    {"invalid lead byte", "ok ok\nxx\xffyy\n", {{"ok", "ok"}, {"xx" + R + "yy"}}, {{"ok", "ok"}, {}}},
    {"bad continuation",
     "one caf\xc3"
     "e two\n",
     {{"one", "caf" + R + "e", "two"}},
     {{"one", "two"}}},
    {"overlong E0 80 AF: three", "a \xe0\x80\xaf b\n", {{"a", R + R + R, "b"}}, {{"a", "b"}}},
    {"surrogate ED A0 80: three", "a \xed\xa0\x80\n", {{"a", R + R + R}}, {{"a"}}},
    {"past U+10FFFF: four", "\xf4\x90\x80\x80 z\n", {{R + R + R + R, "z"}}, {{"z"}}},
    {"overlong C0 AF: two", "\xc0\xaf\n", {{R + R}}, {{}}},
    {"cut by a space", "\xe2\x82 x\n", {{R, "x"}}, {{"x"}}},
    {"cut by the end of the file", "end \xe6\x97", {{"end", R}}, {{"end"}}},
    {"valid four bytes are kept", "\xf0\x9f\x98\x80 ok\n", {{"\xf0\x9f\x98\x80", "ok"}}, {{"\xf0\x9f\x98\x80", "ok"}}},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto path = dir.write("utf.txt", c.text);
    auto replaced = scan(path, {0, c.text.size()}, invalid_utf8::replace);
    REQUIRE(replaced.st);
    CHECK(replaced.lines == c.replaced);
    auto skipped = scan(path, {0, c.text.size()}, invalid_utf8::skip);
    REQUIRE(skipped.st);
    CHECK(skipped.lines == c.skipped);
    // Every case but the valid one fails by default.
    auto failed = scan(path, {0, c.text.size()});
    CHECK(static_cast<bool>(failed.st) == (c.replaced == c.skipped));
  }
  invalid_utf8 mode;
  CHECK(parse_invalid_utf8("replace", mode));
  CHECK(mode == invalid_utf8::replace);
  CHECK_FALSE(parse_invalid_utf8("ignore", mode));
}
