#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gridvec/core/vocabulary.hpp>
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;

namespace {

void add_n(word_counts& c, const std::string& w, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    c.add(w);
}

uint64_t count_of(const word_counts& c, const std::string& w) { return c.find(w).count; }

} // namespace

TEST_CASE("word_counts: counting and merging", "[vocabulary]") {
  word_counts a, b;
  for (const char* w : {"the", "cat", "the", "sat", "the"})
    a.add(w);
  for (const char* w : {"the", "dog", "dog", "the", "dog", "dog"})
    b.add(w);
  CHECK(a.total() == 5u);
  CHECK(a.distinct() == 3u);
  CHECK(count_of(a, "the") == 3u);
  CHECK(count_of(b, "dog") == 4u);

  word_counts merged = a;
  merged.merge(b);
  CHECK(merged.total() == 11u);
  CHECK(merged.distinct() == 4u);
  CHECK(count_of(merged, "the") == 5u);
  CHECK(count_of(merged, "cat") == 1u);
  CHECK(count_of(merged, "sat") == 1u);
  CHECK(count_of(merged, "dog") == 4u);
  // The argument is left as it was.
  CHECK(b.total() == 6u);
  CHECK(count_of(b, "the") == 2u);

  // Merging is order-independent.
  word_counts other = b;
  other.merge(a);
  CHECK(other.total() == merged.total());
  merged.for_each([&](std::string_view w, word_counts::seen seen) {
    CHECK(other.find(w).count == seen.count);
    CHECK(other.find(w).first == seen.first);
  });

  // Merging an empty count changes nothing.
  merged.merge(word_counts{});
  CHECK(merged.total() == 11u);
  CHECK(merged.distinct() == 4u);
}

TEST_CASE("word_counts: words are byte strings", "[vocabulary]") {
  word_counts c;
  c.add("Straße");
  c.add("strasse");
  c.add("Straße");
  c.add(std::string_view{"Straßen"}.substr(0, 7)); // "Straße" as a view into a longer string
  CHECK(c.distinct() == 2u);
  CHECK(count_of(c, "Straße") == 3u);
  CHECK(word_key("a") != word_key("b"));
  CHECK(word_key("") == 0xcbf29ce484222325ull); // FNV-1a offset basis
}

TEST_CASE("vocabulary: build orders by count, then by first appearance", "[vocabulary]") {
  word_counts c;
  add_n(c, "b", 3);
  add_n(c, "a", 3);
  add_n(c, "ab", 3);
  add_n(c, "Z", 3);
  add_n(c, "\xc3\xa9t\xc3\xa9", 3); // "été": bytes above 0x7F sort after ASCII
  add_n(c, "z", 3);
  add_n(c, "top", 10);
  add_n(c, "mid", 5);
  add_n(c, "rare", 1);

  auto v = vocabulary::build(c, 1, 0);
  REQUIRE(v);
  // As word2vec.c (a stable sort of the words in the order they came).
  const std::vector<std::string> expect{"top", "mid", "b", "a", "ab", "Z", "\xc3\xa9t\xc3\xa9", "z", "rare"};
  REQUIRE(v->size() == expect.size());
  for (uint32_t i = 0; i < v->size(); ++i) {
    CHECK(v->word(i) == expect[i]);
    CHECK(v->id_of(expect[i]) == i);
    CHECK(v->count(i) == count_of(c, expect[i]));
  }
  CHECK(v->counts().size() == expect.size());
  CHECK(v->train_words() == c.total());
  CHECK(v->id_of("nope") == vocabulary::npos);
  CHECK(v->id_of("") == vocabulary::npos);
  CHECK(v->id_of("to") == vocabulary::npos); // a prefix of a word
}

TEST_CASE("vocabulary: min_count and max_size", "[vocabulary]") {
  word_counts c;
  add_n(c, "w10", 10);
  add_n(c, "w7", 7);
  add_n(c, "w5a", 5);
  add_n(c, "w5b", 5);
  add_n(c, "w4", 4);
  add_n(c, "w1", 1);

  SECTION("min_count keeps words with count >= min_count") {
    auto v = vocabulary::build(c, 5, 0);
    REQUIRE(v);
    REQUIRE(v->size() == 4u);
    CHECK(v->word(0) == "w10");
    CHECK(v->word(1) == "w7");
    CHECK(v->word(2) == "w5a");
    CHECK(v->word(3) == "w5b");
    CHECK(v->id_of("w4") == vocabulary::npos);
    CHECK(v->id_of("w1") == vocabulary::npos);
    CHECK(v->train_words() == 27u); // 10 + 7 + 5 + 5, not the corpus total 32
  }

  SECTION("max_size keeps the most frequent") {
    auto v = vocabulary::build(c, 1, 3);
    REQUIRE(v);
    REQUIRE(v->size() == 3u);
    CHECK(v->word(2) == "w5a"); // tie with w5b: w5a came first
    CHECK(v->id_of("w5b") == vocabulary::npos);
    CHECK(v->train_words() == 22u);
  }

  SECTION("both") {
    auto v = vocabulary::build(c, 7, 10);
    REQUIRE(v);
    CHECK(v->size() == 2u);
    CHECK(v->train_words() == 17u);
  }

  SECTION("max_size 0 means no limit") {
    auto v = vocabulary::build(c, 1, 0);
    REQUIRE(v);
    CHECK(v->size() == 6u);
    CHECK(v->train_words() == c.total());
  }
}

TEST_CASE("vocabulary: failures", "[vocabulary]") {
  SECTION("empty corpus") {
    auto v = vocabulary::build(word_counts{}, 5, 0);
    REQUIRE_FALSE(v);
    INFO(v.error());
    CHECK(contains(v.error(), "no words"));
  }
  SECTION("no word reaches min-count") {
    word_counts c;
    add_n(c, "a", 4);
    add_n(c, "b", 2);
    auto v = vocabulary::build(c, 5, 0);
    REQUIRE_FALSE(v);
    INFO(v.error());
    CHECK(contains(v.error(), "min-count"));
    CHECK(contains(v.error(), "5"));
    CHECK_FALSE(contains(v.error(), "\n"));
  }
}

TEST_CASE("vocabulary: a damaged file's header size fails the load instead of throwing", "[vocabulary]") {
  // Found by tests/fuzz/fuzz_vocabulary.cpp: "-5" reads as 2^64 - 5, and
  // load() reserved that many entries, throwing length_error (the process
  // ended) where it should fail with one line. Sizes past 32-bit word ids
  // are refused from the header; a smaller wrong size at the first missing entry.
  gridvec::test::temp_dir dir;
  for (const char* size : {"-5", "18446744073709551615", "4294967296000", "3"}) {
    INFO(size);
    const auto path = dir.write("vocabulary.txt", std::string{"gridvec-vocabulary 1 "} + size + " 4\n2 cat\n2 mat\n");
    expected<vocabulary> v = failure{"not loaded"};
    REQUIRE_NOTHROW(v = vocabulary::load(path));
    REQUIRE_FALSE(v);
    CHECK(contains(v.error(), std::string{size} == "3" ? "malformed entry 3" : "32-bit word ids"));
    CHECK_FALSE(contains(v.error(), "\n"));
  }
  // A header that matches still loads.
  const auto path = dir.write("vocabulary.txt", "gridvec-vocabulary 1 2 4\n2 cat\n2 mat\n");
  auto v = vocabulary::load(path);
  REQUIRE(v);
  CHECK(v->size() == 2);
  CHECK(v->id_of("mat") == 1);
}

TEST_CASE("subsampler: word2vec.c's keep probability", "[vocabulary]") {
  word_counts c;
  add_n(c, "huge", 50'000);
  add_n(c, "big", 20'000);
  add_n(c, "medium", 1'000);
  add_n(c, "small", 100);
  add_n(c, "tiny", 3);
  auto v = vocabulary::build(c, 1, 0);
  REQUIRE(v);
  const double n = static_cast<double>(v->train_words());

  for (double t : {1e-3, 1e-4, 1e-5}) {
    subsampler s(*v, t);
    for (uint32_t id = 0; id < v->size(); ++id) {
      const double cnt = static_cast<double>(v->count(id));
      const double expect = std::min(1.0, (std::sqrt(cnt / (t * n)) + 1.0) * t * n / cnt);
      INFO("sample " << t << ", word " << v->word(id));
      CHECK(std::abs(s.keep_probability(id) - expect) <= 1.0 / 4294967296.0 + 1e-12);
      CHECK(s.threshold(id) <= 4294967296ull);
    }
  }
  // Concrete values for -sample 1e-3 (t·N = 71.103): the most frequent word
  // is mostly dropped, rare words are always kept.
  subsampler s(*v, 1e-3);
  CHECK(s.keep_probability(v->id_of("huge")) < 0.05);
  CHECK(s.keep_probability(v->id_of("huge")) < s.keep_probability(v->id_of("big")));
  CHECK(s.keep_probability(v->id_of("small")) == 1.0);
  CHECK(s.threshold(v->id_of("tiny")) == 4294967296ull);
}

TEST_CASE("subsampler: sample 0 keeps everything", "[vocabulary]") {
  word_counts c;
  add_n(c, "a", 100'000);
  add_n(c, "b", 10);
  auto v = vocabulary::build(c, 1, 0);
  REQUIRE(v);
  subsampler s(*v, 0.0);
  for (uint32_t id = 0; id < v->size(); ++id) {
    CHECK(s.keep_probability(id) == 1.0);
    // Any 32-bit random number is below the threshold.
    CHECK(s.threshold(id) > 0xFFFFFFFFull);
  }
}

TEST_CASE("word_counts: parts counted apart order words as one pass would", "[vocabulary]") {
  // Part 2 starts at byte 100; "late" comes first in part 2 but, merged,
  // "early" (part 1) is still the first seen of equal counts.
  word_counts part1{0}, part2{100};
  part2.add("late");
  part2.add("early");
  part1.add("early");
  part1.add("late");
  part1.add_line_end();
  part2.add_line_end();
  word_counts merged;
  merged.merge(part2.to_table()); // in the order the parts finish
  merged.merge(part1.to_table());
  CHECK(merged.lines() == 2);
  auto v = vocabulary::build(merged, 1, 0);
  REQUIRE(v);
  CHECK(v->word(0) == "early");
  CHECK(v->word(1) == "late");
}

TEST_CASE("word_counts: parts, tables and release give one pass's vocabulary", "[vocabulary]") {
  // Id-like words with many equal counts, counted in 1, 2 and 3 parts whose
  // tables are released and merged in reverse order: words, counts and
  // order equal a plain map's count of the same tokens, sorted by count,
  // then first appearance.
  std::mt19937_64 rng{11};
  std::vector<std::string> tokens;
  for (int i = 0; i < 60000; ++i)
    tokens.push_back("q_" + std::to_string(rng() % 9000) + (rng() % 3 == 0 ? "_long_suffix_of_an_ad_id" : ""));
  struct ref_seen {
    uint64_t count = 0;
    uint64_t first = 0;
  };
  std::map<std::string, ref_seen> plain;
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto [it, added] = plain.try_emplace(tokens[i], ref_seen{0, i});
    ++it->second.count;
  }
  std::vector<std::pair<std::string, ref_seen>> expect(plain.begin(), plain.end());
  std::sort(expect.begin(), expect.end(), [](const auto& a, const auto& b) {
    return a.second.count != b.second.count ? a.second.count > b.second.count : a.second.first < b.second.first;
  });
  for (size_t parts : {1, 2, 3}) {
    std::vector<count_table> tables;
    for (size_t p = 0; p < parts; ++p) {
      const size_t begin = tokens.size() * p / parts, end = tokens.size() * (p + 1) / parts;
      word_counts c{begin};
      for (size_t i = begin; i < end; ++i)
        c.add(tokens[i]);
      tables.push_back(p % 2 ? c.release_table() : c.to_table());
      if (p % 2)
        CHECK(c.distinct() == 0); // released
    }
    word_counts merged;
    for (size_t p = parts; p-- > 0;)
      REQUIRE(merged.merge(tables[p]));
    CHECK(merged.total() == tokens.size());
    for (uint64_t min_count : {1, 8}) {
      auto v = vocabulary::build(merged, min_count, 0);
      REQUIRE(v);
      size_t k = 0;
      for (const auto& [w, s] : expect) {
        if (s.count < min_count)
          continue;
        REQUIRE(k < v->size());
        INFO(parts << " parts, min-count " << min_count << ", id " << k);
        CHECK(v->word(static_cast<uint32_t>(k)) == w);
        CHECK(v->count(static_cast<uint32_t>(k)) == s.count);
        CHECK(v->id_of(w) == k);
        ++k;
      }
      CHECK(k == v->size());
    }
  }
}

TEST_CASE("count_table: a table whose arrays disagree is refused", "[vocabulary]") {
  count_table t;
  t.add("the", 3, 0);
  t.add("cat", 2, 1);
  CHECK(t.well_formed());
  word_counts c;
  t.lengths[1] = 4; // past the words' bytes
  CHECK_FALSE(c.merge(t));
  CHECK(c.distinct() == 0);
  t.lengths[1] = 3;
  t.counts.pop_back();
  CHECK_FALSE(c.merge(t));
  t.counts.push_back(2);
  CHECK(c.merge(t));
  CHECK(c.find("cat").count == 2);
}

TEST_CASE("vocabulary: word ids are 32-bit; a file of more words is refused in one line", "[vocabulary]") {
  gridvec::test::temp_dir dir;
  const auto path = dir.write("v.txt", "gridvec-vocabulary 1 4294967296 5\n5 the\n");
  auto v = vocabulary::load(path);
  REQUIRE_FALSE(v);
  CHECK(contains(v.error(), "4294967296 words, more than the 4294967295 that 32-bit word ids can number"));
}
