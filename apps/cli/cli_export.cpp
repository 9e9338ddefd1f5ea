// gridvec export: the vectors of a saved model (--save-model DIR), of one
// checkpoint of a run (DIR/ckpt-000007) or of a directory of vector parts
// (--output-parts 1) as a file other tools load: word2vec text (also
// fastText's .vec) or binary.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <gridvec/core/cluster_config.hpp>

#include "apps/cli/cli.hpp"
#include "src/formats/checkpoint_vectors.hpp"
#include "src/formats/manifest_key.hpp"
#include "src/formats/model_dir.hpp"
#include "src/formats/vector_parts.hpp"
#include "src/formats/vectors_file.hpp"

namespace gridvec {

namespace {

const char* export_usage = "usage: gridvec export MODEL_DIR|CHECKPOINT|PARTS_DIR -output FILE [-binary 0|1]\n"
                           "                      [--vectors input|output] [--config CLUSTER_CONFIG]\n"
                           "Writes the vectors of a model saved with --save-model, of one checkpoint\n"
                           "of a run (CHECKPOINT_DIR/ckpt-000007, --checkpoint-dir), or of a directory\n"
                           "of part files (train --output-parts 1; in the parts' own format, their\n"
                           "rows concatenated byte for byte, what train writes without --output-parts):\n"
                           "  -output FILE          where to write them\n"
                           "  -binary 0|1           word2vec binary format; 0: text, which is also\n"
                           "                        fastText's .vec format [0; for parts: theirs]\n"
                           "  --vectors input|output  the input vectors (what -output of train holds)\n"
                           "                        or the output (context) vectors [input]\n"
                           "  --config FILE         the cluster config of the run, for a checkpoint a\n"
                           "                        cluster with a secret wrote: its manifest is checked\n"
                           "                        against the secret's authentication code\n";

int export_usage_error(const std::string& why) {
  std::fprintf(stderr, "gridvec export: %s (gridvec export --help)\n", why.c_str());
  return 2;
}

} // namespace

int cli_export(const std::vector<std::string>& args) {
  std::string dir, output, which = "input", config;
  bool binary = false, binary_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(export_usage, stdout);
      return 0;
    }
    if (a.rfind("--", 0) == 0)
      a = a.substr(1);
    const bool takes_value = a == "-output" || a == "-binary" || a == "-vectors" || a == "-config";
    if (takes_value && i + 1 >= args.size())
      return export_usage_error(a + " needs a value");
    if (a == "-output") {
      output = args[++i];
    } else if (a == "-binary") {
      const std::string& v = args[++i];
      if (v != "0" && v != "1")
        return export_usage_error("-binary expects 0 or 1, got '" + v + "'");
      binary = v == "1";
      binary_given = true;
    } else if (a == "-vectors") {
      which = args[++i];
      if (which != "input" && which != "output")
        return export_usage_error("--vectors expects input or output, got '" + which + "'");
    } else if (a == "-config") {
      config = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      return export_usage_error("unknown option " + args[i]);
    } else if (dir.empty()) {
      dir = a;
    } else {
      return export_usage_error("one model at a time ('" + a + "' is a second)");
    }
  }
  if (dir.empty())
    return export_usage_error("which model directory?");
  if (output.empty())
    return export_usage_error("missing -output FILE");
  if (!config.empty()) {
    // A cluster with a secret signs its checkpoint manifests; reading one
    // back checks the signature under the key derived from that secret.
    auto cluster = load_cluster_config(config);
    if (!cluster) {
      std::fprintf(stderr, "gridvec export: %s\n", cluster.error().c_str());
      return 2;
    }
    auto key = manifest_key_of(*cluster);
    if (!key) {
      std::fprintf(stderr, "gridvec export: %s\n", key.error().c_str());
      return 2;
    }
    set_manifest_key(*key);
  }
  expected<embedding_table> table = failure{""};
  if (std::filesystem::exists(vector_parts::manifest(dir))) {
    auto parts = read_vector_parts_manifest(dir);
    if (!parts) {
      std::fprintf(stderr, "gridvec export: %s\n", parts.error().c_str());
      return 1;
    }
    if (which == "output") {
      std::fprintf(stderr, "gridvec export: %s holds the input vectors only (--vectors output needs a model)\n",
                   dir.c_str());
      return 1;
    }
    if (binary_given && binary != parts->binary) {
      table = read_vector_parts(dir); // converted row by row below
    } else {
      if (auto s = concatenate_vector_parts(dir, output); !s) {
        std::fprintf(stderr, "gridvec export: %s\n", s.error().c_str());
        return 1;
      }
      std::fprintf(stderr, "gridvec export: %llu input vectors of %u written to %s\n",
                   static_cast<unsigned long long>(parts->words), parts->dim, output.c_str());
      return 0;
    }
  } else if (std::filesystem::exists(dir + "/MANIFEST")) {
    auto model = read_checkpoint_model(dir);
    if (model)
      table = std::move(which == "output" ? model->output : model->input);
    else
      table = failure{model.error()};
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
  if (auto s = write_vectors(output, *table, binary); !s) {
    std::fprintf(stderr, "gridvec export: %s\n", s.error().c_str());
    return 1;
  }
  std::fprintf(stderr, "gridvec export: %zu %s vectors of %u written to %s\n", table->words.size(), which.c_str(),
               table->dim, output.c_str());
  return 0;
}

} // namespace gridvec
