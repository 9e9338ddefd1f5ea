#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include <gridvec/core/word_map.hpp>

using namespace gridvec;

TEST_CASE("word_map: finds what was inserted, in insertion order", "[word_map]") {
  word_map<uint32_t> m;
  CHECK(m.find("absent") == 0);
  std::vector<std::string> words;
  std::mt19937_64 rng{7};
  for (uint32_t i = 0; i < 50000; ++i) {
    std::string w = "w" + std::to_string(rng() % 30000);
    auto [r, added] = m.insert(w, i);
    if (added)
      words.push_back(w);
    else
      CHECK(m.word(r) == w);
  }
  REQUIRE(m.size() == words.size());
  size_t k = 0;
  m.for_each([&](word_map<uint32_t>::ref r) {
    REQUIRE(k < words.size());
    CHECK(m.word(r) == words[k]);
    CHECK(m.find(words[k]) == r);
    ++k;
  });
  CHECK(k == words.size());
  CHECK(m.find("w30001") == 0);
}

TEST_CASE("word_map: byte strings, empty and long words", "[word_map]") {
  word_map<uint64_t> m;
  const std::string nul{"a\0b", 3};
  const std::string long_word(3'000'000, 'x'); // longer than an arena chunk
  const std::string mid(200, 'y');             // a two-byte length
  m.insert("", 1);
  m.insert(nul, 2);
  m.insert(long_word, 3);
  m.insert(mid, 4);
  m.insert("after", 5);
  m.insert(std::string(1'048'000, 'z'), 6); // just under a chunk: a chunk of its own
  m.insert("last", 7);
  CHECK(m.size() == 7);
  CHECK(m.value(m.find("")) == 1);
  CHECK(m.value(m.find(nul)) == 2);
  CHECK(m.find(std::string{"a"}) == 0);
  CHECK(m.value(m.find(long_word)) == 3);
  CHECK(m.word(m.find(long_word)) == long_word);
  CHECK(m.value(m.find(mid)) == 4);
  CHECK(m.value(m.find("after")) == 5);
  CHECK(m.value(m.find("last")) == 7);
  std::vector<uint64_t> order;
  m.for_each([&](word_map<uint64_t>::ref r) { order.push_back(m.value(r)); });
  CHECK(order == std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7});
  // Copies are deep; release walks the same order and empties the map.
  word_map<uint64_t> copy = m;
  m.set(m.find("after"), 50);
  CHECK(copy.value(copy.find("after")) == 5);
  std::vector<std::string> released;
  copy.release([&](std::string_view w, uint64_t) { released.emplace_back(w); });
  CHECK(released.size() == 7);
  CHECK(released[2] == long_word);
  CHECK(copy.size() == 0);
  CHECK(copy.find("after") == 0);
}

TEST_CASE("word_map: at most 32 bytes a word beside its bytes, for a million id-like words", "[word_map]") {
  // What a vocabulary holds per word: a 4-byte id here (the counting
  // table's value is 16 bytes: its count and first place).
  word_map<uint32_t> m;
  const size_t n = 1'000'000;
  size_t string_bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::string w = "q_" + std::to_string(i * 2654435761u) + "_" + std::to_string(i);
    string_bytes += w.size();
    m.insert(w, static_cast<uint32_t>(i));
  }
  const double per_word = static_cast<double>(m.memory_bytes() - string_bytes) / n;
  INFO("bytes per word beside its bytes: " << per_word);
  CHECK(per_word <= 32.0);
  CHECK(m.value(m.find("q_0_0")) == 0);
  CHECK(m.value(m.find("q_" + std::to_string(size_t{999'999} * 2654435761u) + "_999999")) == 999'999);
}

TEST_CASE("word_hash: stable values", "[word_map]") {
  // Nodes partition words by this hash: it must not change between builds.
  CHECK(word_hash("") == word_hash(std::string_view{}));
  CHECK(word_hash("the") != word_hash("thf"));
  CHECK(word_hash("abcdefgh") != word_hash(std::string_view{"abcdefgh\0", 9}));
  const uint64_t the = word_hash("the");
  const uint64_t id = word_hash("q_1f63b72bb73e_11e06");
  CHECK(the == word_hash(std::string{"the"}));
  CHECK(id == word_hash(std::string{"q_1f63b72bb73e_11e06"}));
}

TEST_CASE("word_map: memory_bytes_after_insert says what one more word will cost", "[word_map]") {
  // Through index growths, new arena chunks and a word longer than a
  // chunk: the prediction before each insert is what memory_bytes() says
  // after it.
  word_map<uint64_t> m;
  // The first word longer than a chunk: its own chunks after the first.
  const std::string huge(1'048'570, 'h');
  size_t predicted = m.memory_bytes_after_insert(huge.size());
  REQUIRE(m.insert(huge, 0).second);
  CHECK(m.memory_bytes() == predicted);
  std::mt19937_64 rng{3};
  for (uint64_t i = 0; i < 200'000; ++i) {
    std::string w = "id_" + std::to_string(rng()) + "_" + std::to_string(i);
    if (i == 150'000)
      w = std::string(1'500'000, 'x');
    predicted = m.memory_bytes_after_insert(w.size());
    REQUIRE(m.insert(w, i).second);
    REQUIRE(m.memory_bytes() == predicted);
  }
  CHECK(m.size() == 200'001);
}

TEST_CASE("word_map: emptied keeping its index, it is empty and fills again without growing it", "[word_map]") {
  word_map<uint32_t> m;
  m.reserve(70000);
  const size_t reserved = m.memory_bytes();
  for (int round = 0; round < 3; ++round) {
    for (uint32_t i = 0; i < 60000; ++i)
      m.insert("r" + std::to_string(round) + "-" + std::to_string(i), i);
    REQUIRE(m.size() == 60000);
    CHECK(m.find("r" + std::to_string(round) + "-59999") != 0);
    // The index was made once, for 70,000 words: only the arena grew (in
    // chunks of 1 MiB).
    CHECK((m.memory_bytes() - reserved) % (size_t{1} << 20) == 0);
    m.clear_keeping_index();
    CHECK(m.size() == 0);
    CHECK(m.empty());
    CHECK(m.find("r" + std::to_string(round) + "-0") == 0);
    CHECK(m.memory_bytes() == reserved);
    size_t records = 0;
    m.for_each([&](word_map<uint32_t>::ref) { ++records; });
    CHECK(records == 0);
  }
}
