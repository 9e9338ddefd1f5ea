#include "src/formats/init_model.hpp"

#include <algorithm>
#include <filesystem>

#include "src/formats/checkpoint.hpp"
#include "src/formats/checkpoint_vectors.hpp"
#include "src/formats/model_dir.hpp"
#include "src/corpus/word2vec_vocab.hpp"
#include "src/formats/vectors_file.hpp"

namespace gridvec {

namespace fs = std::filesystem;

expected<init_source> find_init_source(const std::string& path) {
  std::error_code ec;
  const std::string why =
    path + " is not a gridvec model (--save-model), a checkpoint, a vectors file or a directory of vector parts";
  if (fs::is_directory(path, ec)) {
    if (fs::exists(path + "/MODEL", ec))
      return init_source{init_source_kind::model, path};
    if (fs::exists(path + "/MANIFEST", ec))
      return init_source{init_source_kind::checkpoint, path};
    if (fs::exists(path + "/PARTS", ec)) // --output-parts 1: read as one vectors file
      return init_source{init_source_kind::vectors, path};
    // A --checkpoint-dir: its newest checkpoint that reads back intact.
    const checkpoint_store store{path};
    if (auto newest = store.latest())
      return init_source{init_source_kind::checkpoint, store.final_dir(newest->sequence)};
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
  status s = write_vectors(model_files::input(*partial), input, true);
  if (s)
    s = write_vectors(model_files::output(*partial), output, true);
  if (s)
    s = save_word2vec_vocab(input.words, counts, 0, model_files::vocab(*partial));
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
