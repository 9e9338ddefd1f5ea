// A shard from its spec: checked, then made by its layout's entry
// (actors/layouts/: its store, service and lanes); and what the layouts'
// shards share (shard_start.hpp): --init's rows and the store of a column
// slice.
#include <gridvec/roles/shard.hpp>

#include <spdlog/spdlog.h>

#include "actors/layouts/layouts.hpp"
#include "actors/shard/shard_start.hpp"
#include <gridvec/roles/vocabulary.hpp>
#include "src/formats/model_dir.hpp"
#include "src/sgns/noise_sampler.hpp"

namespace gridvec {

namespace {

// --init: the model's manifest against this store.
status check_model(const shard_store& store, const std::string& model) {
  if (auto m = read_model_manifest(model); !m)
    return failure{m.error()};
  else if (m->dim != store.dim())
    return failure{"--init " + model + " holds vectors of " + std::to_string(m->dim) + " columns, this job -size " +
                   std::to_string(store.dim())};
  return {};
}

// --init: the saved model's rows of this shard's columns, over the initial
// vectors of the words it knows (new words keep theirs), matched by word.
status init_from_model(shard_store& store, const vocabulary& vocab, const std::string& model) {
  const auto slice = store.slice();
  if (auto s = check_model(store, model); !s)
    return s;
  if (auto n = load_model_columns(model_files::input(model), vocab, slice.first, slice.width, store.input_data()); !n)
    return failure{n.error()};
  if (auto n = load_model_columns(model_files::output(model), vocab, slice.first, slice.width, store.output_data()); !n)
    return failure{n.error()};
  return {};
}

// The same rows placed by the row map the coordinator had made while the
// vocabulary partitions held the words: no word is loaded here.
status init_from_row_map(shard_store& store, uint32_t index, const std::string& model, const std::string& row_map,
                         uint64_t vocab_crc) {
  const auto slice = store.slice();
  if (auto s = check_model(store, model); !s)
    return s;
  auto found = load_model_columns_by_row_map(model_files::input(model), row_map, store.vocab_size(), vocab_crc,
                                             slice.first, slice.width, store.input_data());
  if (!found)
    return failure{found.error()};
  if (auto n = load_model_columns_by_row_map(model_files::output(model), row_map, store.vocab_size(), vocab_crc,
                                             slice.first, slice.width, store.output_data());
      !n)
    return failure{n.error()};
  spdlog::info("shard {}: --init: {} of the model's rows placed by the row map {}", index, *found, row_map);
  return {};
}

} // namespace

shard_service::initial_rows initial_rows_of(const shard_spec& spec, const shard_inputs& in) {
  if (spec.init_model.empty())
    return {};
  if (!spec.init_rows.empty())
    return [index = spec.index, model = spec.init_model, rows = spec.init_rows, crc = spec.vocab_crc](
             shard_store& store) -> status { return init_from_row_map(store, index, model, rows, crc); };
  auto words = in.words;
  if (!words)
    words = [path = spec.vocabulary] { return load_shared_vocabulary(path); };
  return [words, model = spec.init_model](shard_store& store) -> status {
    auto vocab = words();
    if (!vocab)
      return failure{vocab.error()};
    return init_from_model(store, **vocab, model);
  };
}

std::shared_ptr<shard_store> column_slice_store(const shard_spec& spec, const shard_inputs& in, shard_info& info,
                                                slice_header& header) {
  const auto slice = column_slice::of(spec.index, spec.count, spec.dim);
  auto noise = in.noise;
  if (!noise)
    noise = std::make_shared<const noise_sampler>(
      in.counts->counts,
      noise_spec{static_cast<negatives_mode>(spec.negatives_mode), spec.hierarchical_sampler, spec.word_partitions});
  info.sampling_bytes = noise->bytes();
  info.partition_sampling_bytes = noise->partition_bytes(spec.index);
  std::shared_ptr<const huffman_tree> tree;
  if (spec.hierarchical)
    tree = shared_huffman_tree(in.counts);
  const auto words = static_cast<uint32_t>(in.counts->size());
  auto store =
    std::make_shared<shard_store>(spec.index, spec.count, spec.dim, words, spec.seed, std::move(noise), tree);
  header =
    slice_header{spec.index, spec.count, spec.dim, slice.first, slice.width, words, spec.vocab_crc, store->node_rows()};
  info.first = slice.first;
  info.width = slice.width;
  return store;
}

expected<shard_info> spawn_shard(caf::actor_system& sys, const shard_spec& spec, vocabulary_ptr vocab_ptr,
                                 std::shared_ptr<const noise_sampler> noise, lane_thread where) {
  auto counts = std::make_shared<const vocabulary_counts>(vocabulary_counts::of(*vocab_ptr, spec.vocab_crc));
  return spawn_shard(sys, spec, counts, std::move(noise), where,
                     [vocab_ptr]() -> expected<vocabulary_ptr> { return vocab_ptr; });
}

expected<shard_info> spawn_shard(caf::actor_system& sys, const shard_spec& spec, vocabulary_counts_ptr counts,
                                 std::shared_ptr<const noise_sampler> noise, lane_thread where,
                                 std::function<expected<vocabulary_ptr>()> words) {
  if (spec.count == 0 || spec.index >= spec.count || spec.count > spec.dim || spec.lanes == 0)
    return failure{"invalid shard layout: shard " + std::to_string(spec.index) + " of " + std::to_string(spec.count) +
                   " for dimension " + std::to_string(spec.dim)};
  if (static_cast<uint8_t>(spec.layout) > last_shard_layout)
    return failure{"invalid shard layout " + std::to_string(static_cast<uint8_t>(spec.layout))};
  const shard_inputs in{std::move(counts), std::move(noise), where, std::move(words)};
  auto info = layout_entry_of(spec.layout).spawn(sys, spec, in);
  if (!info)
    return info;
  info->index = spec.index;
  info->layout = spec.layout;
  return info;
}

} // namespace gridvec
