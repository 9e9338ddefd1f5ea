#pragma once
// A word2vec vectors file (src/formats/vectors_file.hpp) read one row at a
// time: what read_vectors reads whole, for a reader that keeps only part of
// each row (a shard's columns of --init's model) and so never holds the
// file. The header's figures are checked against the file's size before
// anything is sized by them.
#include <cstdint>
#include <istream>
#include <memory>
#include <string>

#include <gridvec/core/expected.hpp>

namespace gridvec {

class vectors_reader {
public:
  /// Opens `path` under the path policy (`what` names it in the policy's
  /// line) and reads its header; tells text from binary by the first row.
  /// A word longer than `max_word_bytes` (0: any length) fails its row.
  static expected<vectors_reader> open_guarded(const std::string& path, const std::string& what = "vectors",
                                               size_t max_word_bytes = 0);

  uint64_t count() const { return count_; }
  uint32_t dim() const { return dim_; }
  /// Rows read so far.
  uint64_t position() const { return read_; }

  /// The next row's word and its dim() numbers into `row`; fails with
  /// "PATH: malformed vector at row N" (from 1), also past the last row.
  status next(std::string& word, float* row);

private:
  vectors_reader(std::unique_ptr<std::istream> in, std::string path, uint64_t count, uint32_t dim, bool binary,
                 size_t max_word_bytes)
    : in_(std::move(in)), path_(std::move(path)), count_(count), dim_(dim), binary_(binary),
      max_word_bytes_(max_word_bytes) {}

  std::unique_ptr<std::istream> in_;
  std::string path_;
  uint64_t count_ = 0;
  uint32_t dim_ = 0;
  bool binary_ = true;
  size_t max_word_bytes_ = 0;
  uint64_t read_ = 0;
};

} // namespace gridvec
