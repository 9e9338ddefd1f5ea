#include "src/formats/checkpoint_vectors.hpp"

#include <algorithm>
#include <filesystem>

#include <gridvec/core/options.hpp>
#include <gridvec/core/vocabulary.hpp>
#include "src/formats/checkpoint.hpp"
#include "src/model/shard_store.hpp"
#include "src/sgns/huffman_tree.hpp"

namespace gridvec {

expected<checkpoint_model> read_checkpoint_model(const std::string& dir) {
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
  checkpoint_model model;
  model.options = m->options;
  const auto words = static_cast<uint32_t>(vocab->size());
  for (auto* table : {&model.input, &model.output}) {
    table->dim = opt->size;
    table->data.assign(size_t{words} * opt->size, 0.0f);
  }
  for (uint32_t w = 0; w < words; ++w) {
    model.input.words.emplace_back(vocab->word(w));
    model.counts.push_back(vocab->count(w));
  }
  model.output.words = model.input.words;
  const uint32_t dim = opt->size;
  const auto shards = static_cast<uint32_t>(m->shards.size());
  const auto layout = layout_of_shards(opt->partition, shards);
  for (uint32_t s = 0; s < shards; ++s) {
    const auto shape = shard_geometry::of(layout, s, shards, dim);
    const auto slice = shape.columns;
    const uint32_t held = shape.rows_between(0, words);
    const slice_header expect{s,           shards, dim,          slice.first,
                              slice.width, held,   m->vocab_crc, opt->hs ? huffman_tree::inner_nodes_for(words) : 0};
    std::vector<float> u(size_t{held} * slice.width), v(size_t{held + expect.node_rows} * slice.width);
    if (auto r = read_slice_file(dir + "/" + m->shards[s].file, expect, u.data(), v.data()); !r)
      return failure{r.error()};
    for (uint32_t r = 0; r < held; ++r) {
      const uint32_t w = shape.word_of(r);
      std::copy_n(u.data() + size_t{r} * slice.width, slice.width,
                  model.input.data.data() + size_t{w} * dim + slice.first);
      std::copy_n(v.data() + size_t{r} * slice.width, slice.width,
                  model.output.data.data() + size_t{w} * dim + slice.first);
    }
  }
  return model;
}

} // namespace gridvec
