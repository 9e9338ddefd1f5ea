#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "src/corpus/sharded_counter.hpp"
#include "src/corpus/text_corpus.hpp"
#include "src/corpus/vocabulary_partition.hpp"
#include "tests/dev_corpus.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::temp_dir;

namespace {

// The dev corpus as a count worker sends it: tables of about 3,000 of its
// tokens, some passed through (every token with a count of 1), some
// counted first (each word once, its count summed, its first place the
// smallest), numbered as the workers number them.
std::vector<count_table> dev_corpus_tables(const std::string& path) {
  auto ranges = split_corpus(path, 2);
  REQUIRE(ranges);
  std::vector<count_table> tables;
  for (const auto& range : *ranges) {
    uint64_t place = range.begin;
    word_counts counted{place};
    count_table passed;
    corpus_scanner scanner{path};
    auto scanned = scanner.scan(
      range,
      [&](std::string_view w) {
        if (tables.size() % 2 == 0) {
          passed.add(w, 1, place);
        } else {
          counted.add(w);
        }
        if (++place % 3000 == 0) {
          tables.push_back(tables.size() % 2 == 0 ? std::move(passed) : counted.release_table());
          passed = count_table{};
          counted = word_counts{place};
        }
      },
      [] {});
    REQUIRE(scanned);
    tables.push_back(std::move(passed));
    tables.push_back(counted.release_table());
  }
  return tables;
}

using word_entry = std::tuple<std::string, uint64_t, uint64_t>; // word, count, first place

// A partition's words in its order (count descending, then first place).
std::vector<word_entry> words_of(const vocabulary_partition& part) {
  std::vector<word_entry> out;
  part.for_each([&](std::string_view w, uint64_t count, uint64_t first, uint32_t) {
    out.emplace_back(std::string{w}, count, first);
  });
  return out;
}

} // namespace

TEST_CASE("sharded_counter: 2 and 3 shards, spilling or not, collect what one counter collects", "[sharded_counter]") {
  temp_dir dir;
  const std::string corpus = test::stage_dev_corpus(dir);
  const std::string work = dir.file("work");
  std::filesystem::create_directory(work);
  const auto tables = dev_corpus_tables(corpus);
  REQUIRE(tables.size() > 300);

  auto one = bounded_counter::create(work, size_t{256} << 20);
  REQUIRE(one);
  for (const auto& t : tables)
    t.for_each([&](std::string_view w, uint64_t count, uint64_t first) { one->add(w, count, first); });
  const uint64_t min_count = GENERATE(uint64_t{1}, uint64_t{5});
  auto expected = vocabulary_partition::collect(*one, min_count);
  REQUIRE(expected);
  const auto expected_words = words_of(*expected);
  REQUIRE(expected_words.size() > 10000);

  const unsigned shards = GENERATE(2u, 3u);
  // 48k distinct words take about 2 MB: the smallest budget a shard may
  // have spills.
  const bool spilling = GENERATE(false, true);
  const size_t budget = spilling ? shards * bounded_counter::min_budget : size_t{256} << 20;
  auto sharded = sharded_counter::create(work, budget, shards);
  REQUIRE(sharded);
  REQUIRE(sharded->shards().size() == shards);
  for (const auto& t : tables)
    sharded->add(t);
  CHECK(sharded->tokens() == expected->tokens());
  if (spilling)
    CHECK(sharded->spills() > 0);
  else
    CHECK(sharded->spills() == 0);
  size_t held = 0;
  for (auto& c : sharded->shards())
    held += c.words_in_memory();
  CHECK(held > 0);

  auto got = vocabulary_partition::collect(sharded->shards(), min_count);
  INFO((got ? std::string{} : got.error()));
  REQUIRE(got);
  CHECK(got->tokens() == expected->tokens());
  CHECK(got->distinct() == expected->distinct());
  CHECK(got->histogram() == expected->histogram());
  CHECK(words_of(*got) == expected_words);
  // Every shard's runs and directory are gone once collected.
  CHECK(std::filesystem::is_empty(work));

  // Numbered as the only partition, every word has the one counter's id,
  // before and after keep_ids_only(). With spilling, -max-vocab cuts
  // through the words, and the kept ones are copied into new maps.
  const uint64_t max_size = spilling ? 7000 : 0;
  auto layout = vocabulary_layout::decide(
    {expected->histogram()}, expected->tokens(), min_count, max_size,
    [&](uint32_t, uint64_t count, uint64_t limit) { return expected->earlier(count, limit); });
  REQUIRE(layout);
  expected->assign(*layout, 0);
  got->assign(*layout, 0);
  CHECK(got->size() == expected->size());
  CHECK(got->size() == (max_size > 0 ? max_size : expected_words.size()));
  auto same_ids = [&] {
    size_t numbered = 0, differ = 0;
    for (const auto& [w, count, first] : expected_words) {
      const uint32_t id = expected->id_of(w);
      numbered += id != vocabulary::npos;
      differ += got->id_of(w) != id;
    }
    CHECK(numbered == got->size());
    CHECK(differ == 0);
  };
  // A chunk looked up at once (slots and records fetched ahead) gives
  // what id_of gives word by word, an unknown word included.
  auto same_ids_at_once = [&] {
    std::string words;
    std::vector<uint32_t> lengths, ids;
    vocabulary_partition::lookup_scratch scratch;
    for (const auto& [w, count, first] : expected_words) {
      words += w;
      lengths.push_back(static_cast<uint32_t>(w.size()));
    }
    words += "no-such-word";
    lengths.push_back(12);
    got->ids_of(words, lengths, ids, scratch);
    REQUIRE(ids.size() == lengths.size());
    size_t differ = 0;
    for (size_t i = 0; i + 1 < ids.size(); ++i)
      differ += ids[i] != expected->id_of(std::get<0>(expected_words[i]));
    CHECK(differ == 0);
    CHECK(ids.back() == vocabulary::npos);
  };
  same_ids();
  same_ids_at_once();
  got->keep_ids_only();
  same_ids();
  same_ids_at_once();
  CHECK(got->id_of("no-such-word") == vocabulary::npos);
}

TEST_CASE("sharded_counter: a budget too small for every shard gives fewer shards", "[sharded_counter]") {
  temp_dir dir;
  auto small = sharded_counter::create(dir.path(), bounded_counter::min_budget * 2, 4);
  REQUIRE(small);
  CHECK(small->shards().size() == 2);
  auto tiny = sharded_counter::create(dir.path(), bounded_counter::min_budget, 4);
  REQUIRE(tiny);
  CHECK(tiny->shards().size() == 1);
  CHECK(sharded_counter::default_shards() >= 1);
  CHECK(sharded_counter::default_shards() <= sharded_counter::max_shards);
}
