#pragma once
// Examples of a binary classification in LIBSVM's text format, read into
// compressed rows: "LABEL FEATURE:VALUE ..." per line, '#' starts a
// comment. A label > 0 is the positive class (+1), any other number the
// negative one (-1: "0" and "-1" both). A feature of digits below
// `features` is that column; any other name (or a larger number) is hashed
// (FNV-1a, as table_key hashes) into [0, features): the hashing trick, so
// any feature vocabulary fits a fixed model vector. A bad line stops the
// read with one error line naming the file and line.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

struct svm_data {
  uint32_t features = 0;
  std::vector<float> labels;     // +1 or -1, one per example
  std::vector<uint64_t> offsets; // example i's entries are [offsets[i], offsets[i+1])
  std::vector<uint32_t> columns;
  std::vector<float> values;

  size_t examples() const { return labels.size(); }
};

/// Reads `path` (one line of it per example; blank and comment lines are
/// skipped). One error line if it cannot be read or a line is malformed.
expected<svm_data> read_svm_file(const std::string& path, uint32_t features);

/// Parses a whole text in the same format (`source` names it in errors).
expected<svm_data> parse_svm_text(const std::string& text, uint32_t features, const std::string& source);

/// Examples [begin, end) of `path` only (every line is still checked), and
/// in `total` how many examples the whole file has. A learner's share.
expected<svm_data> read_svm_range(const std::string& path, uint32_t features, uint64_t begin, uint64_t end,
                                  uint64_t& total);

/// "2^24", "16777216": a count of features, 1 to 2^30. One line if not.
expected<uint32_t> parse_feature_count(const std::string& text);

} // namespace gridvec
