#include "src/formats/model_dir.hpp"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/model_row_map.hpp"
#include "src/corpus/text_corpus.hpp" // max_token_bytes
#include "src/formats/vectors_file.hpp"
#include "src/formats/vectors_reader.hpp"
#include "src/util/atomic_file.hpp"
#include "src/access/guarded_open.hpp"
#include "src/access/path_policy.hpp"

namespace gridvec {

namespace fs = std::filesystem;

std::string partial_model_dir(const std::string& dir) { return dir + ".partial-" + std::to_string(::getpid()); }

expected<std::string> begin_model_dir(const std::string& dir) {
  const std::string partial = partial_model_dir(dir);
  if (auto s = access::check_write(dir, "the model directory (--save-model)"); !s)
    return failure{s.error()};
  std::error_code ec;
  fs::remove_all(partial, ec);
  if (auto s = access::make_directories(partial, "the model directory (--save-model)"); !s)
    return failure{s.error()};
  return partial;
}

status write_model_manifest(const std::string& partial, const model_manifest& m) {
  auto file = atomic_file::create(model_files::manifest(partial));
  if (!file)
    return failure{file.error()};
  std::fprintf(file->stream(), "gridvec-model 1\ndim %u\nwords %llu\noptions", m.dim,
               static_cast<unsigned long long>(m.words));
  for (const auto& o : m.options)
    std::fprintf(file->stream(), " %s", o.c_str());
  std::fputc('\n', file->stream());
  return file->commit();
}

status check_model_target(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    return failure{"--save-model " + dir + " is a file, not a model directory"};
  if (fs::is_directory(dir, ec) && !fs::is_empty(dir, ec) && !fs::exists(model_files::manifest(dir), ec))
    return failure{"--save-model " + dir + " holds something other than a gridvec model; not replacing it"};
  return {};
}

status commit_model_dir(const std::string& partial, const std::string& dir) {
  if (auto s = access::check_write(dir, "the model directory (--save-model)"); !s)
    return s;
  if (auto s = check_model_target(dir); !s)
    return s;
  return replace_directory(partial, dir, "model");
}

void abandon_model_dir(const std::string& partial) {
  std::error_code ec;
  fs::remove_all(partial, ec);
}

expected<model_manifest> read_model_manifest(const std::string& dir) {
  // Outside the allowed directories: the policy's line, whether or not a
  // model is there.
  if (auto s = access::process_policy()->may_read(dir, "the model"); !s)
    return failure{s.error()};
  auto opened = access::istream_read(model_files::manifest(dir), "the model's MANIFEST");
  if (!opened)
    return failure{dir + " is not a gridvec model (no " + model_files::manifest(dir) + "; --save-model writes one)"};
  std::istream& in = **opened;
  std::string magic, key;
  int version = 0;
  model_manifest m;
  if (!(in >> magic >> version) || magic != "gridvec-model" || version != 1 || !(in >> key >> m.dim) || key != "dim" ||
      !(in >> key >> m.words) || key != "words" || m.dim == 0)
    return failure{model_files::manifest(dir) + " is damaged (not a gridvec-model 1 header)"};
  std::string line;
  std::getline(in, line);
  if (std::getline(in, line)) {
    std::istringstream words(line);
    words >> key;
    for (std::string o; words >> o;)
      m.options.push_back(o);
  }
  return m;
}

expected<uint64_t> load_model_columns(const std::string& vectors, const vocabulary& vocab, uint32_t first,
                                      uint32_t width, float* rows) {
  auto table = read_vectors(vectors);
  if (!table)
    return failure{table.error()};
  if (first + width > table->dim)
    return failure{vectors + " has vectors of " + std::to_string(table->dim) + " columns; this job's have " +
                   std::to_string(first + width) + " or more (-size must match the model's)"};
  uint64_t found = 0;
  for (size_t i = 0; i < table->words.size(); ++i) {
    const uint32_t id = vocab.id_of(table->words[i]);
    if (id == vocabulary::npos)
      continue;
    std::memcpy(rows + size_t{id} * width, table->row(i) + first, width * sizeof(float));
    ++found;
  }
  return found;
}

expected<uint64_t> load_model_columns_by_row_map(const std::string& vectors, const std::string& row_map,
                                                 uint64_t vocab_size, uint64_t vocab_crc, uint32_t first,
                                                 uint32_t width, float* rows) {
  auto map = model_row_map_reader::open_guarded(row_map, vocab_size, vocab_crc);
  if (!map)
    return failure{map.error()};
  // The model's words are no longer than a corpus word: a longer one is a
  // damaged file, not a string to grow without end.
  auto in = vectors_reader::open_guarded(vectors, "the model (--init)", max_token_bytes);
  if (!in)
    return failure{in.error()};
  if (first + width > in->dim())
    return failure{vectors + " has vectors of " + std::to_string(in->dim()) + " columns; this job's have " +
                   std::to_string(first + width) + " or more (-size must match the model's)"};
  if (in->count() != map->header().rows)
    return failure{"the --init row map " + row_map + " has " + std::to_string(map->header().rows) + " rows, " +
                   vectors + " " + std::to_string(in->count()) + " (made from another model)"};
  std::vector<float> row(in->dim()); // at most 2^20 floats: vectors_reader::open bounds the dimension
  std::string word;
  uint32_t words_crc = 0;
  uint64_t found = 0;
  for (uint64_t r = 0; r < in->count(); ++r) {
    if (auto s = in->next(word, row.data()); !s)
      return failure{s.error()};
    words_crc = row_words_crc(word, words_crc);
    auto id = map->next();
    if (!id)
      return failure{id.error()};
    if (*id == vocabulary::npos)
      continue;
    std::memcpy(rows + size_t{*id} * width, row.data() + first, width * sizeof(float));
    ++found;
  }
  if (auto s = map->finish(); !s)
    return failure{s.error()};
  if (words_crc != static_cast<uint32_t>(map->header().words_crc))
    return failure{"the --init row map " + row_map + " was made from other words than " + vectors +
                   " (its vocab.txt and its vectors disagree, or the map is of another model)"};
  return found;
}

} // namespace gridvec
