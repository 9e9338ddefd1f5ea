#pragma once
// word2vec.c's -classes K: K-means over the word vectors, computed as the
// reference does (so a user switching gets the classes they know):
// word i starts in class i mod K; each of 10 rounds sets every centroid to
// its class's mean (its count starting at 1) scaled to length 1, then moves
// every word to the centroid of the largest dot product.
// The result is written as the reference writes it: "word class" lines.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

#include "src/corpus/vocabulary_reader.hpp"

namespace gridvec {

/// The class of each of `count` rows of `dim` floats (row-major).
std::vector<uint32_t> word_classes(const float* rows, size_t count, uint32_t dim, uint32_t classes,
                                   uint32_t rounds = 10);

/// Writes "word class" lines, atomically, the words read from a
/// vocabulary file as they are written (no file if one is malformed).
status write_word_classes(const std::string& path, vocabulary_reader& words, const std::vector<uint32_t>& classes);

} // namespace gridvec
