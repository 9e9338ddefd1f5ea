#pragma once
// Where training stands in one part of the corpus. The corpus is split into
// parts (byte ranges at line starts); each part is preprocessed into its own
// file of word ids and trained by one learner at a time, `iter` epochs over.
// A cursor is the unit of work the coordinator hands out, checkpoints and,
// when a learner dies, hands to another learner: it always points at the
// start of a sentence, so resuming from it re-does at most one sentence.
#include <cstdint>
#include <string>

namespace gridvec {

struct part_cursor {
  uint32_t part = 0;
  std::string ids_path;   // the part's preprocessed corpus (id_stream format)
  uint64_t words = 0;     // in-vocabulary words of the part, one epoch
  uint32_t epoch = 0;     // epochs completed
  uint64_t offset = 8;    // byte offset of the next sentence (id_reader::tell)
  uint64_t processed = 0; // words read from the part over all epochs so far

  /// Fraction of this part's training done: drives its learning rate, as
  /// word2vec.c's word_count_actual / (iter * train_words) does.
  double fraction(uint32_t iterations) const {
    const double total = static_cast<double>(words) * iterations;
    return total > 0 ? static_cast<double>(processed) / total : 1.0;
  }
  bool finished(uint32_t iterations) const { return epoch >= iterations || words == 0; }
};

} // namespace gridvec
