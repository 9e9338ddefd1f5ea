#pragma once
// Where each byte of a staged corpus came from. Staging joins the user's
// inputs (files, a directory's files, gzip, standard input) into one plain
// file (src/corpus/corpus_inputs.hpp); the origins file beside it,
// CORPUS.origins, says where each input starts in it. An error found later
// in the staged file -- by a node counting words, by a learner reading its
// part -- then names the user's file and the line there, not the staged
// copy and an offset in the joined text.
//
// Format, text, one record a line:
//   gridvec-corpus-origins 1 STAGED_BYTES
//   BEGIN KIND NAME
// BEGIN is the input's first byte in the staged file; KIND is file, gzip,
// stdin or stdin-gzip; NAME runs to the end of the line, with '\' and a
// newline written as \\ and \n. An origins file whose STAGED_BYTES is not
// the staged file's size belongs to another staging and is ignored.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

struct corpus_origin {
  uint64_t begin = 0;
  std::string kind; // file, gzip, stdin, stdin-gzip
  std::string name; // as the user gave it; "standard input" for stdin
};

/// CORPUS.origins
std::string origins_path(const std::string& corpus);

/// Writes the origins of `corpus` (staged_bytes long), all or nothing.
status write_corpus_origins(const std::string& corpus, uint64_t staged_bytes,
                            const std::vector<corpus_origin>& origins);

/// The origins of `corpus`; empty when it has none (it is the user's own
/// file) or they are stale.
std::vector<corpus_origin> read_corpus_origins(const std::string& corpus);

/// A place in the user's input.
struct corpus_position {
  std::string name;      // the user's file, or "standard input"
  uint64_t line = 1;     // from 1, in that input
  uint64_t byte = 0;     // from 0, in that input
  std::string byte_note; // " of its uncompressed text" for gzip
};

/// Where byte `offset` of `corpus` came from: through its origins when it
/// was staged, else the corpus itself. Lines are counted by reading the
/// input up to the offset (errors only: never on a hot path).
corpus_position locate_in_corpus(const std::string& corpus, uint64_t offset);

} // namespace gridvec
