#include "apps/cli/staged_corpus.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "src/corpus/corpus_inputs.hpp"
#include "src/util/human_units.hpp"

namespace gridvec {

namespace fs = std::filesystem;

expected<staged_corpus> staged_corpus::prepare(train_options& opt, bool for_cluster) {
  staged_corpus staged;
  if (!opt.resume.empty())
    return staged; // the checkpoint's options name the corpus, staged or not
  auto inputs = resolve_corpus_inputs(opt.train);
  if (!inputs)
    return failure{inputs.error()};
  // Each directory's files, counted: a reader sees what was found.
  for (size_t i = 0; i < inputs->size();) {
    const std::string& dir = (*inputs)[i].directory;
    size_t j = i;
    while (j < inputs->size() && (*inputs)[j].directory == dir)
      ++j;
    if (!dir.empty())
      spdlog::info("the corpus directory {} holds {} file{} (read recursively, by path)", dir, j - i,
                   j - i == 1 ? "" : "s");
    i = j;
  }
  if (is_plain_file(*inputs)) {
    opt.train = (*inputs)[0].path; // from a list or a directory, or as given
    return staged;
  }
  std::string dir;
  if (!opt.work_dir.empty()) {
    dir = opt.work_dir;
  } else if (!opt.checkpoint_dir.empty()) {
    dir = opt.checkpoint_dir + "/work";
  } else if (for_cluster) {
    return failure{"-train " + corpus_spec_text(opt.train) +
                   " is not one plain file: the cluster's nodes read the corpus from a "
                   "directory they share; give --work-dir DIR there, and it is staged into DIR/corpus.txt"};
  } else {
    std::error_code ec;
    auto base = fs::temp_directory_path(ec);
    std::string tmpl = ((ec ? fs::path{"/tmp"} : base) / "gridvec-corpus-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      return failure{"cannot create a temporary directory to stage the corpus in " + tmpl};
    dir = staged.temp_dir_ = tmpl;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return failure{"cannot create " + dir + " to stage the corpus in: " + ec.message()};
  const std::string dest = (fs::path{dir} / "corpus.txt").string();
  for (const auto& input : *inputs)
    if (input.path != "-" && fs::equivalent(input.path, dest, ec))
      return failure{"-train " + corpus_spec_text(opt.train) + " includes " + dest + ", where it would be staged"};
  spdlog::info("staging the corpus ({} input{}) into {}", inputs->size(), inputs->size() == 1 ? "" : "s", dest);
  auto bytes = stage_corpus(*inputs, dest, std::cin);
  if (!bytes)
    return failure{bytes.error()};
  if (*bytes == 0)
    return failure{"-train " + corpus_spec_text(opt.train) + " holds no text: every input is empty"};
  spdlog::info("staged {} of text", human_bytes(*bytes));
  opt.train = dest;
  staged.path_ = dest;
  return staged;
}

staged_corpus::staged_corpus(staged_corpus&& other) noexcept
  : path_(std::move(other.path_)), temp_dir_(std::move(other.temp_dir_)) {
  other.temp_dir_.clear();
}

staged_corpus::~staged_corpus() {
  if (temp_dir_.empty())
    return;
  std::error_code ec;
  fs::remove_all(temp_dir_, ec);
}

} // namespace gridvec
