#pragma once
// The preprocessed corpus: word ids streamed to disk so that training epochs
// read 4 bytes per word instead of re-tokenising text.
//
// File format (little-endian):
//   bytes 0..7   magic "GVIDS01\n"
//   then         uint32 word ids; 0xFFFFFFFF ends a sentence.
// Out-of-vocabulary words are already dropped; sentences are at most
// max_sentence_words ids (longer lines are split, as word2vec.c does).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

constexpr size_t max_sentence_words = 1000;
constexpr uint32_t sentence_end = 0xFFFFFFFFu;

class id_writer {
public:
  static expected<id_writer> create(const std::string& path);
  id_writer(id_writer&&) noexcept;
  ~id_writer();

  void add(uint32_t id);
  void end_sentence();
  /// Flushes and closes; the file is complete only if this succeeds.
  status close();

  uint64_t words() const { return words_; }
  uint64_t sentences() const { return sentences_; }

private:
  id_writer(std::string path, std::FILE* f) : path_(std::move(path)), file_(f) {}
  void put(uint32_t x);

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<uint32_t> buf_;
  uint64_t words_ = 0;
  uint64_t sentences_ = 0;
  size_t in_sentence_ = 0;
  bool failed_ = false;
};

class id_reader {
public:
  static expected<id_reader> open(const std::string& path);
  id_reader(id_reader&&) noexcept;
  ~id_reader();

  /// Next sentence into `out` (cleared first). False at end of file.
  bool next_sentence(std::vector<uint32_t>& out);
  /// Back to the first sentence (next epoch).
  void rewind();
  /// Byte offset of the next sentence to be read: a position that seek()
  /// returns to, e.g. from a checkpoint. Valid between sentences.
  uint64_t tell() const { return base_ + pos_ * sizeof(uint32_t); }
  /// Continues reading at `offset`, a value tell() returned; fails if it is
  /// not inside the file's id area.
  status seek(uint64_t offset);
  /// Offset of the first sentence (that of a rewound reader).
  static constexpr uint64_t first_offset = 8;

private:
  explicit id_reader(std::FILE* f) : file_(f) {}
  bool refill();

  std::FILE* file_ = nullptr;
  std::vector<uint32_t> buf_;
  uint64_t base_ = first_offset; // file offset of buf_[0]
  size_t pos_ = 0;
  size_t len_ = 0;
};

} // namespace gridvec
