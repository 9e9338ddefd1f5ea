#pragma once
// (Internal to the spawning of shards: actors/shard/spawn_shard.cpp and
// each layout's shard file under actors/layouts/.) What every layout's
// shard starts from: its inputs, its store of a column slice (columns and
// replica), its service started from its checkpoint or --init.
#include <functional>
#include <memory>

#include <gridvec/protocol.hpp>
#include <gridvec/roles/shard.hpp>
#include "src/shard/shard_service.hpp"
#include "src/sgns/noise_sampler.hpp"

namespace gridvec {

/// What a shard is made from, besides its spec.
struct shard_inputs {
  vocabulary_counts_ptr counts;
  std::shared_ptr<const noise_sampler> noise; // the job's, shared in one process; null: the shard makes its own
  lane_thread where = lane_thread::workers;
  std::function<expected<vocabulary_ptr>()> words; // the vocabulary's words, for --init
  bool network() const { return where == lane_thread::network; }
};

/// --init's rows: placed by the spec's row map (init_rows) where the
/// coordinator had one made, else matched to ids by word (the vocabulary's
/// words loaded only while they are read); empty without --init.
shard_service::initial_rows initial_rows_of(const shard_spec& spec, const shard_inputs& in);

/// A column slice of every row, with the noise sampler and Huffman tree
/// the spec asks for; sets the info's columns and sampling bytes, and the
/// header its service checks slice files against.
std::shared_ptr<shard_store> column_slice_store(const shard_spec& spec, const shard_inputs& in, shard_info& info,
                                                slice_header& header);

/// `service` started from the spec's checkpoint (or left at its initial
/// rows when there is none).
template <class Service>
expected<std::shared_ptr<Service>> started(std::shared_ptr<Service> service, const shard_spec& spec) {
  if (auto s = service->start_from(spec.checkpoint); !s)
    return failure{s.why()};
  return service;
}

/// A shard of a column slice (the columns and replica layouts): its store,
/// its Service started, and the lanes `spawn_lanes(service)` spawns.
template <class Service, class SpawnLanes>
expected<shard_info> spawn_column_slice(const shard_spec& spec, const shard_inputs& in, SpawnLanes spawn_lanes) {
  shard_info info;
  slice_header header;
  auto store = column_slice_store(spec, in, info, header);
  auto shard = started(std::make_shared<Service>(store, header, spec.seed, initial_rows_of(spec, in)), spec);
  if (!shard)
    return failure{shard.why()};
  info.lanes = spawn_lanes(*shard);
  return info;
}

} // namespace gridvec
