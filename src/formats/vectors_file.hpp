#pragma once
// Word vectors in the formats people load, word2vec's own:
//   text:   "V d\n" then per word "word x1 x2 ... xd\n"
//   binary: "V d\n" then per word "word " + d little-endian float32 + "\n"
// gensim's KeyedVectors.load_word2vec_format and fastText's .vec reader
// accept both. Writing goes through atomic_file: all or nothing.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/util/atomic_file.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec {

class vectors_writer {
public:
  static expected<vectors_writer> create(const std::string& path, bool binary, uint64_t count, uint32_t dim);
  void add(std::string_view word, const float* vec);
  status commit();

private:
  vectors_writer(atomic_file file, bool binary, uint32_t dim) : file_(std::move(file)), binary_(binary), dim_(dim) {}
  atomic_file file_;
  bool binary_;
  uint32_t dim_;
  std::string line_;
};

struct embedding_table {
  uint32_t dim = 0;
  std::vector<std::string> words;
  std::vector<float> data; // words.size() x dim, row-major
  const float* row(size_t i) const { return data.data() + i * dim; }
};

/// Reads either format (binary detected from the bytes after the header),
/// or a directory of part files (src/formats/vector_parts.hpp).
expected<embedding_table> read_vectors(const std::string& path);

/// Writes a whole table in either format, atomically.
status write_vectors(const std::string& path, const embedding_table& table, bool binary);

} // namespace gridvec
