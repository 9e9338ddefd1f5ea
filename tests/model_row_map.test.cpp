// --init's row map: a saved model's rows turned into job ids through real
// vocabulary partitions (the count worker's rowmap), and a shard's store
// filled by it byte for byte as by the loaded vocabulary; a damaged,
// truncated or mismatched map refused in one line.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gridvec/roles/vocabulary.hpp>
#include "actors/partition_join.hpp"
#include "src/corpus/bounded_counter.hpp"
#include "src/corpus/model_row_map.hpp"
#include "src/corpus/word2vec_vocab.hpp"
#include "src/formats/checkpoint.hpp"
#include "src/formats/model_dir.hpp"
#include "src/formats/vectors_file.hpp"
#include "src/model/shard_store.hpp"
#include "src/util/rng.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using Catch::Matchers::Contains;

namespace init_rows_test {

constexpr auto wait = std::chrono::seconds(60);
constexpr uint32_t dim = 10;

// A model of word2vec.c's kind: its first row "</s>" (vocab.txt has the
// "</s> LINES" line before it), words the new corpus has too, words only
// the model has (count 5: kept), rare words of it (count 1: dropped at
// -min-count 3) and a word of count 0 (no count, still a row).
std::vector<std::string> model_words() {
  std::vector<std::string> words{"</s>"};
  for (int i = 0; i < 300; i += 2)
    words.push_back("w" + std::to_string(i));
  for (int i = 0; i < 40; ++i)
    words.push_back("model-only-" + std::to_string(i));
  for (int i = 0; i < 30; ++i)
    words.push_back("rare-" + std::to_string(i));
  words.push_back("zero-count");
  return words;
}

std::string write_model(const gridvec::test::temp_dir& dir) {
  const std::string model = dir.file("model");
  std::filesystem::create_directories(model);
  const auto words = model_words();
  std::vector<uint64_t> counts;
  embedding_table input, output;
  input.dim = output.dim = dim;
  rng r(11);
  for (const auto& w : words) {
    counts.push_back(w.starts_with("rare-") ? 1 : w == "zero-count" ? 0 : 5);
    input.words.push_back(w);
    output.words.push_back(w);
    for (uint32_t j = 0; j < dim; ++j) {
      input.data.push_back(static_cast<float>(r.below(1u << 20)) / (1u << 20) - 0.5f);
      output.data.push_back(static_cast<float>(r.below(1u << 20)) / (1u << 20) - 0.5f);
    }
  }
  REQUIRE(write_vectors(model_files::input(model), input, true));
  REQUIRE(write_vectors(model_files::output(model), output, true));
  REQUIRE(save_word2vec_vocab(words, counts, 17, model_files::vocab(model)));
  REQUIRE(write_model_manifest(model, model_manifest{dim, words.size(), {}}));
  return model;
}

// The new corpus: w0 .. w399 (the model has the even ones below 300),
// "zero-count" often enough to be kept, and a literal "</s>".
std::string write_corpus(const gridvec::test::temp_dir& dir) {
  rng r(3);
  std::ofstream out(dir.file("corpus.txt"));
  for (int line = 0; line < 400; ++line) {
    for (int k = 0; k < 10; ++k)
      out << 'w' << r.below(400) << ' ';
    if (line % 50 == 0)
      out << "zero-count </s> ";
    out << '\n';
  }
  return dir.file("corpus.txt");
}

// A job with --init: the corpus and the model's vocab.txt counted into
// `partitions` real partitions, its vocabulary built (min-count 3). The
// partitions stay, for the row map.
struct job {
  std::vector<vocabulary_partition_actor> parts;
  std::string vocab_path;
  vocabulary_ptr loaded;
  uint32_t vocab_crc = 0;
};

job build_job(caf::actor_system& sys, caf::scoped_actor& self, const gridvec::test::temp_dir& dir,
              const std::string& corpus, const std::string& model, uint32_t partitions) {
  job out;
  for (uint32_t p = 0; p < partitions; ++p)
    out.parts.push_back(spawn_vocabulary_partition(sys, dir.path(), bounded_counter::min_budget));
  auto worker = spawn_count_worker(sys);
  uint64_t tokens = 0, lines = 0;
  self
    ->request(worker, wait, count_atom::value, corpus, uint64_t{0}, std::filesystem::file_size(corpus), uint8_t{0},
              out.parts)
    .receive(
      [&](const count_table& t) {
        tokens += t.total;
        lines += t.lines;
      },
      [&](caf::error& e) { FAIL(error_text(e)); });
  self->request(worker, wait, load_atom::value, model_files::vocab(model), out.parts)
    .receive([&](const count_table& t, uint64_t) { lines += t.lines; }, [&](caf::error& e) { FAIL(error_text(e)); });
  self->send_exit(worker, caf::exit_reason::user_shutdown);
  vocabulary_build what;
  what.partitions = out.parts;
  what.min_count = 3;
  what.path = dir.file("vocabulary-" + std::to_string(partitions) + ".txt");
  what.corpus_tokens = tokens;
  what.lines = lines;
  auto builder = spawn_vocabulary_builder(sys);
  self->request(builder, wait, build_atom::value, what)
    .receive([&](const vocabulary_info&) {}, [&](caf::error& e) { FAIL(error_text(e)); });
  self->send_exit(builder, caf::exit_reason::user_shutdown);
  out.vocab_path = what.path;
  auto loaded = load_shared_vocabulary(out.vocab_path);
  REQUIRE(loaded);
  out.loaded = *loaded;
  auto crc = file_crc32(out.vocab_path);
  REQUIRE(crc);
  out.vocab_crc = *crc;
  return out;
}

// The row map as the coordinator has it made: a count worker's rowmap.
void map_rows(caf::actor_system& sys, caf::scoped_actor& self, const job& j, const std::string& model,
              const std::string& path) {
  auto worker = spawn_count_worker(sys);
  self
    ->request(worker, wait, row_map_atom::value, model_files::vocab(model), path, uint64_t{j.loaded->size()},
              uint64_t{j.vocab_crc}, j.parts)
    .receive(
      [&](uint64_t rows, uint64_t found) {
        CHECK(rows == model_words().size());
        CHECK(found > 0);
        CHECK(found < rows);
      },
      [&](caf::error& e) { FAIL(error_text(e)); });
  self->send_exit(worker, caf::exit_reason::user_shutdown);
}

std::string bytes_of(const float* data, size_t floats) {
  return std::string(reinterpret_cast<const char*>(data), floats * sizeof(float));
}

// Every shard of `shards` filled both ways: by word from the loaded
// vocabulary, and by the row map; the same bytes, input and output.
void check_same_rows(const job& j, const std::string& model, const std::string& row_map, uint32_t shards) {
  const auto vocab = static_cast<uint32_t>(j.loaded->size());
  for (uint32_t s = 0; s < shards; ++s) {
    INFO("shard " << s << " of " << shards);
    shard_store by_word(s, shards, dim, vocab, 5, gridvec::test::zipf_noise(vocab));
    shard_store by_row(s, shards, dim, vocab, 5, gridvec::test::zipf_noise(vocab));
    const auto slice = by_word.slice();
    auto a = load_model_columns(model_files::input(model), *j.loaded, slice.first, slice.width, by_word.input_data());
    auto b = load_model_columns(model_files::output(model), *j.loaded, slice.first, slice.width, by_word.output_data());
    REQUIRE(a);
    REQUIRE(b);
    auto c = load_model_columns_by_row_map(model_files::input(model), row_map, vocab, j.vocab_crc, slice.first,
                                           slice.width, by_row.input_data());
    REQUIRE(c);
    auto d = load_model_columns_by_row_map(model_files::output(model), row_map, vocab, j.vocab_crc, slice.first,
                                           slice.width, by_row.output_data());
    REQUIRE(d);
    CHECK(*a == *c);
    CHECK(*b == *d);
    const size_t floats = size_t{vocab} * slice.width;
    CHECK(bytes_of(by_word.input_data(), floats) == bytes_of(by_row.input_data(), floats));
    CHECK(bytes_of(by_word.output_data(), floats) == bytes_of(by_row.output_data(), floats));
  }
}

bool one_line(const std::string& error) { return !error.empty() && error.find('\n') == std::string::npos; }

// What each case starts from: the saved model, the new corpus and an
// actor system for the partitions.
struct row_map_case {
  gridvec::test::temp_dir dir;
  const std::string model = write_model(dir);
  const std::string corpus = write_corpus(dir);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
};

} // namespace init_rows_test

TEST_CASE_METHOD(init_rows_test::row_map_case,
                 "the row map: a model's rows placed by it are the loaded vocabulary's, byte for byte",
                 "[model_row_map][actors]") {
  using namespace init_rows_test;
  for (uint32_t partitions : {1u, 3u}) {
    INFO(partitions << " partitions");
    auto j = build_job(sys, self, dir, corpus, model, partitions);
    // The model's rare words are out, its own and its zero-count word in.
    CHECK(j.loaded->id_of("model-only-7") != vocabulary::npos);
    CHECK(j.loaded->id_of("rare-3") == vocabulary::npos);
    CHECK(j.loaded->id_of("zero-count") != vocabulary::npos);
    const auto row_map = dir.file("rows-" + std::to_string(partitions) + ".map");
    map_rows(sys, self, j, model, row_map);
    for (uint32_t shards : {1u, 3u})
      check_same_rows(j, model, row_map, shards);
    // Chunks of 7 words and 40 bytes: the same file as one chunk.
    const auto small = dir.file("rows-small.map");
    auto made = row_map_through_partitions(sys, j.parts, model_files::vocab(model), small, j.loaded->size(),
                                           j.vocab_crc, join_limits{7, 40, 1});
    REQUIRE(made);
    CHECK(gridvec::test::read_file(small) == gridvec::test::read_file(row_map));
    for (auto& p : j.parts)
      self->send_exit(p, caf::exit_reason::user_shutdown);
  }
}

TEST_CASE_METHOD(init_rows_test::row_map_case,
                 "the row map: a damaged, truncated or mismatched one is refused in one line",
                 "[model_row_map][actors]") {
  using namespace init_rows_test;
  auto j = build_job(sys, self, dir, corpus, model, 2);
  const auto good = dir.file("rows.map");
  map_rows(sys, self, j, model, good);
  const std::string bytes = gridvec::test::read_file(good);
  const auto vocab = static_cast<uint32_t>(j.loaded->size());
  const auto error_of = [&](const std::string& map, uint64_t size, uint64_t crc) {
    shard_store store(0, 1, dim, vocab, 5, gridvec::test::zipf_noise(vocab));
    auto n = load_model_columns_by_row_map(model_files::input(model), map, size, crc, 0, dim, store.input_data());
    REQUIRE_FALSE(n);
    CHECK(one_line(n.error()));
    return n.error();
  };
  const auto damaged = [&](const std::string& name, std::string changed) {
    return error_of(dir.write(name, changed), vocab, j.vocab_crc);
  };
  CHECK_THAT(damaged("cut.map", bytes.substr(0, bytes.size() - 4)), Contains("truncated"));
  CHECK_THAT(damaged("header-only.map", bytes.substr(0, 30)), Contains("not a gridvec row map"));
  CHECK_THAT(damaged("empty.map", ""), Contains("not a gridvec row map"));
  std::string magic = bytes;
  magic[3] = 'X';
  CHECK_THAT(damaged("magic.map", magic), Contains("not a gridvec row map"));
  // The last row's id set to a word past the vocabulary.
  std::string past = bytes;
  const uint32_t beyond = vocab + 5;
  std::memcpy(past.data() + past.size() - 4, &beyond, 4);
  CHECK_THAT(damaged("past.map", past), Contains("names id " + std::to_string(beyond)));
  // An id swapped for another in the vocabulary: only the crc tells.
  std::string swapped = bytes;
  uint32_t first_id = 0;
  std::memcpy(&first_id, swapped.data() + swapped.size() - 4 * model_words().size(), 4);
  first_id = first_id == 0 ? 1 : 0;
  std::memcpy(swapped.data() + swapped.size() - 4 * model_words().size(), &first_id, 4);
  CHECK_THAT(damaged("swapped.map", swapped), Contains("ids do not match its crc"));
  // Made for another job: another vocabulary's size or file.
  CHECK_THAT(error_of(good, vocab + 1, j.vocab_crc), Contains("made for a vocabulary of " + std::to_string(vocab)));
  CHECK_THAT(error_of(good, vocab, j.vocab_crc ^ 1), Contains("made for another vocabulary file"));
  // Made from another model: other rows, or other words in as many rows.
  {
    gridvec::test::temp_dir other;
    embedding_table t;
    t.dim = dim;
    t.words = {"a", "b"};
    t.data.assign(2 * dim, 0.5f);
    REQUIRE(write_vectors(other.file("input.bin"), t, true));
    shard_store store(0, 1, dim, vocab, 5, gridvec::test::zipf_noise(vocab));
    auto n =
      load_model_columns_by_row_map(other.file("input.bin"), good, vocab, j.vocab_crc, 0, dim, store.input_data());
    REQUIRE_FALSE(n);
    CHECK(one_line(n.error()));
    CHECK_THAT(n.error(), Contains("made from another model"));
    auto same_rows = read_vectors(model_files::input(model));
    REQUIRE(same_rows);
    same_rows->words[5] += "x";
    REQUIRE(write_vectors(other.file("input.bin"), *same_rows, true));
    n = load_model_columns_by_row_map(other.file("input.bin"), good, vocab, j.vocab_crc, 0, dim, store.input_data());
    REQUIRE_FALSE(n);
    CHECK(one_line(n.error()));
    CHECK_THAT(n.error(), Contains("made from other words"));
  }
  // A model whose vocab.txt lists a word twice (its counts merged into one
  // word, so only two rows of one id show it): no row map.
  {
    const std::string listed = gridvec::test::read_file(model_files::vocab(model));
    const auto twice = dir.write("twice-vocab.txt", listed + "model-only-7 5\n");
    auto made = row_map_through_partitions(sys, j.parts, twice, dir.file("twice.map"), vocab, j.vocab_crc);
    REQUIRE_FALSE(made);
    CHECK(one_line(made.error()));
    CHECK_THAT(made.error(), Contains("lists a word twice (row " + std::to_string(model_words().size() + 1)));
    CHECK_FALSE(std::filesystem::exists(dir.file("twice.map")));
  }
  for (auto& p : j.parts)
    self->send_exit(p, caf::exit_reason::user_shutdown);
}
