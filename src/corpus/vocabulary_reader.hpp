#pragma once
// A gridvec vocabulary file ("gridvec-vocabulary 1 SIZE TRAIN_WORDS", then
// "COUNT WORD" per word in id order) read one word at a time, holding one
// word: what writes a range of the vectors needs of it (an exporter), so
// that no node loads every word's string to export. vocabulary::load reads
// through it too: one parser of the format.
#include <cstdint>
#include <istream>
#include <memory>
#include <string>

#include <gridvec/core/expected.hpp>

namespace gridvec {

class vocabulary_reader {
public:
  /// Opens `path` (through the process's path policy) and reads its header;
  /// one line if it is not a gridvec vocabulary or numbers more words than
  /// 32-bit ids can.
  static expected<vocabulary_reader> open_guarded(const std::string& path);

  uint64_t size() const { return size_; }               // words, from the header
  uint64_t train_words() const { return train_words_; } // the header's total of the counts
  uint64_t position() const { return next_; }           // the id of the next word
  uint64_t counted() const { return counted_; }         // the counts read so far, summed

  /// The next word and its count; fails on a malformed entry, past the
  /// last word, or at the last word if the counts do not add up to the
  /// header's total.
  status next(std::string& word, uint64_t& count);
  /// Reads past words until position() == id (at most size()).
  status skip_to(uint64_t id);

private:
  std::string path_;
  std::unique_ptr<std::istream> in_;
  uint64_t size_ = 0, train_words_ = 0, next_ = 0, counted_ = 0;
};

} // namespace gridvec
