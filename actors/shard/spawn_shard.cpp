// A shard from its spec: the store of its layout, the service over it
// (src/shard/), its starting values (checkpoint, --init model or initial
// vectors), and its lanes (actors/shard/<layout>_shard.cpp).
#include <gridvec/roles/shard.hpp>

#include "actors/shard/layouts.hpp"
#include <gridvec/roles/vocabulary.hpp>
#include "src/formats/model_dir.hpp"
#include "src/sgns/noise_sampler.hpp"

namespace gridvec {

namespace {

// --init: the saved model's rows of this shard's columns, over the initial
// vectors of the words it knows (new words keep theirs).
status init_from_model(shard_store& store, const vocabulary& vocab, const std::string& model) {
  const auto slice = store.slice();
  if (auto m = read_model_manifest(model); !m)
    return failure{m.error()};
  else if (m->dim != store.dim())
    return failure{"--init " + model + " holds vectors of " + std::to_string(m->dim) + " columns, this job -size " +
                   std::to_string(store.dim())};
  if (auto n = load_model_columns(model_files::input(model), vocab, slice.first, slice.width, store.input_data()); !n)
    return failure{n.error()};
  if (auto n = load_model_columns(model_files::output(model), vocab, slice.first, slice.width, store.output_data()); !n)
    return failure{n.error()};
  return {};
}

// --init matches the model's rows to ids by word: only then are the
// vocabulary's words loaded, and only while the rows are read.
shard_service::initial_rows initial_rows_of(const shard_spec& spec, std::function<expected<vocabulary_ptr>()> words) {
  if (spec.init_model.empty())
    return {};
  if (!words)
    words = [path = spec.vocabulary] { return load_shared_vocabulary(path); };
  return [words, model = spec.init_model](shard_store& store) -> status {
    auto vocab = words();
    if (!vocab)
      return failure{vocab.error()};
    return init_from_model(store, **vocab, model);
  };
}

template <class Service>
expected<std::shared_ptr<Service>> started(std::shared_ptr<Service> service, const shard_spec& spec) {
  if (auto s = service->start_from(spec.checkpoint); !s)
    return failure{s.why()};
  return service;
}

} // namespace

expected<shard_info> spawn_shard(caf::actor_system& sys, const shard_spec& spec, vocabulary_ptr vocab_ptr,
                                 std::shared_ptr<const noise_sampler> noise, lane_thread where) {
  auto counts = std::make_shared<const vocabulary_counts>(vocabulary_counts::of(*vocab_ptr, spec.vocab_crc));
  return spawn_shard(sys, spec, counts, std::move(noise), where,
                     [vocab_ptr]() -> expected<vocabulary_ptr> { return vocab_ptr; });
}

expected<shard_info> spawn_shard(caf::actor_system& sys, const shard_spec& spec, vocabulary_counts_ptr counts,
                                 std::shared_ptr<const noise_sampler> noise, lane_thread where,
                                 std::function<expected<vocabulary_ptr>()> words) {
  const vocabulary_counts& vocab = *counts;
  if (spec.count == 0 || spec.index >= spec.count || spec.count > spec.dim || spec.lanes == 0)
    return failure{"invalid shard layout: shard " + std::to_string(spec.index) + " of " + std::to_string(spec.count) +
                   " for dimension " + std::to_string(spec.dim)};
  const bool network = where == lane_thread::network;
  shard_info info;
  info.index = spec.index;
  info.layout = spec.layout;
  if (spec.layout == shard_layout::rows) {
    // Whole rows of word w mod count; this partition's sampler only,
    // O(p + V/p) (the Distributed negative sampling paper).
    if (spec.hierarchical || !spec.init_model.empty())
      return failure{"--partition words trains neither -hs 1 nor from --init"};
    auto store = std::make_shared<shard_store>(word_rows{spec.index, spec.count}, spec.dim, vocab.size(), spec.seed);
    const slice_header header{spec.index, spec.count, spec.dim, 0, spec.dim, store->held_rows(), spec.vocab_crc, 0};
    auto service = started(std::make_shared<row_service>(store, header, spec.seed, vocab.counts,
                                                         static_cast<negatives_mode>(spec.negatives_mode)),
                           spec);
    if (!service)
      return failure{service.why()};
    info.sampling_bytes = info.partition_sampling_bytes = (*service)->own.bytes();
    info.first = 0;
    info.width = spec.dim;
    info.lanes = spawn_row_lanes(sys, *service, spec.lanes, network);
    return info;
  }
  // A column slice, of the columns or the replicated layout.
  const auto slice = column_slice::of(spec.index, spec.count, spec.dim);
  if (!noise)
    noise =
      std::make_shared<const noise_sampler>(vocab.counts, noise_spec{static_cast<negatives_mode>(spec.negatives_mode),
                                                                     spec.hierarchical_sampler, spec.word_partitions});
  info.sampling_bytes = noise->bytes();
  info.partition_sampling_bytes = noise->partition_bytes(spec.index);
  std::shared_ptr<const huffman_tree> tree;
  if (spec.hierarchical)
    tree = shared_huffman_tree(counts);
  auto store =
    std::make_shared<shard_store>(spec.index, spec.count, spec.dim, vocab.size(), spec.seed, std::move(noise), tree);
  const slice_header header{spec.index,  spec.count,   spec.dim,       slice.first,
                            slice.width, vocab.size(), spec.vocab_crc, store->node_rows()};
  info.first = slice.first;
  info.width = slice.width;
  auto init = initial_rows_of(spec, std::move(words));
  if (spec.layout == shard_layout::replica) {
    auto service = started(std::make_shared<replica_service>(store, header, spec.seed, std::move(init)), spec);
    if (!service)
      return failure{service.why()};
    info.lanes = spawn_replica_lanes(sys, *service, spec.lanes, network);
    return info;
  }
  auto service = started(std::make_shared<column_service>(store, header, spec.seed, std::move(init)), spec);
  if (!service)
    return failure{service.why()};
  info.lanes = spawn_column_lanes(sys, *service, spec.lanes, network);
  return info;
}

} // namespace gridvec
