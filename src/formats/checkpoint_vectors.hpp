#pragma once
// The whole model in one checkpoint of a run (DIR/ckpt-000007): its
// shards' column slices put side by side, for `gridvec export` and for
// `--init` from a checkpoint (src/formats/init_model.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "src/formats/vectors_file.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec {

struct checkpoint_model {
  embedding_table input;        // the words, in the vocabulary's order, and their input vectors
  embedding_table output;       // their output vectors (not the Huffman nodes' of -hs 1)
  std::vector<uint64_t> counts; // the vocabulary's counts, in the same order
  std::vector<std::string> options;
};

/// Reads checkpoint `dir`: its MANIFEST, the vocabulary beside it (whose
/// checksum must match) and every shard's slice file. One error line if
/// anything is missing, damaged or of another vocabulary.
expected<checkpoint_model> read_checkpoint_model(const std::string& dir);

} // namespace gridvec
