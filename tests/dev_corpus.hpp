#pragma once
// The dev corpus (tests/data/dev-corpus.txt.gz, about 1M words of
// English) uncompressed into a test's temporary directory, for unit tests
// that count a real corpus.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "src/corpus/corpus_inputs.hpp"
#include "tests/test_util.hpp"

namespace gridvec::test {

/// Stages the dev corpus into `dir`; returns its path. With `max_lines`,
/// only its first lines (paragraphs): real text in a fraction of the time,
/// for tests that read it many times over.
inline std::string stage_dev_corpus(const temp_dir& dir, size_t max_lines = SIZE_MAX) {
  auto inputs = resolve_corpus_inputs(std::string{GRIDVEC_SOURCE_DIR} + "/tests/data/dev-corpus.txt.gz");
  REQUIRE(inputs);
  std::istringstream no_stdin;
  const std::string path = dir.file("dev-corpus.txt");
  auto staged = stage_corpus(*inputs, path, no_stdin);
  INFO((staged ? std::string{} : staged.error()));
  REQUIRE(staged);
  if (max_lines != SIZE_MAX) {
    std::ifstream in(path);
    std::string text, line;
    for (size_t n = 0; n < max_lines && std::getline(in, line); ++n)
      text += line + '\n';
    in.close();
    std::ofstream(path, std::ios::trunc) << text;
  }
  return path;
}

} // namespace gridvec::test
