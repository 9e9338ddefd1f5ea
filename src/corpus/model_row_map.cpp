#include "src/corpus/model_row_map.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <istream>

#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/partitioned_count.hpp"
#include "src/corpus/text_corpus.hpp" // max_token_bytes
#include "src/formats/checkpoint.hpp" // crc32
#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

constexpr char row_map_magic[16] = {'g', 'r', 'i', 'd', 'v', 'e', 'c', '-', 'r', 'o', 'w', 'm', 'a', 'p', ' ', '1'};
constexpr size_t row_map_fields = 5;
constexpr size_t row_map_header_bytes = sizeof(row_map_magic) + row_map_fields * sizeof(uint64_t);
// Ids read at a time by a shard: 256 KiB, whatever the model's size.
constexpr size_t row_map_read_block = size_t{1} << 16;

void write_row_map_header(std::FILE* f, const model_row_map_header& h, bool& ok) {
  const uint64_t fields[row_map_fields] = {h.rows, h.vocab_size, h.vocab_crc, h.words_crc, h.ids_crc};
  ok = ok && std::fwrite(row_map_magic, 1, sizeof(row_map_magic), f) == sizeof(row_map_magic) &&
       std::fwrite(fields, sizeof(uint64_t), row_map_fields, f) == row_map_fields;
}

// One chunk of the model's rows: each row's word asked of the partition
// that owns it, the ids written in row order once the answers are in.
class row_chunk {
public:
  row_chunk(uint32_t partitions, const join_lookup& lookup, std::FILE* out, uint64_t vocab_size, join_limits limits)
    : lookup_(lookup), out_(out), vocab_size_(vocab_size), limits_(limits), asks_(partitions), taken_(vocab_size) {}

  status add(std::string_view word) {
    if (rows_ + 1 > limits_.distinct_words || bytes_ + word.size() > limits_.word_bytes)
      if (auto s = flush(); !s)
        return s;
    const uint32_t p = word_partition_of(word, static_cast<uint32_t>(asks_.size()));
    part_of_.push_back(p);
    place_of_.push_back(static_cast<uint32_t>(asks_[p].size()));
    asks_[p].words.append(word);
    asks_[p].lengths.push_back(static_cast<uint32_t>(word.size()));
    bytes_ += word.size();
    ++rows_;
    return {};
  }

  status flush() {
    if (rows_ == 0)
      return {};
    std::vector<std::vector<uint32_t>> ids(asks_.size());
    std::vector<size_t> asked(asks_.size());
    for (size_t p = 0; p < asks_.size(); ++p)
      asked[p] = asks_[p].size();
    if (auto s = lookup_(asks_, ids); !s)
      return s;
    if (ids.size() != asks_.size())
      return failure{"the word partitions answered " + std::to_string(ids.size()) + " lookups of " +
                     std::to_string(asks_.size())};
    for (size_t p = 0; p < asks_.size(); ++p)
      if (ids[p].size() != asked[p])
        return failure{"word partition " + std::to_string(p) + " answered " + std::to_string(ids[p].size()) +
                       " ids for " + std::to_string(asked[p]) + " words"};
    out_ids_.resize(rows_);
    for (size_t r = 0; r < rows_; ++r) {
      const uint32_t id = ids[part_of_[r]][place_of_[r]];
      if (id != vocabulary::npos && id >= vocab_size_)
        return failure{"word partition " + std::to_string(part_of_[r]) + " answered id " + std::to_string(id) +
                       ", outside a vocabulary of " + std::to_string(vocab_size_) + " words"};
      // Two rows of one word: the model's vocabulary lists it twice (the
      // counts merged them, so only the ids show it).
      if (id != vocabulary::npos && taken_[id])
        return failure{"the model's vocabulary lists a word twice (row " + std::to_string(row_base_ + r + 1) +
                       " is the word of an earlier row)"};
      if (id != vocabulary::npos)
        taken_[id] = true;
      out_ids_[r] = id;
      found_ += id != vocabulary::npos ? 1 : 0;
    }
    row_base_ += rows_;
    if (std::fwrite(out_ids_.data(), sizeof(uint32_t), rows_, out_) != rows_)
      return failure{"cannot write the row map"};
    ids_crc_ = crc32(out_ids_.data(), rows_ * sizeof(uint32_t), ids_crc_);
    part_of_.clear();
    place_of_.clear();
    for (auto& a : asks_) { // possibly moved from
      a.words.clear();
      a.lengths.clear();
    }
    rows_ = 0;
    bytes_ = 0;
    return {};
  }

  uint64_t found() const { return found_; }
  uint32_t ids_crc() const { return ids_crc_; }

private:
  const join_lookup& lookup_;
  std::FILE* out_;
  uint64_t vocab_size_;
  join_limits limits_;
  std::vector<word_batch> asks_;   // by partition
  std::vector<uint32_t> part_of_;  // by row of the chunk: the partition asked
  std::vector<uint32_t> place_of_; // by row of the chunk: its place in that partition's batch
  std::vector<uint32_t> out_ids_;
  std::vector<bool> taken_; // by job id: a row had it (a bit a word)
  uint64_t row_base_ = 0;   // rows of the chunks before
  uint64_t rows_ = 0;
  uint64_t bytes_ = 0;
  uint64_t found_ = 0;
  uint32_t ids_crc_ = 0;
};

} // namespace

uint32_t row_words_crc(std::string_view word, uint32_t previous) {
  return crc32("\n", 1, crc32(word.data(), word.size(), previous));
}

expected<model_row_map_made> write_model_row_map(const std::string& model_vocab, const std::string& path,
                                                 uint32_t partitions, const join_lookup& lookup, uint64_t vocab_size,
                                                 uint64_t vocab_crc, join_limits limits) {
  if (partitions == 0)
    return failure{"mapping a model's rows needs at least one word partition"};
  limits.distinct_words = std::max<uint64_t>(1, std::min(limits.distinct_words, max_lookup_words));
  limits.word_bytes = std::max<uint64_t>(max_token_bytes, std::min(limits.word_bytes, max_lookup_bytes));
  auto opened = access::istream_read(model_vocab, "the model's vocabulary (--init)");
  if (!opened)
    return failure{opened.error()};
  auto file = atomic_file::create(path, "the --init row map");
  if (!file)
    return failure{file.error()};
  std::FILE* f = file->stream();
  model_row_map_header header;
  header.vocab_size = vocab_size;
  header.vocab_crc = vocab_crc;
  bool ok = true;
  write_row_map_header(f, header, ok); // again at the end, with the rows and crcs
  row_chunk chunk{partitions, lookup, f, vocab_size, limits};
  uint32_t words_crc = 0;
  std::istream& in = **opened;
  std::string line;
  bool first = true;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    // As read_word2vec_vocab reads the file for the counts: a "\r\n" line
    // end, empty lines skipped, "WORD COUNT".
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty())
      continue;
    const auto where = [&] { return model_vocab + ":" + std::to_string(number) + ": "; };
    const auto space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size())
      return failure{where() + "expected 'WORD COUNT' (a word2vec vocabulary, as --save-model writes)"};
    const std::string_view word{line.data(), space};
    if (word.size() > max_token_bytes)
      return failure{where() + "a word longer than " + std::to_string(max_token_bytes) + " bytes"};
    const bool line_ends = first && word == "</s>";
    first = false;
    if (line_ends)
      continue;
    if (auto s = chunk.add(word); !s)
      return failure{s.error()};
    words_crc = row_words_crc(word, words_crc);
    ++header.rows;
  }
  if (in.bad())
    return failure{"cannot read " + model_vocab + " (--init)"};
  if (auto s = chunk.flush(); !s)
    return failure{s.error()};
  header.words_crc = words_crc;
  header.ids_crc = chunk.ids_crc();
  ok = ok && std::fseek(f, 0, SEEK_SET) == 0;
  write_row_map_header(f, header, ok);
  if (!ok)
    return failure{"cannot write the row map " + path};
  if (auto s = file->commit(); !s)
    return failure{s.error()};
  return model_row_map_made{header.rows, chunk.found()};
}

expected<model_row_map_reader> model_row_map_reader::open_guarded(const std::string& path, uint64_t vocab_size,
                                                                  uint64_t vocab_crc) {
  auto f = access::fopen_read(path, "the --init row map");
  if (!f)
    return failure{f.error()};
  const auto damaged = [&](const std::string& why) {
    return failure{"the --init row map " + path + " is damaged or of another job (" + why + ")"};
  };
  struct stat st {};
  if (::fstat(::fileno(f->get()), &st) != 0)
    return failure{"cannot read the --init row map " + path};
  char seen[sizeof(row_map_magic)];
  uint64_t fields[row_map_fields] = {};
  if (std::fread(seen, 1, sizeof(seen), f->get()) != sizeof(seen) ||
      std::memcmp(seen, row_map_magic, sizeof(row_map_magic)) != 0 ||
      std::fread(fields, sizeof(uint64_t), row_map_fields, f->get()) != row_map_fields)
    return damaged("not a gridvec row map");
  const model_row_map_header h{fields[0], fields[1], fields[2], fields[3], fields[4]};
  // The rows are checked against the file's length before anything is
  // read by them (a row count past the length would wrap the product).
  const uint64_t bytes = static_cast<uint64_t>(st.st_size);
  if (bytes < row_map_header_bytes || h.rows != (bytes - row_map_header_bytes) / sizeof(uint32_t) ||
      (bytes - row_map_header_bytes) % sizeof(uint32_t) != 0)
    return damaged("a header of " + std::to_string(h.rows) + " rows in a file of " + std::to_string(bytes) +
                   " bytes: truncated");
  if (h.vocab_size != vocab_size)
    return damaged("made for a vocabulary of " + std::to_string(h.vocab_size) + " words; this job's has " +
                   std::to_string(vocab_size));
  if (vocab_crc != 0 && h.vocab_crc != vocab_crc)
    return damaged("made for another vocabulary file");
  return model_row_map_reader{std::move(*f), path, h};
}

expected<uint32_t> model_row_map_reader::next() {
  if (next_in_block_ == block_.size()) {
    const uint64_t left = header_.rows - read_;
    if (left == 0)
      return failure{"the --init row map " + path_ + " has no row " + std::to_string(read_ + 1)};
    block_.resize(static_cast<size_t>(std::min<uint64_t>(left, row_map_read_block)));
    if (std::fread(block_.data(), sizeof(uint32_t), block_.size(), file_.get()) != block_.size())
      return failure{"the --init row map " + path_ + " is damaged or of another job (cut short at row " +
                     std::to_string(read_ + 1) + ")"};
    ids_crc_ = crc32(block_.data(), block_.size() * sizeof(uint32_t), ids_crc_);
    next_in_block_ = 0;
  }
  const uint32_t id = block_[next_in_block_++];
  ++read_;
  if (id != vocabulary::npos && id >= header_.vocab_size)
    return failure{"the --init row map " + path_ + " is damaged or of another job (row " + std::to_string(read_) +
                   " names id " + std::to_string(id) + " of a vocabulary of " + std::to_string(header_.vocab_size) +
                   " words)"};
  return id;
}

status model_row_map_reader::finish() const {
  if (read_ != header_.rows)
    return failure{"the --init row map " + path_ + ": " + std::to_string(read_) + " of its " +
                   std::to_string(header_.rows) + " rows read"};
  if (ids_crc_ != static_cast<uint32_t>(header_.ids_crc))
    return failure{"the --init row map " + path_ + " is damaged or of another job (its ids do not match its crc)"};
  return {};
}

} // namespace gridvec
