#pragma once
// Word-similarity correlation as gensim's KeyedVectors.evaluate_word_pairs
// reports it: the cosine of each pair's vectors against the human score,
// as Spearman's rho (and Pearson's r); pairs with a word outside the
// vocabulary's first `restrict` words are left out and counted.
// The file is WordSim-353's: "word1<TAB>word2<TAB>score" lines, '#' lines
// ignored; the CSV variant ("Word 1,Word 2,Human (mean)" header) is read
// too.
#include <cstdint>
#include <string>

#include "src/eval/eval_vocabulary.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec {

struct word_pairs_result {
  uint64_t pairs = 0;   // scored
  uint64_t unknown = 0; // left out: a word outside the vocabulary
  double spearman = 0;  // NaN when fewer than two pairs were scored
  double pearson = 0;
  double unknown_percent() const;
};

expected<word_pairs_result> evaluate_word_pairs(const eval_vocabulary& vocab, const std::string& path);

} // namespace gridvec
