#include "src/formats/init_model.hpp"

#include <algorithm>
#include <filesystem>

#include "src/formats/checkpoint_vectors.hpp"
#include "src/formats/model_dir.hpp"
#include "src/formats/vectors_file.hpp"
#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

namespace fs = std::filesystem;

// The newest complete checkpoint in a --checkpoint-dir, or "".
std::string newest_checkpoint(const std::string& dir) {
  std::string best;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    // ckpt-000007; a ".partial" one is incomplete.
    if (name.rfind("ckpt-", 0) == 0 && name.find('.') == std::string::npos && fs::exists(e.path() / "MANIFEST", ec))
      if (best.empty() || name > fs::path(best).filename().string())
        best = e.path().string();
  }
  return best;
}

status write_vectors_file(const std::string& path, const embedding_table& table) {
  auto writer = vectors_writer::create(path, true, table.words.size(), table.dim);
  if (!writer)
    return failure{writer.error()};
  for (size_t i = 0; i < table.words.size(); ++i)
    writer->add(table.words[i], table.row(i));
  return writer->commit();
}

// vocab.txt as word2vec's -save-vocab writes it.
status write_counts(const std::string& path, const std::vector<std::string>& words,
                    const std::vector<uint64_t>& counts) {
  auto file = atomic_file::create(path);
  if (!file)
    return failure{file.error()};
  std::fprintf(file->stream(), "</s> 0\n");
  for (size_t i = 0; i < words.size(); ++i)
    std::fprintf(file->stream(), "%s %llu\n", words[i].c_str(), static_cast<unsigned long long>(counts[i]));
  return file->commit();
}

} // namespace

expected<init_source> find_init_source(const std::string& path) {
  std::error_code ec;
  const std::string why = path + " is not a gridvec model (--save-model), a checkpoint or a vectors file";
  if (fs::is_directory(path, ec)) {
    if (fs::exists(path + "/MODEL", ec))
      return init_source{init_source_kind::model, path};
    if (fs::exists(path + "/MANIFEST", ec))
      return init_source{init_source_kind::checkpoint, path};
    if (auto newest = newest_checkpoint(path); !newest.empty())
      return init_source{init_source_kind::checkpoint, newest};
    return failure{why};
  }
  if (fs::is_regular_file(path, ec))
    return init_source{init_source_kind::vectors, path};
  return failure{why};
}

expected<uint64_t> write_init_model(const init_source& source, const std::string& dir, uint64_t count) {
  embedding_table input, output;
  std::vector<uint64_t> counts;
  std::vector<std::string> options;
  if (source.kind == init_source_kind::checkpoint) {
    auto model = read_checkpoint_model(source.path);
    if (!model)
      return failure{model.error()};
    input = std::move(model->input);
    output = std::move(model->output);
    counts = std::move(model->counts);
    options = std::move(model->options);
  } else if (source.kind == init_source_kind::vectors) {
    auto read = read_vectors(source.path);
    if (!read)
      return failure{"--init " + source.path + ": " + read.error()};
    input = std::move(*read);
    output.dim = input.dim;
    output.words = input.words;
    output.data.assign(input.data.size(), 0.0f);
    counts.assign(input.words.size(), std::max<uint64_t>(count, 1));
  } else {
    return failure{source.path + " is a model already"};
  }
  if (input.words.empty())
    return failure{"--init " + source.path + " holds no words"};
  auto partial = begin_model_dir(dir);
  if (!partial)
    return failure{partial.error()};
  status s = write_vectors_file(model_files::input(*partial), input);
  if (s)
    s = write_vectors_file(model_files::output(*partial), output);
  if (s)
    s = write_counts(model_files::vocab(*partial), input.words, counts);
  if (s)
    s = write_model_manifest(*partial, model_manifest{input.dim, input.words.size(), options});
  if (s)
    s = commit_model_dir(*partial, dir);
  if (!s) {
    abandon_model_dir(*partial);
    return failure{s.error()};
  }
  return static_cast<uint64_t>(input.words.size());
}

} // namespace gridvec
