#pragma once
// Checkpoints on disk: one consistent point of a training run, from which a
// lost shard is restored or a whole job resumed.
//
//   DIR/vocabulary.txt             the job's vocabulary (vocabulary::save format)
//   DIR/work/part-N.ids            the preprocessed corpus parts (id_stream format)
//   DIR/ckpt-000007/shard-S.bin    column slices of shard S (slice file, below)
//   DIR/ckpt-000007/MANIFEST       the run's state at that point (manifest, below)
//
// A checkpoint is written into DIR/ckpt-000007.partial/ (every file through
// atomic_file: temporary name, fsync, rename), the MANIFEST last, and only
// then is the directory renamed to its final name. So a directory without
// ".partial" is complete; the two newest complete checkpoints are kept, so
// that a damaged newest one still leaves one to fall back to.
//
// Slice file (little-endian):
//   "GVSLICE1"                                      8 bytes
//   shard, shards, dim, first, width                5 x uint32
//   node_rows                                       uint32 (-hs 1: V - 1, else 0)
//   vocab_size, vocab_crc                           2 x uint64
//   u rows, then v rows        (vocab_size, then vocab_size + node_rows) x width float32
//   crc32 of every byte before it                   uint32
//
// MANIFEST (text, one record per line, fields separated by one space; the
// last field of a line may contain spaces):
//   gridvec-checkpoint 1
//   sequence 7
//   option -size 100                   one line per option that is not default
//   vocabulary SIZE CRC FILE
//   counters RAW_WORDS TRAINED_WORDS PAIRS TRAINING_SECONDS
//   alpha 0.0123
//   part INDEX EPOCH OFFSET PROCESSED WORDS BEGIN END IDS_PATH
//                                      (BEGIN END: the part's corpus byte range)
//   shard INDEX BYTES CRC FILE
//   loss PROCESSED LOSS                loss history, oldest first
//   end CRC                            crc32 of all the text before this line
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gridvec/core/file_digest.hpp>
#include <gridvec/core/expected.hpp>
#include <gridvec/core/part_cursor.hpp>
#include "src/corpus/text_corpus.hpp"

namespace gridvec {

/// CRC-32 (IEEE 802.3) of n bytes, continuing from a previous result.
uint32_t crc32(const void* data, size_t n, uint32_t previous = 0);

/// CRC-32 of a whole file: the vocabulary's identity in checkpoints.
expected<uint32_t> file_crc32(const std::string& path);

// --- slice files ------------------------------------------------------------

struct slice_header {
  uint32_t shard = 0;
  uint32_t shards = 0;
  uint32_t dim = 0;
  uint32_t first = 0;
  uint32_t width = 0;
  uint64_t vocab_size = 0;
  uint64_t vocab_crc = 0;
  uint32_t node_rows = 0; // output rows of Huffman inner nodes after the words' (-hs 1)
};

/// Writes the slice atomically; u holds vocab_size x width floats, v
/// (vocab_size + node_rows) x width.
expected<file_digest> write_slice_file(const std::string& path, const slice_header& header, const float* u,
                                       const float* v);

/// Reads a slice written for exactly `expect` into u and v. Fails with one
/// line if the file is missing, truncated, of another shard or vocabulary,
/// or its checksum does not match; u and v may then be partly overwritten.
status read_slice_file(const std::string& path, const slice_header& expect, float* u, float* v);

// --- manifest ---------------------------------------------------------------

struct shard_file {
  uint32_t index = 0;
  std::string file; // name inside the checkpoint's directory
  file_digest digest;
};

struct checkpoint_manifest {
  uint64_t sequence = 0;
  std::vector<std::string> options; // to_args() of the job's options
  std::string vocabulary_file;      // name inside the checkpoint root
  uint64_t vocab_size = 0;
  uint32_t vocab_crc = 0;
  uint64_t raw_words = 0;
  uint64_t trained_words = 0;
  uint64_t pairs = 0;
  double training_seconds = 0;
  float alpha = 0;
  std::vector<part_cursor> parts;
  std::vector<byte_range> ranges; // the corpus byte range of each part
  std::vector<shard_file> shards;
  std::vector<std::pair<uint64_t, double>> loss_history; // (words processed, loss)

  uint64_t processed_words() const {
    uint64_t n = 0;
    for (const auto& p : parts)
      n += p.processed;
    return n;
  }
};

status write_manifest(const std::string& path, const checkpoint_manifest& m);
expected<checkpoint_manifest> read_manifest(const std::string& path);

// --- the checkpoint directory -------------------------------------------------

class checkpoint_store {
public:
  explicit checkpoint_store(std::string root) : root_(std::move(root)) {}

  const std::string& root() const { return root_; }
  std::string vocabulary_path() const { return root_ + "/vocabulary.txt"; }
  std::string work_dir() const { return root_ + "/work"; }
  /// Where checkpoint `sequence` is written, and where it is once complete.
  std::string partial_dir(uint64_t sequence) const;
  std::string final_dir(uint64_t sequence) const;

  /// Creates the root, its work directory and the partial directory of
  /// `sequence` (emptied if a crashed attempt left one).
  status prepare(uint64_t sequence) const;
  /// Renames the partial directory to its final name and keeps only the
  /// `keep` newest complete checkpoints; removes what earlier attempts
  /// that did not complete left.
  status commit(uint64_t sequence, size_t keep = 2) const;
  /// Removes the partial directory of an attempt that will not complete
  /// (a shard lost or failing while it saved).
  void discard(uint64_t sequence) const;
  /// Sequences of complete checkpoints, newest first.
  std::vector<uint64_t> complete() const;
  /// The newest complete checkpoint whose MANIFEST reads back intact and
  /// whose shard files have the recorded size, with a note for each newer
  /// one skipped and why. Fails if there is none.
  expected<checkpoint_manifest> latest(std::vector<std::string>* skipped = nullptr) const;

private:
  std::string root_;
};

} // namespace gridvec
