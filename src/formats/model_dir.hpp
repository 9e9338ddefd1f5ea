#pragma once
// A whole model, as `--save-model DIR` writes it and `--init DIR` and
// `gridvec export DIR` read it (docs/model.md):
//   DIR/MODEL       "gridvec-model 1", then "dim D", "words V" and
//                   "options ..." (the job's options, as -name value)
//   DIR/vocab.txt   the vocabulary with its counts, word2vec.c's format
//                   (src/corpus/word2vec_vocab.hpp)
//   DIR/input.bin   the input vectors (what -output holds), and
//   DIR/output.bin  the output (context) vectors, both in word2vec's
//                   binary format, words in vocab.txt's order.
// All of it appears at once: written into DIR.partial-PID, then renamed
// over DIR, so a model is never seen half-written and a failed save leaves
// the previous one in place.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

class vocabulary;

struct model_manifest {
  uint32_t dim = 0;
  uint64_t words = 0;
  std::vector<std::string> options;
};

namespace model_files {
inline std::string manifest(const std::string& dir) { return dir + "/MODEL"; }
inline std::string vocab(const std::string& dir) { return dir + "/vocab.txt"; }
inline std::string input(const std::string& dir) { return dir + "/input.bin"; }
inline std::string output(const std::string& dir) { return dir + "/output.bin"; }
} // namespace model_files

/// Where a model for `dir` is put together before it replaces `dir`.
std::string partial_model_dir(const std::string& dir);
/// Creates the (empty) partial directory; fails if `dir`'s parent cannot be
/// written.
expected<std::string> begin_model_dir(const std::string& dir);
status write_model_manifest(const std::string& partial, const model_manifest& m);
/// Fails if `dir` may not receive a model: a file, or a directory holding
/// something other than a model (a missing or empty directory is fine).
status check_model_target(const std::string& dir);
/// Renames the partial directory over `dir` (the previous model, if any,
/// goes only once the new one is in place).
status commit_model_dir(const std::string& partial, const std::string& dir);
void abandon_model_dir(const std::string& partial);

/// Reads DIR/MODEL; fails with one line if DIR is not a model.
expected<model_manifest> read_model_manifest(const std::string& dir);

/// For every word of `vocab` that one of the model's vector files
/// (`vectors`, input.bin or output.bin) holds, copies its columns
/// [first, first + width) into row `id` of `rows` (vocab.size() x width).
/// Returns how many words it found.
expected<uint64_t> load_model_columns(const std::string& vectors, const vocabulary& vocab, uint32_t first,
                                      uint32_t width, float* rows);

/// The same rows, placed by --init's row map (src/corpus/model_row_map.hpp)
/// instead of by word: `vectors` is read one row at a time and row r goes
/// to the map's id for r, so that neither the vocabulary's words nor the
/// model are held. `rows` is `vocab_size` x width; the map must be of that
/// vocabulary (and of `vocab_crc`'s file, unless 0) and of this model's
/// words.
expected<uint64_t> load_model_columns_by_row_map(const std::string& vectors, const std::string& row_map,
                                                 uint64_t vocab_size, uint64_t vocab_crc, uint32_t first,
                                                 uint32_t width, float* rows);

} // namespace gridvec
