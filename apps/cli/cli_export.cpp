// gridvec export: the vectors of a saved model (--save-model DIR) or of one
// checkpoint of a run (DIR/ckpt-000007) as a file other tools load:
// word2vec text (also fastText's .vec) or binary.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "apps/cli/cli.hpp"
#include "src/config/options.hpp"
#include "src/corpus/vocabulary.hpp"
#include "src/formats/checkpoint.hpp"
#include "src/formats/model_dir.hpp"
#include "src/formats/vectors_file.hpp"
#include "src/model/shard_store.hpp"
#include "src/sgns/huffman_tree.hpp"

namespace gridvec {

namespace {

const char* usage = "usage: gridvec export MODEL_DIR|CHECKPOINT -output FILE [-binary 0|1] [--vectors input|output]\n"
                    "Writes the vectors of a model saved with --save-model, or of one checkpoint\n"
                    "of a run (CHECKPOINT_DIR/ckpt-000007, --checkpoint-dir):\n"
                    "  -output FILE          where to write them\n"
                    "  -binary 0|1           word2vec binary format; 0: text, which is also\n"
                    "                        fastText's .vec format [0]\n"
                    "  --vectors input|output  the input vectors (what -output of train holds)\n"
                    "                        or the output (context) vectors [input]\n";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "gridvec export: %s (gridvec export --help)\n", why.c_str());
  return 2;
}

// The vectors of one checkpoint: its shards' column slices side by side.
expected<embedding_table> checkpoint_vectors(const std::string& dir, bool outputs) {
  namespace fs = std::filesystem;
  auto m = read_manifest(dir + "/MANIFEST");
  if (!m)
    return failure{m.error()};
  const std::string root = fs::path(dir).lexically_normal().parent_path().string();
  const std::string vocab_path = root + "/" + m->vocabulary_file;
  auto crc = file_crc32(vocab_path);
  if (!crc)
    return failure{crc.error()};
  if (*crc != m->vocab_crc)
    return failure{vocab_path + " is not the vocabulary of " + dir + " (its checksum differs)"};
  auto vocab = vocabulary::load(vocab_path);
  if (!vocab)
    return failure{vocab.error()};
  auto opt = parse_train_options(m->options);
  if (!opt)
    return failure{"the checkpoint's options do not parse: " + opt.error()};
  embedding_table table;
  table.dim = opt->size;
  const auto words = static_cast<uint32_t>(vocab->size());
  for (uint32_t w = 0; w < words; ++w)
    table.words.push_back(vocab->word(w));
  table.data.assign(size_t{words} * table.dim, 0.0f);
  const auto shards = static_cast<uint32_t>(m->shards.size());
  for (uint32_t s = 0; s < shards; ++s) {
    const auto slice = column_slice::of(s, shards, table.dim);
    const slice_header expect{s,           shards, table.dim,    slice.first,
                              slice.width, words,  m->vocab_crc, opt->hs ? huffman_tree::inner_nodes_for(words) : 0};
    std::vector<float> u(size_t{words} * slice.width), v(size_t{words + expect.node_rows} * slice.width);
    if (auto r = read_slice_file(dir + "/" + m->shards[s].file, expect, u.data(), v.data()); !r)
      return failure{r.error()};
    const auto& from = outputs ? v : u;
    for (uint32_t w = 0; w < words; ++w)
      std::copy_n(from.data() + size_t{w} * slice.width, slice.width,
                  table.data.data() + size_t{w} * table.dim + slice.first);
  }
  return table;
}

} // namespace

int cli_export(const std::vector<std::string>& args) {
  std::string dir, output, which = "input";
  bool binary = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (a.rfind("--", 0) == 0)
      a = a.substr(1);
    const bool takes_value = a == "-output" || a == "-binary" || a == "-vectors";
    if (takes_value && i + 1 >= args.size())
      return usage_error(a + " needs a value");
    if (a == "-output") {
      output = args[++i];
    } else if (a == "-binary") {
      const std::string& v = args[++i];
      if (v != "0" && v != "1")
        return usage_error("-binary expects 0 or 1, got '" + v + "'");
      binary = v == "1";
    } else if (a == "-vectors") {
      which = args[++i];
      if (which != "input" && which != "output")
        return usage_error("--vectors expects input or output, got '" + which + "'");
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option " + args[i]);
    } else if (dir.empty()) {
      dir = a;
    } else {
      return usage_error("one model at a time ('" + a + "' is a second)");
    }
  }
  if (dir.empty())
    return usage_error("which model directory?");
  if (output.empty())
    return usage_error("missing -output FILE");
  expected<embedding_table> table = failure{""};
  if (std::filesystem::exists(dir + "/MANIFEST")) {
    table = checkpoint_vectors(dir, which == "output");
  } else {
    auto model = read_model_manifest(dir);
    if (!model) {
      std::fprintf(stderr, "gridvec export: %s\n", model.error().c_str());
      return 1;
    }
    table = read_vectors(which == "input" ? model_files::input(dir) : model_files::output(dir));
    if (table && (table->dim != model->dim || table->words.size() != model->words)) {
      std::fprintf(stderr, "gridvec export: %s does not match its MODEL file (damaged model?)\n", dir.c_str());
      return 1;
    }
  }
  if (!table) {
    std::fprintf(stderr, "gridvec export: %s\n", table.error().c_str());
    return 1;
  }
  auto writer = vectors_writer::create(output, binary, table->words.size(), table->dim);
  if (!writer) {
    std::fprintf(stderr, "gridvec export: %s\n", writer.error().c_str());
    return 1;
  }
  for (size_t i = 0; i < table->words.size(); ++i)
    writer->add(table->words[i], table->row(i));
  if (auto s = writer->commit(); !s) {
    std::fprintf(stderr, "gridvec export: %s\n", s.error().c_str());
    return 1;
  }
  std::fprintf(stderr, "gridvec export: %zu %s vectors of %u written to %s\n", table->words.size(), which.c_str(),
               table->dim, output.c_str());
  return 0;
}

} // namespace gridvec
