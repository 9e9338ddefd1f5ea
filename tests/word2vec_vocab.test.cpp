// word2vec.c's vocabulary file (-save-vocab / -read-vocab); e2e_word2vec
// compares the file with the one word2vec.c itself writes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "src/corpus/word2vec_vocab.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

TEST_CASE("word2vec vocab: saved as word2vec.c writes it, read back in the same order", "[vocabulary]") {
  gridvec::test::temp_dir dir;
  word_counts c;
  for (const char* w : {"b", "a", "b", "a", "c", "top", "top", "top"})
    c.add(w);
  c.add_line_end();
  c.add_line_end();
  auto v = vocabulary::build(c, 1, 0);
  REQUIRE(v);
  const auto path = dir.path() + "/vocab.txt";
  REQUIRE(save_word2vec_vocab(*v, c.lines(), path));
  CHECK(slurp(path) == "</s> 2\ntop 3\nb 2\na 2\nc 1\n");

  auto table = read_word2vec_vocab(path);
  REQUIRE(table);
  CHECK(table->lines == 2);
  CHECK(table->words == "topbac");
  CHECK(table->lengths == std::vector<uint32_t>{3, 1, 1, 1});
  CHECK(table->total == 8);
  word_counts again;
  again.merge(*table);
  auto v2 = vocabulary::build(again, 2, 0); // -min-count applies to a read vocabulary too
  REQUIRE(v2);
  REQUIRE(v2->size() == 3);
  CHECK(v2->word(1) == "b"); // the file's order among equal counts
  CHECK(v2->word(2) == "a");
}

TEST_CASE("word2vec vocab: a malformed file fails with its line number", "[vocabulary]") {
  gridvec::test::temp_dir dir;
  for (auto [text, want] :
       std::vector<std::pair<std::string, std::string>>{{"</s> 3\nword\n", ":2: expected 'WORD COUNT'"},
                                                        {"word 12x\n", ":1: expected"},
                                                        {"word 99999999999999999999999\n", ":1: expected"},
                                                        {"a 1\nb 2\na 3\n", ":3: 'a' is listed twice"},
                                                        {"</s> 5\n", "lists no words"},
                                                        {"word \n", ":1: expected"}}) {
    INFO(text);
    auto t = read_word2vec_vocab(dir.write("v.txt", text));
    REQUIRE_FALSE(t);
    CHECK(contains(t.error(), want));
  }
  CHECK_FALSE(read_word2vec_vocab(dir.path() + "/none.txt"));
}
