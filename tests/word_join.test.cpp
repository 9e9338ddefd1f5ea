// The join: a learner turns its corpus part into ids by asking the
// vocabulary partitions for each chunk's distinct words, and writes the
// same id file as a scan against the whole loaded vocabulary. Real
// partitions, count workers, builder and learner in a real actor system;
// real files.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <fstream>
#include <string>
#include <vector>

#include <gridvec/roles/learner.hpp>
#include <gridvec/roles/vocabulary.hpp>
#include "actors/learner/learner_state.hpp"
#include "actors/partition_join.hpp"
#include "src/corpus/bounded_counter.hpp"
#include "src/corpus/partitioned_count.hpp"
#include "src/corpus/vocabulary_counts.hpp"
#include "src/corpus/word_join.hpp"
#include "src/formats/checkpoint.hpp"
#include "src/util/rng.hpp"
#include "tests/dev_corpus.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::read_file;
using gridvec::test::temp_dir;

namespace {

constexpr auto wait = std::chrono::seconds(60);

// Words that look like query or ad ids (16-24 bytes), Zipf-like, in lines
// of 12; plus one word seen once, which min-count 2 leaves out.
std::string write_id_corpus(const temp_dir& dir) {
  rng r(7);
  std::vector<std::string> ids;
  for (int i = 0; i < 4000; ++i) {
    std::string w = "q";
    const uint64_t len = 15 + r.below(9);
    while (w.size() < len)
      w += static_cast<char>('a' + r.below(26));
    ids.push_back(w);
  }
  std::ofstream out(dir.file("ids-corpus.txt"));
  for (int line = 0; line < 6000; ++line) {
    for (int k = 0; k < 12; ++k) {
      // The square of a uniform number: low indices far more often.
      const double u = static_cast<double>(r.below(1u << 20)) / (1u << 20);
      out << ids[static_cast<size_t>(u * u * static_cast<double>(ids.size()))] << ' ';
    }
    if (line == 3000)
      out << "only-once-and-never-in-the-vocabulary ";
    out << '\n';
  }
  return dir.file("ids-corpus.txt");
}

// A job's vocabulary over `partitions` real partition actors: the corpus
// counted in two ranges by count workers, the vocabulary decided and its
// file written by the builder. The partitions stay, numbered.
struct built_vocabulary {
  std::vector<vocabulary_partition_actor> parts;
  std::string path;
  vocabulary_ptr loaded;
};

built_vocabulary build(caf::actor_system& sys, caf::scoped_actor& self, const temp_dir& dir, const std::string& corpus,
                       uint32_t partitions, uint64_t min_count) {
  built_vocabulary out;
  for (uint32_t p = 0; p < partitions; ++p)
    out.parts.push_back(spawn_vocabulary_partition(sys, dir.path(), bounded_counter::min_budget));
  auto ranges = split_corpus(corpus, 2);
  REQUIRE(ranges);
  uint64_t tokens = 0, lines = 0;
  for (const auto& range : *ranges) {
    auto worker = spawn_count_worker(sys);
    self->request(worker, wait, count_atom::value, corpus, range.begin, range.end, uint8_t{0}, out.parts)
      .receive(
        [&](const count_table& t) {
          tokens += t.total;
          lines += t.lines;
        },
        [&](caf::error& e) { FAIL(error_text(e)); });
    self->send_exit(worker, caf::exit_reason::user_shutdown);
  }
  vocabulary_build what;
  what.partitions = out.parts;
  what.min_count = min_count;
  what.path = dir.file("vocabulary-" + std::to_string(partitions) + ".txt");
  what.corpus_tokens = tokens;
  what.lines = lines;
  auto builder = spawn_vocabulary_builder(sys);
  self->request(builder, wait, build_atom::value, what)
    .receive([&](const vocabulary_info&) {}, [&](caf::error& e) { FAIL(error_text(e)); });
  self->send_exit(builder, caf::exit_reason::user_shutdown);
  out.path = what.path;
  auto loaded = load_shared_vocabulary(out.path);
  REQUIRE(loaded);
  out.loaded = *loaded;
  return out;
}

uint64_t preprocess_by_learner(caf::scoped_actor& self, const learner_actor& learner, const std::string& corpus,
                               byte_range range, const std::string& ids,
                               const std::vector<vocabulary_partition_actor>& parts) {
  uint64_t words = 0;
  self->request(learner, wait, preprocess_atom::value, corpus, range.begin, range.end, ids, parts)
    .receive([&](uint64_t n) { words = n; }, [&](caf::error& e) { FAIL(error_text(e)); });
  return words;
}

std::string lookup_error(caf::scoped_actor& self, const vocabulary_partition_actor& part, const std::string& words,
                         const std::vector<uint32_t>& lengths) {
  std::string out = "(answered without an error)";
  self->request(part, wait, lookup_atom::value, words, lengths)
    .receive([&](const std::vector<uint32_t>&) {}, [&](caf::error& e) { out = error_text(e); });
  return out;
}

} // namespace

TEST_CASE("the join: a learner preprocessing through 1 and 3 partitions writes the loaded vocabulary's id files",
          "[word_join]") {
  temp_dir dir;
  // A quarter of the dev corpus: the files are read a dozen times over.
  const std::string dev = test::stage_dev_corpus(dir, 5000);
  const std::string ids_corpus = write_id_corpus(dir);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};

  for (const auto& [corpus, min_count] : {std::pair{dev, uint64_t{5}}, std::pair{ids_corpus, uint64_t{2}}})
    for (uint32_t partitions : {1u, 3u}) {
      INFO(corpus << " over " << partitions << " partitions, min-count " << min_count);
      auto v = build(sys, self, dir, corpus, partitions, min_count);
      REQUIRE(v.loaded->size() > 100);
      CHECK(v.loaded->id_of("only-once-and-never-in-the-vocabulary") == vocabulary::npos);
      // The reference: a scan against the whole vocabulary in memory.
      // (A structured binding is captured through an init-capture: clang
      // refuses to capture it by name.)
      auto by_vocabulary = [&, &corpus = corpus](byte_range range, const std::string& ids) {
        uint64_t words = 0;
        auto s = write_ids_from_vocabulary(*v.loaded, corpus, range, ids, invalid_utf8::fail, words);
        INFO((s ? std::string{} : s.error()));
        REQUIRE(s);
        return words;
      };
      learner_config lc;
      auto learner = spawn_learner(sys, lc, v.loaded, {}, coordinator_actor{});
      auto ranges = split_corpus(corpus, 3);
      REQUIRE(ranges);
      for (size_t r = 0; r < ranges->size(); ++r) {
        const auto loaded_ids = dir.file("loaded-" + std::to_string(r) + ".ids");
        const auto joined_ids = dir.file("joined-" + std::to_string(r) + ".ids");
        const uint64_t by_file = by_vocabulary((*ranges)[r], loaded_ids);
        const uint64_t by_join = preprocess_by_learner(self, learner, corpus, (*ranges)[r], joined_ids, v.parts);
        CHECK(by_file > 0);
        CHECK(by_join == by_file);
        CHECK(read_file(joined_ids) == read_file(loaded_ids));
        // Chunks of a few dozen distinct words: many lookups, the same file
        // (on the first range: a round trip per chunk makes it the slow part).
        if (r != 0)
          continue;
        const auto small_ids = dir.file("small-" + std::to_string(r) + ".ids");
        uint64_t small_words = 0;
        join_limits small;
        small.distinct_words = 37;
        small.tokens = 500;
        auto s = join_through_partitions(sys, v.parts, corpus, (*ranges)[r], invalid_utf8::fail, small_ids, small_words,
                                         v.loaded->size(), small);
        INFO((s ? std::string{} : s.error()));
        REQUIRE(s);
        CHECK(small_words == by_file);
        CHECK(read_file(small_ids) == read_file(loaded_ids));
      }
      // The whole corpus in one range, as one learner of one part.
      byte_range whole{0, ranges->back().end};
      by_vocabulary(whole, dir.file("whole-loaded.ids"));
      preprocess_by_learner(self, learner, corpus, whole, dir.file("whole-joined.ids"), v.parts);
      CHECK(read_file(dir.file("whole-joined.ids")) == read_file(dir.file("whole-loaded.ids")));
      // A learner as a node makes it, from the counts file alone: it never
      // loads the words, and without partitions it refuses in one line.
      auto counts = load_shared_counts(v.path);
      REQUIRE(counts);
      CHECK((*counts)->counts == v.loaded->counts());
      CHECK((*counts)->train_words == v.loaded->train_words());
      auto by_counts = spawn_learner(sys, lc, *counts, v.path, {}, coordinator_actor{});
      std::string refused;
      self
        ->request(by_counts, wait, preprocess_atom::value, corpus, whole.begin, whole.end,
                  dir.file("whole-refused.ids"), std::vector<vocabulary_partition_actor>{})
        .receive([](uint64_t) {}, [&](caf::error& e) { refused = error_text(e); });
      CHECK(refused == "turning a corpus part into ids needs the vocabulary partitions");
      // A part redone once the counting partitions are gone (--resume):
      // new partitions, as many as the nodes give now, read their words
      // back from the vocabulary file; the same ids.
      const uint32_t again = partitions == 1 ? 2 : 1;
      std::vector<vocabulary_partition_actor> reread;
      auto crc = file_crc32(v.path);
      REQUIRE(crc);
      for (uint32_t p = 0; p < again; ++p) {
        reread.push_back(spawn_vocabulary_partition(sys, dir.path(), bounded_counter::min_budget));
        self->request(reread.back(), wait, load_atom::value, v.path, p, again, uint64_t{v.loaded->size()}, *crc)
          .receive([&](uint64_t held) { CHECK(held > 0); }, [&](caf::error& e) { FAIL(error_text(e)); });
      }
      preprocess_by_learner(self, by_counts, corpus, whole, dir.file("whole-redone.ids"), reread);
      CHECK(read_file(dir.file("whole-redone.ids")) == read_file(dir.file("whole-loaded.ids")));
      self->send_exit(by_counts, caf::exit_reason::user_shutdown);
      self->send_exit(learner, caf::exit_reason::user_shutdown);
      for (auto& p : v.parts)
        self->send_exit(p, caf::exit_reason::user_shutdown);
      for (auto& p : reread)
        self->send_exit(p, caf::exit_reason::user_shutdown);
    }
}

TEST_CASE("the join: a partition reads its words back from the job's vocabulary file only", "[word_join]") {
  temp_dir dir;
  const std::string corpus = write_id_corpus(dir);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto v = build(sys, self, dir, corpus, 2, 2);
  auto crc = file_crc32(v.path);
  REQUIRE(crc);
  const uint64_t size = v.loaded->size();
  auto load_error = [&](const vocabulary_partition_actor& part, const std::string& path, uint32_t p, uint32_t of,
                        uint64_t words, uint32_t sum) {
    std::string out = "(answered without an error)";
    self->request(part, wait, load_atom::value, path, p, of, words, sum)
      .receive([](uint64_t) {}, [&](caf::error& e) { out = error_text(e); });
    return out;
  };
  auto fresh = [&] { return spawn_vocabulary_partition(sys, dir.path(), bounded_counter::min_budget); };
  std::vector<vocabulary_partition_actor> spawned;
  auto part = [&] { return spawned.emplace_back(fresh()); };
  // The partitions that counted: they hold their words already.
  CHECK(load_error(v.parts[0], v.path, 0, 2, size, *crc) ==
        "the vocabulary partition was asked to read its words back out of order");
  CHECK(load_error(part(), v.path, 0, 2, size, *crc + 1) ==
        "vocabulary partition 0: " + v.path + " is not the job's vocabulary (its checksum differs)");
  CHECK(load_error(part(), v.path, 1, 2, size + 1, *crc) == "vocabulary partition 1: " + v.path + " holds " +
                                                              std::to_string(size) + " words; the job has " +
                                                              std::to_string(size + 1));
  CHECK(load_error(part(), v.path, 2, 2, size, *crc) == "vocabulary partition 2: partition 2 of 2");
  CHECK(load_error(part(), dir.file("no-such-vocabulary.txt"), 0, 1, size, *crc).find("no-such-vocabulary.txt") !=
        std::string::npos);
  // Two partitions between them hold every word once, at its id.
  uint64_t held = 0;
  std::vector<vocabulary_partition_actor> both{part(), part()};
  for (uint32_t p = 0; p < 2; ++p)
    self->request(both[p], wait, load_atom::value, v.path, p, 2u, size, *crc)
      .receive([&](uint64_t n) { held += n; }, [&](caf::error& e) { FAIL(error_text(e)); });
  CHECK(held == size);
  for (uint32_t id : {0u, 1u, static_cast<uint32_t>(size / 2), static_cast<uint32_t>(size - 1)}) {
    const std::string w{v.loaded->word(id)};
    const auto owner = both[word_partition_of(w, 2)];
    self->request(owner, wait, lookup_atom::value, w, std::vector<uint32_t>{static_cast<uint32_t>(w.size())})
      .receive([&](const std::vector<uint32_t>& ids) { CHECK(ids == std::vector<uint32_t>{id}); },
               [&](caf::error& e) { FAIL(error_text(e)); });
  }
  for (auto& p : v.parts)
    self->send_exit(p, caf::exit_reason::user_shutdown);
  for (auto& p : spawned)
    self->send_exit(p, caf::exit_reason::user_shutdown);
}

TEST_CASE("the join: a partition checks a lookup before it answers", "[word_join]") {
  temp_dir dir;
  const std::string corpus = dir.write("c.txt", "the cat sat on the mat the end\n");
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto part = spawn_vocabulary_partition(sys, dir.path(), bounded_counter::min_budget);
  // Before its ids are assigned it has none to give.
  CHECK_THAT(lookup_error(self, part, "the", {3}), Catch::Contains("out of order"));
  auto worker = spawn_count_worker(sys);
  self
    ->request(worker, wait, count_atom::value, corpus, uint64_t{0}, uint64_t{31}, uint8_t{0},
              std::vector<vocabulary_partition_actor>{part})
    .receive([&](const count_table&) {}, [&](caf::error& e) { FAIL(error_text(e)); });
  vocabulary_build what;
  what.partitions = {part};
  what.min_count = 2;
  what.path = dir.file("vocabulary.txt");
  auto builder = spawn_vocabulary_builder(sys);
  self->request(builder, wait, build_atom::value, what)
    .receive([&](const vocabulary_info& info) { CHECK(info.size == 1); }, [&](caf::error& e) { FAIL(error_text(e)); });

  std::vector<uint32_t> ids;
  self->request(part, wait, lookup_atom::value, std::string{"catthedog"}, std::vector<uint32_t>{3, 3, 3})
    .receive([&](std::vector<uint32_t>& got) { ids = got; }, [&](caf::error& e) { FAIL(error_text(e)); });
  CHECK(ids == std::vector<uint32_t>{vocabulary::npos, 0, vocabulary::npos});
  // Lengths that do not add up, past the words' bytes or wrapping round.
  CHECK_THAT(lookup_error(self, part, "the", {4}), Catch::Contains("add up to 4 bytes, not its 3"));
  CHECK_THAT(lookup_error(self, part, "the", {0xFFFFFFFFu, 4}), Catch::Contains("not its 3"));
  // More words than a lookup may carry: refused before an answer is made.
  CHECK_THAT(lookup_error(self, part, "", std::vector<uint32_t>(max_lookup_words + 1, 0)),
             Catch::Contains("more than 262144"));
  CHECK_THAT(lookup_error(self, part, std::string(max_lookup_bytes + 1, 'x'), {}), Catch::Contains("bytes of words"));
  // A partition that answers the wrong number of ids fails the join with a line.
  uint64_t words = 0;
  join_lookup short_answer = [](std::vector<word_batch>& asks, std::vector<std::vector<uint32_t>>& out) {
    for (size_t p = 0; p < asks.size(); ++p)
      out[p].assign(asks[p].size() > 0 ? asks[p].size() - 1 : 0, 0);
    return status{};
  };
  auto s = join_ids(corpus, {0, 31}, invalid_utf8::fail, 1, short_answer, dir.file("x.ids"), words);
  REQUIRE_FALSE(s);
  CHECK_THAT(s.error(), Catch::Contains("answered 5 ids for 6 words"));
  join_lookup outside = [](std::vector<word_batch>& asks, std::vector<std::vector<uint32_t>>& out) {
    for (size_t p = 0; p < asks.size(); ++p)
      out[p].assign(asks[p].size(), 7);
    return status{};
  };
  s = join_ids(corpus, {0, 31}, invalid_utf8::fail, 1, outside, dir.file("y.ids"), words, 1);
  REQUIRE_FALSE(s);
  CHECK_THAT(s.error(), Catch::Contains("answered id 7, outside a vocabulary of 1 words"));
  for (auto a :
       {caf::actor_cast<caf::actor>(part), caf::actor_cast<caf::actor>(worker), caf::actor_cast<caf::actor>(builder)})
    self->send_exit(a, caf::exit_reason::user_shutdown);
}

TEST_CASE("the counts file: written, read back, and a damaged one refused in one line", "[word_join]") {
  temp_dir dir;
  vocabulary_counts c{{9, 5, 5, 1}, 20, 0xABCD};
  const auto path = dir.file("vocabulary.txt.counts");
  REQUIRE(write_vocabulary_counts(c, path));
  auto back = read_vocabulary_counts(path);
  REQUIRE(back);
  CHECK(back->counts == c.counts);
  CHECK(back->train_words == 20);
  CHECK(back->vocab_crc == 0xABCD);
  const std::string bytes = read_file(path);
  REQUIRE(bytes.size() == 16 + 3 * 8 + 4 * 8);
  // Written from runs of equal count, a block at a time: the same bytes.
  const auto from_runs = dir.file("runs.counts");
  REQUIRE(write_vocabulary_counts(count_histogram{{9, 1}, {5, 2}, {1, 1}}, 20, 0xABCD, from_runs));
  CHECK(read_file(from_runs) == bytes);
  std::vector<uint64_t> long_run(70000, 3);
  long_run.push_back(1);
  REQUIRE(write_vocabulary_counts(vocabulary_counts{long_run, 210001, 7}, dir.file("long.counts")));
  REQUIRE(write_vocabulary_counts(count_histogram{{3, 70000}, {1, 1}}, 210001, 7, from_runs));
  CHECK(read_file(from_runs) == read_file(dir.file("long.counts")));
  auto damaged = [&](std::string b) {
    auto r = read_vocabulary_counts(dir.write("bad.counts", b));
    REQUIRE_FALSE(r);
    return r.error();
  };
  CHECK_THAT(damaged(bytes.substr(0, bytes.size() - 3)), Catch::Contains("truncated or damaged"));
  CHECK_THAT(damaged("gridvec-vocabulary 1 4 20\n"), Catch::Contains("is not a gridvec counts file"));
  std::string huge = bytes;
  huge[16 + 7] = '\x7f'; // a size of about 2^62 words in a file of 72 bytes: refused before allocating
  CHECK_THAT(damaged(huge), Catch::Contains("truncated or damaged"));
  std::string zero = bytes;
  std::fill(zero.begin() + 40 + 24, zero.begin() + 40 + 32, '\0'); // the last count
  CHECK_THAT(damaged(zero), Catch::Contains("a word counted 0 times"));
  std::string sum = bytes;
  sum[24] = 21; // the train words
  CHECK_THAT(damaged(sum), Catch::Contains("do not add up"));
}
