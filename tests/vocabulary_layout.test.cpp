#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/partitioned_count.hpp"
#include "src/corpus/vocabulary_partition.hpp"
#include "src/corpus/vocabulary_writer.hpp"
#include "src/corpus/word2vec_vocab.hpp"
#include "src/util/rng.hpp"
#include "tests/dev_corpus.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::read_file;
using gridvec::test::temp_dir;

namespace {

// What one process counts: word_counts over the ranges, numbered as the
// count workers number them.
word_counts count_in_one_process(const std::string& path, const std::vector<byte_range>& ranges) {
  word_counts all;
  for (const auto& range : ranges) {
    word_counts part{range.begin};
    corpus_scanner scanner{path};
    auto scanned = scanner.scan(
      range, [&](std::string_view w) { part.add(w); }, [&] { part.add_line_end(); });
    REQUIRE(scanned);
    all.merge(part);
  }
  return all;
}

struct partitioned {
  expected<vocabulary_layout> layout = failure{"not decided"};
  std::vector<vocabulary_partition> parts;
  uint64_t lines = 0;
  size_t spills = 0;
};

// Counts over `partitions` counters of `budget` bytes each, collects every
// partition's words of count >= min_count, exchanges the histograms and
// assigns the ids, as partitions on separate nodes would.
partitioned count_partitioned_vocabulary(const std::string& path, const std::vector<byte_range>& ranges,
                                         uint32_t partitions, size_t budget, const std::string& work,
                                         uint64_t min_count, uint64_t max_size) {
  partitioned out;
  std::vector<bounded_counter> counters;
  for (uint32_t p = 0; p < partitions; ++p) {
    auto c = bounded_counter::create(work, budget);
    REQUIRE(c);
    counters.push_back(std::move(*c));
  }
  auto counted = count_partitioned(path, ranges, counters, out.lines);
  INFO((counted ? std::string{} : counted.error()));
  REQUIRE(counted);
  std::vector<count_histogram> histograms;
  uint64_t tokens = 0;
  for (auto& c : counters) {
    out.spills += c.spills();
    auto part = vocabulary_partition::collect(c, min_count);
    REQUIRE(part);
    tokens += part->tokens();
    histograms.push_back(part->histogram());
    out.parts.push_back(std::move(*part));
  }
  // Only histograms and, where -max-vocab cuts a count, numbers of words
  // cross between partitions.
  out.layout =
    vocabulary_layout::decide(histograms, tokens, min_count, max_size, [&](uint32_t p, uint64_t count, uint64_t limit) {
      return out.parts[p].earlier(count, limit);
    });
  if (out.layout)
    for (uint32_t p = 0; p < partitions; ++p)
      out.parts[p].assign(*out.layout, p);
  return out;
}

// Checks the partitioned vocabulary against one process's: the same words
// with the same counts at the same ids, but for the order among words of
// equal count, which is partition by partition and then by first
// appearance (and so word2vec.c's, word for word, with one partition).
void check_equal(const word_counts& counts, const vocabulary& single, partitioned& got, uint32_t partitions,
                 const temp_dir& dir) {
  REQUIRE(got.layout);
  const vocabulary_layout& layout = *got.layout;
  auto whole = assemble_vocabulary(got.parts, layout);
  INFO((whole ? std::string{} : whole.error()));
  REQUIRE(whole);
  REQUIRE(whole->size() == single.size());
  CHECK(layout.size() == single.size());
  CHECK(whole->train_words() == single.train_words());
  CHECK(layout.train_words() == single.train_words());
  size_t held = 0;
  for (const auto& part : got.parts)
    held += part.size();
  CHECK(held == single.size()); // each word in one partition only

  // The expected order: one process's words, counts descending, then
  // partition, then first appearance.
  struct entry {
    std::string word;
    uint64_t count, first;
    uint32_t partition;
  };
  std::vector<entry> expect;
  for (uint32_t id = 0; id < single.size(); ++id) {
    const auto w = single.word(id);
    expect.push_back({std::string{w}, single.count(id), counts.find(w).first, word_partition_of(w, partitions)});
  }
  std::stable_sort(expect.begin(), expect.end(), [](const entry& a, const entry& b) {
    if (a.count != b.count)
      return a.count > b.count;
    return a.partition != b.partition ? a.partition < b.partition : a.first < b.first;
  });
  // The counts file's runs: every id's count, in id order.
  std::vector<uint64_t> from_runs;
  for (const auto& run : layout.id_count_runs())
    from_runs.insert(from_runs.end(), run.words, run.count);
  REQUIRE(from_runs.size() == single.size());
  size_t wrong = 0;
  for (uint32_t id = 0; id < single.size(); ++id) {
    CHECK(whole->count(id) == single.count(id)); // the counts at every id
    if (from_runs[id] != single.count(id))
      ++wrong;
    if (whole->word(id) != expect[id].word)
      ++wrong;
    const uint32_t p = word_partition_of(whole->word(id), partitions);
    if (got.parts[p].id_of(whole->word(id)) != id)
      ++wrong;
  }
  CHECK(wrong == 0);
  // The same set of words in one process and over partitions.
  for (uint32_t id = 0; id < single.size(); ++id)
    if (whole->id_of(single.word(id)) == vocabulary::npos)
      ++wrong;
  CHECK(wrong == 0);
  // What -save-vocab writes: byte for byte with one partition; otherwise
  // the same lines, reordered only among words of equal count.
  const std::string a = dir.file("single.vocab"), b = dir.file("partitioned.vocab");
  REQUIRE(save_word2vec_vocab(single, counts.lines(), a));
  REQUIRE(save_word2vec_vocab(*whole, got.lines, b));
  if (partitions == 1) {
    CHECK(read_file(a) == read_file(b));
  } else {
    auto lines_of = [](const std::string& path) {
      std::ifstream in(path);
      std::vector<std::string> lines;
      for (std::string line; std::getline(in, line);)
        lines.push_back(line);
      std::sort(lines.begin(), lines.end());
      return lines;
    };
    CHECK(lines_of(a) == lines_of(b));
  }
  // The files written from the partitions' pages (97 words a page), the
  // layout having travelled as numbers, are the assembled vocabulary's.
  auto sent = vocabulary_layout::decode(layout.encode());
  REQUIRE(sent);
  const std::string paged = dir.file("paged.vocab"), paged_word2vec = dir.file("paged.w2v"),
                    assembled = dir.file("assembled.vocab");
  REQUIRE(whole->save(assembled));
  // Each page after the first comes with the one before it, emptied, as
  // the partition actor fills it.
  std::vector<int> pages_asked(got.parts.size(), 0);
  auto pages = [&](uint32_t p, count_table page) -> expected<count_table> {
    CHECK(page.size() == 0);
    CHECK(page.words.empty());
    if (pages_asked[p]++ > 1) // the first two pages are both in flight before one comes back
      CHECK(page.lengths.capacity() >= 97);
    got.parts[p].next_page(97, page);
    return page;
  };
  auto written = write_vocabulary_files(*sent, pages, got.lines, paged, paged_word2vec);
  INFO((written ? std::string{} : written.error()));
  REQUIRE(written);
  CHECK(read_file(paged) == read_file(assembled));
  CHECK(read_file(paged_word2vec) == read_file(b));
  // Paged out to the end, each partition filled its lookup maps on the
  // way: kept alone, they give every word its id.
  size_t misplaced = 0;
  for (auto& part : got.parts) {
    part.keep_ids_only();
    CHECK(part.histogram().empty());
  }
  for (uint32_t id = 0; id < whole->size(); ++id)
    if (got.parts[word_partition_of(whole->word(id), partitions)].id_of(whole->word(id)) != id)
      ++misplaced;
  CHECK(misplaced == 0);
  for (const auto& part : got.parts)
    CHECK(part.id_of("no-such-word") == vocabulary::npos);
}

} // namespace

TEST_CASE("word_partition_of: every partition gets its share, one partition gets all", "[vocabulary_layout]") {
  std::vector<size_t> seen(7, 0);
  for (int i = 0; i < 70'000; ++i) {
    const std::string w = "w" + std::to_string(i);
    CHECK(word_partition_of(w, 1) == 0);
    const uint32_t p = word_partition_of(w, 7);
    REQUIRE(p < 7);
    ++seen[p];
    CHECK(word_partition_of(std::string{w}, 7) == p); // depends on the bytes only
  }
  for (size_t n : seen)
    CHECK((n > 9'000 && n < 11'000));
}

TEST_CASE("vocabulary_layout: ids from histograms alone", "[vocabulary_layout]") {
  // Partition 0: two words of count 9, one of 4; partition 1: one of 9,
  // three of 4, one of 2.
  const std::vector<count_histogram> h{{{9, 2}, {4, 1}}, {{9, 1}, {4, 3}, {2, 1}}};
  auto never = [](uint32_t, uint64_t, uint64_t) -> uint64_t {
    FAIL("no count is cut");
    return 0;
  };
  auto all = vocabulary_layout::decide(h, 100, 1, 0, never);
  REQUIRE(all);
  CHECK(all->size() == 8);
  CHECK(all->train_words() == 3 * 9 + 4 * 4 + 2);
  CHECK(all->id(0, 9, 0) == 0);
  CHECK(all->id(0, 9, 1) == 1);
  CHECK(all->id(1, 9, 0) == 2);
  CHECK(all->id(0, 4, 0) == 3);
  CHECK(all->id(1, 4, 2) == 6);
  CHECK(all->id(1, 2, 0) == 7);
  CHECK(all->kept(0, 2) == 0);

  auto min4 = vocabulary_layout::decide(h, 100, 4, 0, never);
  REQUIRE(min4);
  CHECK(min4->size() == 7);
  CHECK(min4->kept(1, 2) == 0);

  // -max-vocab 5 cuts through count 4: the two of its four words seen
  // first are kept, wherever they are. Places: partition 0's word of
  // count 4 at 30; partition 1's at 10, 20, 40.
  const std::vector<std::vector<uint64_t>> firsts{{30}, {10, 20, 40}};
  auto earlier = [&](uint32_t p, uint64_t count, uint64_t limit) -> uint64_t {
    REQUIRE(count == 4);
    return static_cast<uint64_t>(
      std::count_if(firsts[p].begin(), firsts[p].end(), [&](uint64_t f) { return f < limit; }));
  };
  auto cut = vocabulary_layout::decide(h, 100, 1, 5, earlier);
  REQUIRE(cut);
  CHECK(cut->size() == 5);
  CHECK(cut->kept(0, 4) == 0);
  CHECK(cut->kept(1, 4) == 2);
  CHECK(cut->id(1, 4, 1) == 4);
  CHECK(cut->train_words() == 3 * 9 + 2 * 4);
  auto cut4 = vocabulary_layout::decide(h, 100, 1, 6, earlier);
  REQUIRE(cut4);
  CHECK(cut4->kept(0, 4) == 1);
  CHECK(cut4->kept(1, 4) == 2);
  CHECK(cut4->id(0, 4, 0) == 3);
  CHECK(cut4->id(1, 4, 0) == 4);

  // Refusals, in vocabulary::build's words.
  CHECK_THAT(vocabulary_layout::decide(std::vector<count_histogram>{}, 0, 1, 0, never).error(),
             Catch::Contains("contains no words"));
  CHECK_THAT(vocabulary_layout::decide(h, 100, 10, 0, never).error(),
             Catch::Contains("no word occurs at least 10 times (-min-count 10)"));
  // Five billion words of count 5 are refused from their histogram, no word held.
  const std::vector<count_histogram> billions{count_histogram{count_class{5, 5'000'000'000ull}}};
  auto huge = vocabulary_layout::decide(billions, 25'000'000'000ull, 5, 0, never);
  REQUIRE_FALSE(huge);
  CHECK_THAT(huge.error(), Catch::Contains("more than the 4294967295 that 32-bit word ids can number"));
}

TEST_CASE("partitioned vocabulary: the dev corpus over 1, 2 and 3 partitions equals one process's",
          "[vocabulary_layout]") {
  temp_dir dir;
  const std::string corpus = test::stage_dev_corpus(dir);
  const std::string work = dir.file("work");
  std::filesystem::create_directory(work);
  auto ranges = split_corpus(corpus, 3);
  REQUIRE(ranges);
  const word_counts counts = count_in_one_process(corpus, *ranges);

  struct setting {
    uint32_t partitions;
    size_t budget;
    uint64_t min_count, max_size;
  };
  const size_t spills = size_t{1152} << 10, fits = size_t{64} << 20;
  auto s = GENERATE_COPY(setting{1, fits, 5, 0}, setting{1, spills, 1, 0}, setting{2, fits, 1, 0},
                         setting{2, spills, 5, 4321}, setting{3, fits, 3, 9999}, setting{3, spills, 5, 0});
  INFO("partitions " << s.partitions << ", budget " << s.budget << ", min-count " << s.min_count << ", max-vocab "
                     << s.max_size);
  auto single = vocabulary::build(counts, s.min_count, s.max_size);
  REQUIRE(single);
  auto got = count_partitioned_vocabulary(corpus, *ranges, s.partitions, s.budget, work, s.min_count, s.max_size);
  if (s.budget == spills)
    CHECK(got.spills >= s.partitions);
  check_equal(counts, *single, got, s.partitions, dir);
  CHECK(std::filesystem::is_empty(work));
}

TEST_CASE("partitioned vocabulary: id-like words of few distinct counts, -max-vocab cutting through a count",
          "[vocabulary_layout]") {
  // 30,000 words of 16-24 bytes, each 1 to 8 times, in shuffled lines: a
  // few thousand words share every count, so the cut of -max-vocab falls
  // among equals.
  temp_dir dir;
  rng r{11};
  std::vector<std::string> tokens;
  for (int i = 0; i < 30'000; ++i) {
    std::string w = "ad_";
    const uint64_t length = 13 + r.below(9);
    while (w.size() < length + 3)
      w.push_back("0123456789abcdef"[r.below(16)]);
    const uint64_t times = 1 + r.below(8);
    for (uint64_t k = 0; k < times; ++k)
      tokens.push_back(w);
  }
  for (size_t i = tokens.size(); i > 1; --i)
    std::swap(tokens[i - 1], tokens[r.below(i)]);
  std::string text;
  for (size_t i = 0; i < tokens.size(); ++i)
    text += tokens[i] + (i % 10 == 9 ? "\n" : " ");
  const std::string corpus = dir.write("ids.txt", text);
  const std::string work = dir.file("work");
  std::filesystem::create_directory(work);
  auto ranges = split_corpus(corpus, 2);
  REQUIRE(ranges);
  const word_counts counts = count_in_one_process(corpus, *ranges);

  auto partitions = GENERATE(1u, 2u, 3u);
  auto max_size = GENERATE(uint64_t{0}, uint64_t{10'001}, uint64_t{25'000});
  INFO("partitions " << partitions << ", max-vocab " << max_size);
  auto single = vocabulary::build(counts, 2, max_size);
  REQUIRE(single);
  auto got = count_partitioned_vocabulary(corpus, *ranges, partitions, bounded_counter::min_budget, work, 2, max_size);
  CHECK(got.spills > 0);
  check_equal(counts, *single, got, partitions, dir);
  CHECK(std::filesystem::is_empty(work));
}

TEST_CASE("vocabulary_layout: a layout sent as numbers is checked where it arrives", "[vocabulary_layout]") {
  auto no_cut = [](uint32_t, uint64_t, uint64_t) -> uint64_t { return 0; }; // -max-vocab cuts nothing here
  const std::vector<count_histogram> histograms{count_histogram{{9, 2}, {4, 3}}, count_histogram{{9, 1}, {5, 1}}};
  auto layout = vocabulary_layout::decide(histograms, 100, 1, 0, no_cut);
  REQUIRE(layout);
  const auto code = layout->encode();
  auto back = vocabulary_layout::decode(code);
  REQUIRE(back);
  CHECK(back->encode() == code);
  CHECK(back->id(1, 5, 0) == layout->id(1, 5, 0));
  CHECK(back->counts() == std::vector<uint64_t>{9, 5, 4});
  // A damaged header (partitions, size, occurrences, classes), count, first
  // id or last start, and a truncated code, are refused. (A start moved
  // within its class makes another layout that adds up.)
  for (size_t i : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{5}, code.size() - 1}) {
    auto damaged = code;
    damaged[i] += 1;
    INFO("number " << i);
    CHECK_FALSE(vocabulary_layout::decode(damaged));
  }
  CHECK_FALSE(vocabulary_layout::decode(std::vector<uint64_t>(code.begin(), code.end() - 1)));
  CHECK_FALSE(vocabulary_layout::decode({}));
}

TEST_CASE("write_vocabulary_files: a partition whose words disagree with the layout leaves no file",
          "[vocabulary_layout]") {
  auto no_cut = [](uint32_t, uint64_t, uint64_t) -> uint64_t { return 0; }; // -max-vocab cuts nothing here
  temp_dir dir;
  auto layout = vocabulary_layout::decide({count_histogram{{3, 2}}}, 6, 1, 0, no_cut);
  REQUIRE(layout);
  const std::string path = dir.write("vocab.txt", "what was there\n");
  int calls = 0;
  auto short_page = [&](uint32_t, count_table) -> expected<count_table> {
    count_table t;
    if (calls++ == 0)
      t.add("only", 3, 0);
    return t;
  };
  auto s = write_vocabulary_files(*layout, short_page, 0, path, "");
  REQUIRE_FALSE(s);
  CHECK_THAT(s.error(), Catch::Contains("partition 0's words of count 3 disagree"));
  CHECK(read_file(path) == "what was there\n");
}
