#pragma once
// What `--init` may name (docs/model.md): a model directory (--save-model),
// a checkpoint of a run (DIR/ckpt-000007, or the --checkpoint-dir DIR
// itself: its newest complete checkpoint), or a vectors file in word2vec's
// text or binary format (gensim's and fastText's too). A checkpoint or a
// vectors file is first written as a model directory, so that the job
// continues it exactly as a saved model.
#include <cstdint>
#include <string>

#include <gridvec/core/expected.hpp>

namespace gridvec {

enum class init_source_kind { model, checkpoint, vectors };

struct init_source {
  init_source_kind kind = init_source_kind::model;
  std::string path; // the model or vectors file; for a checkpoint run directory, its newest ckpt-NNNNNN
};

/// What `path` is, or one line saying it is none of the three.
expected<init_source> find_init_source(const std::string& path);

/// Writes `source` (a checkpoint or a vectors file) as a model directory at
/// `dir` (through begin_model_dir/commit_model_dir: whole or not at all).
/// A checkpoint gives both vector sets and its counts; a vectors file its
/// input vectors, zero output vectors (a fresh run's), and `count` as every
/// word's count (it has none): give the job's -min-count, so that every
/// word stays. Returns the number of words.
expected<uint64_t> write_init_model(const init_source& source, const std::string& dir, uint64_t count);

} // namespace gridvec
