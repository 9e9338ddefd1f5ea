#pragma once
// Analogy accuracy as gensim's KeyedVectors.evaluate_word_analogies reports
// it (3CosAdd): for "a b c expected", the answer is the word w, among the
// vocabulary's first `restrict` words and other than a, b and c, whose
// unit vector has the highest cosine with unit(b) - unit(a) + unit(c).
// Questions with a word outside those `restrict` words are skipped, not
// counted wrong (so accuracy is over the questions asked of the model).
// The file is questions-words.txt's format: ": section" lines, then one
// question of four words a line.
#include <cstdint>
#include <string>
#include <vector>

#include "src/eval/eval_vocabulary.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec {

struct analogy_section {
  std::string name;
  uint64_t correct = 0;
  uint64_t incorrect = 0;
};

struct analogy_result {
  std::vector<analogy_section> sections;
  uint64_t correct = 0;
  uint64_t incorrect = 0;
  uint64_t skipped = 0; // a word outside the vocabulary taking part
  /// correct / (correct + incorrect); 0 when no question was asked.
  double accuracy() const;
};

expected<analogy_result> evaluate_analogies(const eval_vocabulary& vocab, const std::string& path);

} // namespace gridvec
