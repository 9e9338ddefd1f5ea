#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include <sys/resource.h>

#include "src/corpus/bounded_counter.hpp"
#include "src/corpus/partitioned_count.hpp"
#include "src/corpus/text_corpus.hpp"
#include "tests/dev_corpus.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::temp_dir;

namespace {

struct reference_count {
  uint64_t count = 0;
  uint64_t first = 0;
};
using reference_map = std::unordered_map<std::string, reference_count>;

// The plain count: every word of every range, numbered as word_counts
// numbers them (a range starting at byte B numbers its n-th token B + n).
reference_map count_plainly(const std::string& path, const std::vector<byte_range>& ranges, uint64_t& tokens) {
  reference_map counts;
  corpus_scanner scanner{path};
  for (const auto& range : ranges) {
    uint64_t place = range.begin;
    auto scanned = scanner.scan(
      range,
      [&](std::string_view w) {
        auto [it, added] = counts.try_emplace(std::string{w}, reference_count{0, place});
        ++it->second.count;
        ++place;
        ++tokens;
      },
      [] {});
    REQUIRE(scanned);
  }
  return counts;
}

std::string make_work_dir(const temp_dir& dir) {
  const std::string work = dir.file("work");
  std::filesystem::create_directory(work);
  return work;
}

bool empty_dir(const std::string& path) { return std::filesystem::is_empty(path); }

// Checks that the merged stream is the reference, in increasing byte order.
void check_merged(bounded_counter& counter, const reference_map& expected) {
  std::string previous;
  size_t seen = 0;
  bool first_word = true;
  auto merged = counter.merge([&](const counted_word& w) {
    if (!first_word)
      REQUIRE(previous < w.word);
    first_word = false;
    previous.assign(w.word);
    auto it = expected.find(previous);
    REQUIRE(it != expected.end());
    CHECK(w.count == it->second.count);
    CHECK(w.first == it->second.first);
    ++seen;
  });
  INFO((merged ? std::string{} : merged.error()));
  REQUIRE(merged);
  CHECK(seen == expected.size());
}

// The process's file size limit and SIGXFSZ's disposition, put back when
// the test ends however it ends.
class file_size_limit {
public:
  explicit file_size_limit(rlim_t bytes) {
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved_) == 0);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN); // a write past the limit fails with EFBIG instead
    rlimit lower = saved_;
    lower.rlim_cur = bytes;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &lower) == 0);
  }
  ~file_size_limit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }
  file_size_limit(const file_size_limit&) = delete;
  file_size_limit& operator=(const file_size_limit&) = delete;

private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
};

} // namespace

TEST_CASE("bounded_counter: the dev corpus counted under a small budget equals a plain map's count",
          "[bounded_counter]") {
  temp_dir dir;
  const std::string corpus = test::stage_dev_corpus(dir);
  const std::string work = make_work_dir(dir);
  auto ranges = split_corpus(corpus, 3);
  REQUIRE(ranges);
  uint64_t tokens = 0;
  const reference_map expected = count_plainly(corpus, *ranges, tokens);
  REQUIRE(expected.size() > 40000); // 48k distinct words: several times what the budget holds

  auto budget = GENERATE(size_t{1280} << 10, size_t{256} << 20); // spilling, and all in memory
  auto counter = bounded_counter::create(work, budget);
  REQUIRE(counter);
  std::vector<bounded_counter> counters;
  counters.push_back(std::move(*counter));
  uint64_t lines = 0;
  auto counted = count_partitioned(corpus, *ranges, counters, lines);
  INFO((counted ? std::string{} : counted.error()));
  REQUIRE(counted);
  CHECK(counters[0].tokens() == tokens);
  CHECK(lines == 19114);
  CHECK(counters[0].memory_bytes() <= budget);
  if (budget < (size_t{2} << 20)) {
    CHECK(counters[0].spills() >= 3);
    CHECK(std::filesystem::exists(counters[0].directory()));
    CHECK_FALSE(empty_dir(counters[0].directory()));
  } else {
    CHECK(counters[0].spills() == 0);
  }
  check_merged(counters[0], expected);
  // The runs and the counter's directory are gone once merged.
  CHECK(empty_dir(work));
}

TEST_CASE("bounded_counter: memory stays under the budget, and more runs than the merge reads at once",
          "[bounded_counter]") {
  temp_dir dir;
  const std::string work = make_work_dir(dir);
  const size_t budget = bounded_counter::min_budget;
  auto counter = bounded_counter::create(work, budget);
  REQUIRE(counter);
  // Id-like words, 300k distinct, each added 1 to 3 times in scattered
  // order: about 3,000 fit the smallest budget, so about a hundred runs.
  reference_map expected;
  uint64_t place = 0;
  for (uint64_t round = 0; round < 3; ++round)
    for (uint64_t i = 0; i < 300'000; ++i) {
      if (round > 0 && (i * 2654435761u) % 3 < round)
        continue;
      const uint64_t k = (i * 48271u + round * 7919u) % 300'000;
      const std::string w = "q" + std::to_string(k * 2654435761u % 1'000'003) + "_" + std::to_string(k);
      auto [it, added] = expected.try_emplace(w, reference_count{0, place});
      ++it->second.count;
      counter->add(w, place++);
      REQUIRE(counter->memory_bytes() + counter->words_in_memory() * sizeof(uint64_t) <= budget);
    }
  REQUIRE(counter->ok());
  CHECK(counter->tokens() == place);
  CHECK(counter->spills() > bounded_counter::merge_fan_in);
  check_merged(*counter, expected);
  CHECK(empty_dir(work));
  // Used once: a second merge says so.
  auto again = counter->merge([](const counted_word&) {});
  REQUIRE_FALSE(again);
  CHECK_THAT(again.error(), Catch::Contains("merged already"));
}

TEST_CASE("bounded_counter: counts added in bulk sum, and the first place is the smallest", "[bounded_counter]") {
  temp_dir dir;
  auto counter = bounded_counter::create(make_work_dir(dir), size_t{8} << 20);
  REQUIRE(counter);
  counter->add("b", 3, 40);
  counter->add("a", 2, 50);
  counter->add("b", 10);
  counter->add("", 1, 7); // the empty word is a word like another
  std::vector<std::string> words;
  std::vector<uint64_t> counts, firsts;
  auto merged = counter->merge([&](const counted_word& w) {
    words.emplace_back(w.word);
    counts.push_back(w.count);
    firsts.push_back(w.first);
  });
  REQUIRE(merged);
  CHECK(words == std::vector<std::string>{"", "a", "b"});
  CHECK(counts == std::vector<uint64_t>{1, 2, 4});
  CHECK(firsts == std::vector<uint64_t>{7, 50, 10});
}

TEST_CASE("bounded_counter: a work directory that cannot be made fails in one line", "[bounded_counter]") {
  temp_dir dir;
  const std::string file = dir.write("a-file", "not a directory\n");
  auto counter = bounded_counter::create(file + "/counts", size_t{8} << 20);
  REQUIRE_FALSE(counter);
  CHECK_THAT(counter.error(),
             Catch::Contains("cannot create the counting work directory") && Catch::Contains(file + "/counts"));
  CHECK(counter.error().find('\n') == std::string::npos);

  auto small = bounded_counter::create(dir.path(), 1000);
  REQUIRE_FALSE(small);
  CHECK_THAT(small.error(), Catch::Contains("budget of 1000 bytes is below the smallest"));
}

TEST_CASE("bounded_counter: a run that cannot be written ends the count in one line, and leaves no file",
          "[bounded_counter]") {
  temp_dir dir;
  const std::string work = make_work_dir(dir);
  auto counter = bounded_counter::create(work, bounded_counter::min_budget);
  REQUIRE(counter);
  {
    // Every file this process writes is cut at 16 KiB, as on a full disk
    // (the write fails with EFBIG where a full disk gives ENOSPC).
    file_size_limit limit{16 << 10};
    for (uint64_t i = 0; i < 20'000; ++i)
      counter->add("word" + std::to_string(i), i);
  }
  CHECK_FALSE(counter->ok());
  const uint64_t tokens = counter->tokens();
  counter->add("after", 20'000); // ignored: the count has failed
  CHECK(counter->tokens() == tokens);
  auto merged = counter->merge([](const counted_word&) { FAIL("no word comes out of a failed count"); });
  REQUIRE_FALSE(merged);
  CHECK(merged.code() == error_code::io);
  CHECK_THAT(merged.error(), Catch::StartsWith("cannot write counts to " + counter->directory() + "/run-0: ") &&
                               Catch::Contains("File too large") && Catch::Contains("free space there"));
  CHECK(merged.error().find('\n') == std::string::npos);
  CHECK(empty_dir(work));
}
