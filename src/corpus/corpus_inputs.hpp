#pragma once
// What -train names, resolved into input files: a plain file, several
// (FILE,FILE,...), a directory (its regular files, by name; hidden ones
// skipped), gzip-compressed files (told by their magic bytes, not their
// name), or "-" for standard input.
//
// The pipeline splits a corpus into byte ranges at line starts, so that
// learners count and preprocess their parts in parallel, possibly on other
// machines: it reads one seekable plain file. Anything else is staged first:
// concatenated (and decompressed) into one plain file, each input ending
// with a newline so that no sentence runs across two files.
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

struct corpus_input {
  std::string path; // "-": standard input
  bool gzip = false;
};

/// The inputs `spec` names, in order. Fails with one line naming what is
/// missing, unreadable, or an empty directory.
expected<std::vector<corpus_input>> resolve_corpus_inputs(const std::string& spec);

/// Whether `inputs` is one plain file, which the pipeline reads as it is.
bool is_plain_file(const std::vector<corpus_input>& inputs);

/// Writes the inputs one after another into `dest` (created whole or not
/// at all: src/util/atomic_file.hpp); standard input is read from `stdin_`.
/// Returns the bytes written. Fails with one line naming the input that
/// could not be read (a damaged .gz, say).
expected<uint64_t> stage_corpus(const std::vector<corpus_input>& inputs, const std::string& dest, std::istream& stdin_);

/// Each path of a -train spec made absolute ("-" stays as it is).
std::string absolute_corpus_spec(const std::string& spec);

} // namespace gridvec
