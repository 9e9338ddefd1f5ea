#pragma once
// --init's row map: for each row of a saved model's input.bin and
// output.bin (docs/model.md), the job id of that row's word, made by the
// join (src/corpus/word_join.hpp) while the vocabulary partitions still
// hold the job's words. A shard then places the model's rows by number
// and never holds the vocabulary's strings, nor the model's.
//
// The rows are vocab.txt's word lines in order, after its first line when
// that is word2vec.c's "</s> LINES" (the writers put it before the words;
// input.bin has no row for it). A later "</s>" line is a row like any
// other (a vectors file of word2vec.c's own, whose first row is "</s>").
//
// The file, little-endian binary, written atomically:
//   "gridvec-rowmap 1"  16 bytes
//   rows                u64  the model's rows
//   vocabulary size     u64  the job's words: every id is below it
//   vocabulary crc      u64  the job's vocabulary file's crc32
//   words crc           u64  crc32 of the rows' words, each followed by '\n'
//   ids crc             u64  crc32 of the ids below
//   ids                 u32 per row, vocabulary::npos for a word the job
//                       does not keep
// A reader checks the header against the file's length and the job it
// was made for, and the words' crc against the model's own files as it
// reads them: a row map of another model or another vocabulary is
// refused in one line.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>
#include "src/access/guarded_open.hpp"
#include "src/corpus/word_join.hpp"

namespace gridvec {

struct model_row_map_header {
  uint64_t rows = 0;
  uint64_t vocab_size = 0;
  uint64_t vocab_crc = 0;
  uint64_t words_crc = 0;
  uint64_t ids_crc = 0;
};

/// The words crc of a row map, word by word, from `previous` (0 first).
uint32_t row_words_crc(std::string_view word, uint32_t previous);

/// What a row map's making found.
struct model_row_map_made {
  uint64_t rows = 0;
  uint64_t found = 0; // rows whose word the job keeps
};

/// Writes at `path` the row map of the model vocabulary file `model_vocab`
/// (vocab.txt), asking `lookup` over `partitions` word partitions for its
/// words a chunk at a time (at most `limits`' distinct words and bytes of
/// words per chunk, capped as the corpus join's are). An id of
/// `vocab_size` or more, or an answer of the wrong length, fails it; so
/// does a malformed line, with its number.
expected<model_row_map_made> write_model_row_map(const std::string& model_vocab, const std::string& path,
                                                 uint32_t partitions, const join_lookup& lookup, uint64_t vocab_size,
                                                 uint64_t vocab_crc, join_limits limits = {});

/// A row map read in order, a block of ids at a time.
class model_row_map_reader {
public:
  /// Opens `path` under the path policy and checks its header against the
  /// file's length and the job's vocabulary (its size; its crc unless 0).
  static expected<model_row_map_reader> open_guarded(const std::string& path, uint64_t vocab_size, uint64_t vocab_crc);

  const model_row_map_header& header() const { return header_; }
  const std::string& path() const { return path_; }

  /// The next row's id (below the vocabulary's size, or npos).
  expected<uint32_t> next();
  /// After the last row: the ids against the header's crc.
  status finish() const;

private:
  model_row_map_reader(access::file_ptr f, std::string path, model_row_map_header header)
    : file_(std::move(f)), path_(std::move(path)), header_(header) {}

  access::file_ptr file_;
  std::string path_;
  model_row_map_header header_;
  std::vector<uint32_t> block_;
  size_t next_in_block_ = 0;
  uint64_t read_ = 0;
  uint32_t ids_crc_ = 0;
};

} // namespace gridvec
