#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/vocabulary_lookup.hpp"
#include "src/corpus/vocabulary_reader.hpp"
#include "src/corpus/word2vec_vocab.hpp"
#include "src/model/word_classes.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;
using gridvec::test::read_file;
using gridvec::test::temp_dir;

namespace {

const std::string three_words = "gridvec-vocabulary 1 3 9\n5 the\n3 of\n1 zebra\n";

} // namespace

TEST_CASE("vocabulary reader: the words in id order, one at a time, from any id", "[vocabulary_reader]") {
  temp_dir dir;
  const auto path = dir.write("vocab.txt", three_words);
  auto reader = vocabulary_reader::open_guarded(path);
  REQUIRE(reader);
  CHECK(reader->size() == 3);
  CHECK(reader->train_words() == 9);
  std::string word;
  uint64_t count = 0;
  std::vector<std::string> words;
  while (reader->position() < reader->size()) {
    REQUIRE(reader->next(word, count));
    words.push_back(word + ":" + std::to_string(count));
  }
  CHECK(words == std::vector<std::string>{"the:5", "of:3", "zebra:1"});
  CHECK(reader->counted() == 9);
  auto past = reader->next(word, count);
  REQUIRE(!past);
  CHECK(contains(past.error(), "no word 4 (the header says 3)"));

  auto from_two = vocabulary_reader::open_guarded(path);
  REQUIRE(from_two);
  REQUIRE(from_two->skip_to(2));
  REQUIRE(from_two->next(word, count));
  CHECK(word == "zebra");
  CHECK(!vocabulary_reader::open_guarded(path)->skip_to(4));

  // vocabulary::load reads through it: the same words and ids.
  auto loaded = vocabulary::load(path);
  REQUIRE(loaded);
  CHECK(loaded->id_of("zebra") == 2);
}

TEST_CASE("vocabulary reader: a damaged file fails in one line at the entry", "[vocabulary_reader]") {
  temp_dir dir;
  auto header = vocabulary_reader::open_guarded(dir.write("plain.txt", "the 5\nof 3\n"));
  REQUIRE(!header);
  CHECK(contains(header.error(), "is not a gridvec vocabulary file"));
  auto too_many = vocabulary_reader::open_guarded(dir.write("many.txt", "gridvec-vocabulary 1 4294967296 1\n1 a\n"));
  REQUIRE(!too_many);
  CHECK(contains(too_many.error(), "32-bit word ids"));

  auto reader =
    vocabulary_reader::open_guarded(dir.write("bad.txt", "gridvec-vocabulary 1 3 9\n5 the\nthree of\n1 zebra\n"));
  REQUIRE(reader);
  std::string word;
  uint64_t count = 0;
  REQUIRE(reader->next(word, count));
  auto second = reader->next(word, count);
  REQUIRE(!second);
  CHECK(contains(second.error(), "bad.txt: malformed entry 2"));
}

TEST_CASE("vocabulary reader: files written from it are whole or absent", "[vocabulary_reader]") {
  temp_dir dir;
  // -save-vocab's format and -classes' lines, the words read as written.
  auto reader = vocabulary_reader::open_guarded(dir.write("vocab.txt", three_words));
  REQUIRE(reader);
  REQUIRE(save_word2vec_vocab(*reader, 7, dir.file("w2v.vocab")));
  CHECK(read_file(dir.file("w2v.vocab")) == "</s> 7\nthe 5\nof 3\nzebra 1\n");
  auto again = vocabulary_reader::open_guarded(dir.file("vocab.txt"));
  REQUIRE(again);
  REQUIRE(write_word_classes(dir.file("classes.txt"), *again, {0, 1, 0}));
  CHECK(read_file(dir.file("classes.txt")) == "the 0\nof 1\nzebra 0\n");

  // A file cut after its first word: no half-written output.
  auto cut = vocabulary_reader::open_guarded(dir.write("cut.txt", "gridvec-vocabulary 1 3 9\n5 the\n"));
  REQUIRE(cut);
  auto saved = save_word2vec_vocab(*cut, 7, dir.file("cut.vocab"));
  REQUIRE(!saved);
  CHECK(contains(saved.error(), "cut.txt"));
  auto cut_again = vocabulary_reader::open_guarded(dir.file("cut.txt"));
  REQUIRE(cut_again);
  CHECK(!write_word_classes(dir.file("cut-classes.txt"), *cut_again, {0, 1, 0}));
  CHECK(dir.entries() == std::vector<std::string>{"classes.txt", "cut.txt", "vocab.txt", "w2v.vocab"});
}

TEST_CASE("vocabulary lookup: ids of words and words of ids, one pass over the file", "[vocabulary_reader]") {
  temp_dir dir;
  const auto path = dir.write("vocab.txt", three_words);
  auto ids = ids_in_vocabulary_file(path, {"zebra", "nope", "the", "zebra"});
  REQUIRE(ids);
  CHECK(*ids == std::vector<uint32_t>{2, vocabulary::npos, 0, 2});
  auto none = ids_in_vocabulary_file(path, {});
  REQUIRE(none);
  CHECK(none->empty());
  auto words = words_in_vocabulary_file(path, {2, 0, 2, 1});
  REQUIRE(words);
  CHECK(*words == std::vector<std::string>{"zebra", "the", "zebra", "of"});
  auto past = words_in_vocabulary_file(path, {1, 3});
  REQUIRE(!past);
  CHECK(contains(past.error(), "word 3 is past the last"));
  // A damaged entry is found where the pass meets it.
  const auto damaged = dir.write("damaged.txt", "gridvec-vocabulary 1 3 9\n5 the\nthree of\n1 zebra\n");
  CHECK(!ids_in_vocabulary_file(damaged, {"zebra"}));
  CHECK(!words_in_vocabulary_file(damaged, {2}));
  // The same ids as the vocabulary loaded whole, on a file of many words.
  std::string big = "gridvec-vocabulary 1 5000 5000\n";
  for (int w = 0; w < 5000; ++w)
    big += "1 w" + std::to_string(w) + "\n";
  const auto many = dir.write("many.txt", big);
  auto loaded = vocabulary::load(many);
  REQUIRE(loaded);
  auto found = ids_in_vocabulary_file(many, {"w4999", "w0", "w2500"});
  REQUIRE(found);
  CHECK(*found == std::vector<uint32_t>{loaded->id_of("w4999"), loaded->id_of("w0"), loaded->id_of("w2500")});
  auto back = words_in_vocabulary_file(many, *found);
  REQUIRE(back);
  CHECK(*back == std::vector<std::string>{"w4999", "w0", "w2500"});
}
