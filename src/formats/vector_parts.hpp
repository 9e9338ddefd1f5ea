#pragma once
// Word vectors as a directory of part files (`--output-parts 1`), for
// vocabularies whose one word2vec file would be unwieldy:
//   DIR/PARTS          "gridvec-vector-parts 1", then "words V", "dim D",
//                      "format text|binary", "parts P", then one line per
//                      part: "NAME N" (its file and how many words it holds)
//   DIR/part-00000.vec ids [0, N0) as a word2vec file of its own ("N0 D"
//   DIR/part-00001.vec header, then the rows), ids [N0, N0 + N1), ...
// The parts, their headers dropped, concatenated in order under the header
// "V D" are byte for byte the single file the same export writes.
// The directory appears at once: put together in DIR.partial-PID-N (the parts
// by their writers, PARTS last) and renamed over DIR, so an interrupted
// export leaves the previous DIR, or none, never a half-written one.
#include <cstdint>
#include <string>
#include <vector>

#include "src/formats/vectors_file.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec {

struct vector_parts_manifest {
  uint64_t words = 0;
  uint32_t dim = 0;
  bool binary = false;
  std::vector<std::string> names;   // part files, in id order
  std::vector<uint64_t> part_words; // words of each
};

namespace vector_parts {
inline std::string manifest(const std::string& dir) { return dir + "/PARTS"; }
std::string part_name(uint32_t part);
/// Ids [begin_of(k), begin_of(k + 1)) go into part k of `parts` over `words`.
uint64_t begin_of(uint32_t part, uint32_t parts, uint64_t words);
} // namespace vector_parts

/// Whether `path` is a directory (the reader's choice between the forms).
bool is_vector_parts_dir(const std::string& path);

/// Fails if `dir` may not receive parts: a file, or a directory holding
/// something other than vector parts (a missing or empty one is fine).
status check_vector_parts_target(const std::string& dir);
/// Creates an empty DIR.partial-PID-ATTEMPT for the parts; returns its
/// path. Each attempt at an export has its own, so that an abandoned one's
/// late writers never touch the next one's.
expected<std::string> begin_vector_parts(const std::string& dir, uint64_t attempt = 0);
/// Writes PARTS into the partial directory (after every part is committed)
/// and renames it over `dir`.
status commit_vector_parts(const std::string& partial, const std::string& dir, const vector_parts_manifest& m);
void abandon_vector_parts(const std::string& partial);

/// Reads DIR/PARTS; one line if it is missing or damaged.
expected<vector_parts_manifest> read_vector_parts_manifest(const std::string& dir);
/// Every part's vectors, in id order, checked against PARTS: a missing,
/// damaged or mismatched part fails with one line naming it.
expected<embedding_table> read_vector_parts(const std::string& dir);
/// The single word2vec file of the directory's vectors at `path`
/// (atomically): header "V D" and each part's rows, byte for byte.
status concatenate_vector_parts(const std::string& dir, const std::string& path);

} // namespace gridvec
