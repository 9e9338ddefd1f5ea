#pragma once
// What -train names, resolved into input files. The option may be given
// several times; train_options::train keeps its values one per line, and
// each value (an "item") is one of:
//   -          standard input;
//   @LIST      the paths listed in the file LIST, one a line (blank lines
//              skipped; relative paths are relative to LIST's directory):
//              any file name, commas included, can be given this way;
//   PATH       a file or directory that exists, whatever its name holds;
//   A,B,...    otherwise, paths separated by commas.
// A directory stands for every regular file under it, its subdirectories'
// too, sorted by path (names starting with '.' skipped); gzip is told by
// its magic bytes, on files and on standard input alike, not by a name.
//
// The pipeline splits a corpus into byte ranges at line starts, so that
// learners count and preprocess their parts in parallel, possibly on other
// machines: it reads one seekable plain file. Anything else is staged first:
// concatenated (and decompressed) into one plain file, each input ending
// with a newline so that no sentence runs across two files, with an origins
// file beside it (src/corpus/corpus_origins.hpp) through which errors name
// the user's file and line.
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

struct corpus_input {
  std::string path;      // "-": standard input
  bool gzip = false;     // a file's magic bytes (standard input's are read when staging)
  std::string directory; // the directory of -train it was found in, if any
};

/// The items of a -train value (see above), in order.
std::vector<std::string> corpus_spec_items(const std::string& spec);

/// The -train value as a user would type it, for messages.
std::string corpus_spec_text(const std::string& spec);

/// The inputs `spec` names, in order. Fails with one line naming what is
/// missing, unreadable, or an empty directory.
expected<std::vector<corpus_input>> resolve_corpus_inputs(const std::string& spec);

/// Whether `inputs` is one plain file, which the pipeline reads as it is.
bool is_plain_file(const std::vector<corpus_input>& inputs);

/// Writes the inputs one after another into `dest` (created whole or not
/// at all: src/util/atomic_file.hpp), then their origins beside it
/// (origins_path(dest)); standard input is read from `stdin_`. Returns the
/// bytes written. Fails with one line naming the input that could not be
/// read (a damaged .gz, say).
expected<uint64_t> stage_corpus(const std::vector<corpus_input>& inputs, const std::string& dest, std::istream& stdin_);

/// Each path of a -train value made absolute ("-" stays as it is; @LIST
/// becomes @/absolute/LIST).
std::string absolute_corpus_spec(const std::string& spec);

} // namespace gridvec
