#include <gridvec/roles/shard.hpp>

#include <cstring>

#include <caf/io/middleman.hpp>
#include <caf/io/typed_broker.hpp>

#include <atomic>
#include <functional>

#include "actors/local_lanes.hpp"
#include "actors/shard_word_split.hpp"
#include <gridvec/roles/vocabulary.hpp>
#include "src/formats/checkpoint.hpp"
#include "src/formats/model_dir.hpp"
#include "src/formats/wire.hpp"
#include "src/replicated/row_block.hpp"
#include "src/model/sgns_operations.hpp"
#include "src/sgns/noise_sampler.hpp"
#include "src/model/similarity.hpp"

namespace gridvec {

namespace {

// What the lanes of one shard share.
struct shard_core {
  std::shared_ptr<shard_store> store;
  slice_header header; // identity of its checkpoint files
  uint64_t init_seed = 0;
  // --init: puts the saved model's rows over the initial vectors (at the
  // start, and again when a rollback resets the shard); empty otherwise.
  std::function<status(shard_store&)> init_from_model;
  std::atomic<uint64_t> requests{0};
  // --partition words: the shard holds whole rows and trains through the
  // word split's exchange (actors/shard_word_split.hpp); null otherwise.
  std::shared_ptr<word_split_part> split;
};

// The messages of one layout refused by a shard of the other, in one line.
caf::error needs_columns(const shard_core& core) {
  return make_job_error("shard " + std::to_string(core.header.shard) +
                        " holds whole rows (--partition words): it trains through splittrain, not dotprod/adjust");
}
caf::error needs_rows(const shard_core& core) {
  return make_job_error("shard " + std::to_string(core.header.shard) +
                        " holds a column slice: splittrain, visit and peers are for --partition words");
}

struct lane_state {
  std::shared_ptr<shard_core> core;
  // Set on the network thread: the worker lane that does the slow requests.
  shard_actor slow;
  // The lane's buffers for the model's operations (sgns_operations.hpp).
  std::unique_ptr<sgns_buffers> buffers;
  // A step's parts: its adjusts (minibatch and weights) and its dotprods.
  std::vector<minibatch> adjust_batches;
  std::vector<std::vector<float>> adjust_weights;
  std::vector<minibatch> dotprod_batches;
  static inline const char* name = "shard";
};

status check_words(const shard_store& store, const std::vector<uint32_t>& words) {
  for (uint32_t w : words)
    if (w >= store.vocab_size())
      return failure{"word id " + std::to_string(w) + " is outside the vocabulary"};
  return {};
}

// Decodes and checks every part of a step into the lane's buffers.
status decode_step(lane_state& st, const std::vector<wire_bytes>& adjusts, const std::vector<wire_bytes>& dotprods) {
  const shard_store& store = *st.core->store;
  // Buffers only grow, so a steady stream of steps allocates nothing.
  if (st.adjust_batches.size() < adjusts.size()) {
    st.adjust_batches.resize(adjusts.size());
    st.adjust_weights.resize(adjusts.size());
  }
  if (st.dotprod_batches.size() < dotprods.size())
    st.dotprod_batches.resize(dotprods.size());
  for (size_t i = 0; i < adjusts.size(); ++i)
    if (auto s = decode_sgns_adjust(store, adjusts[i], st.adjust_batches[i], st.adjust_weights[i]); !s)
      return s;
  for (size_t i = 0; i < dotprods.size(); ++i)
    if (auto s = decode_sgns_dotprod(store, dotprods[i], st.dotprod_batches[i]); !s)
      return s;
  return {};
}

caf::result<wire_bytes> read_rows(const shard_store& store, uint32_t begin, uint32_t end, bool output) {
  // Output rows go on past the vocabulary with -hs 1 (the tree's nodes).
  if (begin > end || end > (output ? store.output_rows() : store.vocab_size()))
    return make_job_error("rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                          ") are outside the vocabulary");
  wire_bytes out(size_t{store.rows_held_in(begin, end)} * store.slice().width * sizeof(float));
  auto* rows = reinterpret_cast<float*>(out.data());
  if (output)
    store.read_output_rows(begin, end, rows);
  else
    store.read_input_rows(begin, end, rows);
  return out;
}

// --partition replicated: a master's new values of rows, this shard's
// columns. Checked whole before anything is written.
status store_rows(shard_store& store, const wire_bytes& bytes) {
  row_block b;
  if (auto s = decode_row_block(bytes, b); !s)
    return s;
  const auto slice = store.slice();
  if (b.first_column != slice.first || b.width != slice.width)
    return failure{"row block of columns [" + std::to_string(b.first_column) + ", " +
                   std::to_string(b.first_column + b.width) + ") sent to the shard of columns [" +
                   std::to_string(slice.first) + ", " + std::to_string(slice.first + slice.width) + ")"};
  for (uint32_t u : b.inputs)
    if (u >= store.vocab_size())
      return failure{"row block: input row " + std::to_string(u) + " is outside the vocabulary"};
  for (uint32_t v : b.outputs)
    if (v >= store.output_rows())
      return failure{"row block: output row " + std::to_string(v) + " is outside the model"};
  for (size_t i = 0; i < b.inputs.size(); ++i)
    std::memcpy(store.input_row(b.inputs[i]), b.input_value(i), b.width * sizeof(float));
  for (size_t i = 0; i < b.outputs.size(); ++i)
    std::memcpy(store.output_row(b.outputs[i]), b.output_value(i), b.width * sizeof(float));
  return {};
}

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

// One lane, as an actor on the workers (`Self` a stateful actor pointer) or
// as a broker on the network thread (a stateful broker pointer, with `slow`
// the worker lane its slow requests are delegated to).
template <class Self>
shard_actor::behavior_type lane_behavior(Self self, std::shared_ptr<shard_core> core, shard_actor slow) {
  self->set_default_handler(caf::drop); // unexpected messages: an error reply, never printed (node_actor.cpp)
  auto& st = self->state;
  st.buffers = std::make_unique<sgns_buffers>(core->store->slice().width);
  st.core = std::move(core);
  if (slow) {
    // The lanes of a shard live and die together.
    self->link_to(slow);
    st.slow = std::move(slow);
  }
  return {
    [self](dotprod_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
      auto& st = self->state;
      st.core->requests.fetch_add(1, std::memory_order_relaxed);
      if (st.core->split)
        return needs_columns(*st.core);
      auto& b = *st.buffers;
      if (auto s = decode_sgns_dotprod(*st.core->store, request, b.batch); !s)
        return make_job_error(s.error());
      return run_sgns_dotprod(*st.core->store, b.batch, b);
    },
    [self](adjust_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
      auto& st = self->state;
      st.core->requests.fetch_add(1, std::memory_order_relaxed);
      if (st.core->split)
        return needs_columns(*st.core);
      auto& b = *st.buffers;
      if (auto s = decode_sgns_adjust(*st.core->store, request, b.batch, b.floats); !s)
        return make_job_error(s.error());
      return run_sgns_adjust(*st.core->store, b.batch, b.floats.data(), b);
    },
    [self](step_atom, const std::vector<wire_bytes>& adjusts,
           const std::vector<wire_bytes>& dotprods) -> caf::result<std::vector<wire_bytes>> {
      auto& st = self->state;
      st.core->requests.fetch_add(adjusts.size() + dotprods.size(), std::memory_order_relaxed);
      if (st.core->split)
        return needs_columns(*st.core);
      // Every part is checked before anything is applied.
      if (auto s = decode_step(st, adjusts, dotprods); !s)
        return make_job_error(s.error());
      auto& store = *st.core->store;
      for (size_t i = 0; i < adjusts.size(); ++i)
        apply_sgns_adjust(store, st.adjust_batches[i], st.adjust_weights[i].data(), *st.buffers);
      std::vector<wire_bytes> replies;
      replies.reserve(dotprods.size());
      for (size_t i = 0; i < dotprods.size(); ++i)
        replies.push_back(run_sgns_dotprod(store, st.dotprod_batches[i], *st.buffers));
      return replies;
    },
    [self](rows_atom a, uint32_t begin, uint32_t end) -> caf::result<wire_bytes> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, begin, end);
      return read_rows(*self->state.core->store, begin, end, false);
    },
    [self](rows_atom a, uint32_t begin, uint32_t end, bool output) -> caf::result<wire_bytes> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, begin, end, output);
      return read_rows(*self->state.core->store, begin, end, output);
    },
    [self](split_train_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
      auto& core = *self->state.core;
      core.requests.fetch_add(1, std::memory_order_relaxed);
      if (!core.split)
        return needs_rows(core);
      return train_share(self, core.split, request);
    },
    [self](visit_atom, const wire_bytes& request) -> caf::result<wire_bytes> {
      auto& core = *self->state.core;
      core.requests.fetch_add(1, std::memory_order_relaxed);
      if (!core.split)
        return needs_rows(core);
      auto reply = core.split->serve(request);
      if (!reply)
        return make_job_error(reply.error());
      return std::move(*reply);
    },
    [self](peers_atom, const std::vector<caf::actor>& peers) -> caf::result<bool> {
      auto& core = *self->state.core;
      if (!core.split)
        return needs_rows(core);
      if (auto s = core.split->set_peers(peers); !s)
        return make_job_error(s.error());
      return true;
    },
    [self](similar_atom a, const wire_bytes& query) -> caf::result<wire_bytes> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, query);
      auto& core = *self->state.core;
      if (!core.split)
        return needs_rows(core);
      auto out = core.split->similar(query);
      if (!out)
        return make_job_error(out.error());
      return float_bytes(*out);
    },
    [self](store_rows_atom a, const wire_bytes& block) -> caf::result<bool> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, block);
      if (self->state.core->split)
        return needs_columns(*self->state.core);
      if (auto s = store_rows(*self->state.core->store, block); !s)
        return make_job_error(s.error());
      return true;
    },
    [](sync_atom) { return true; },
    [self](save_atom a, const std::string& path, uint64_t vocab_crc) -> caf::result<file_digest> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, path, vocab_crc);
      auto& core = *self->state.core;
      if (vocab_crc != core.header.vocab_crc)
        return make_job_error("shard " + std::to_string(core.header.shard) + " holds another vocabulary");
      auto digest = write_slice_file(path, core.header, core.store->input_data(), core.store->output_data());
      if (!digest)
        return make_job_error(digest.error());
      return *digest;
    },
    [self](load_atom a, const std::string& path, uint64_t vocab_crc) -> caf::result<bool> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, path, vocab_crc);
      auto& core = *self->state.core;
      slice_header expect = core.header;
      expect.vocab_crc = vocab_crc;
      if (auto s = read_slice_file(path, expect, core.store->input_data(), core.store->output_data()); !s)
        return make_job_error(s.error());
      return true;
    },
    [self](reset_atom a) -> caf::result<bool> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a);
      auto& core = *self->state.core;
      core.store->reset(core.init_seed);
      if (core.init_from_model)
        if (auto s = core.init_from_model(*core.store); !s)
          return make_job_error(s.error());
      return true;
    },
    [self](stats_atom) {
      auto& core = *self->state.core;
      return shard_counters{core.requests.load(std::memory_order_relaxed), core.store->bytes()};
    },
    [self](norms_atom a, const std::vector<uint32_t>& words) -> caf::result<wire_bytes> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, words);
      auto& store = *self->state.core->store;
      if (auto s = check_words(store, words); !s)
        return make_job_error(s.error());
      if (self->state.core->split)
        return float_bytes(self->state.core->split->norms(words));
      return float_bytes(partial_norms(store, words));
    },
    [self](similar_atom a, const std::vector<uint32_t>& words,
           const wire_bytes& weight_bytes) -> caf::result<wire_bytes> {
      if (self->state.slow)
        return self->delegate(self->state.slow, a, words, weight_bytes);
      auto& store = *self->state.core->store;
      if (self->state.core->split)
        return make_job_error("shard " + std::to_string(self->state.core->header.shard) +
                              " holds whole rows: send it the query vector");
      auto weights = floats_of(weight_bytes);
      if (!weights)
        return make_job_error(weights.error());
      if (weights->size() != words.size())
        return make_job_error("similar: " + std::to_string(words.size()) + " words but " +
                              std::to_string(weights->size()) + " weights");
      if (auto s = check_words(store, words); !s)
        return make_job_error(s.error());
      return float_bytes(partial_similarity(store, words, *weights));
    },
  };
}

// One lane over the shard of `core`.
shard_actor spawn_shard_lane(caf::actor_system& sys, std::shared_ptr<shard_core> core) {
  auto store = core->store;
  auto lane = sys.spawn(lane_behavior<shard_actor::stateful_pointer<lane_state>>, std::move(core), shard_actor{});
  register_local_lane(lane, store); // learners of this process may train on it directly
  return lane;
}

shard_actor spawn_network_lane(caf::actor_system& sys, std::shared_ptr<shard_core> core, shard_actor slow) {
  auto store = core->store;
  auto lane = sys.middleman().spawn_broker(lane_behavior<shard_actor::stateful_broker_pointer<lane_state>>,
                                           std::move(core), std::move(slow));
  register_local_lane(lane, store);
  return lane;
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
  auto core = std::make_shared<shard_core>();
  core->init_seed = spec.seed;
  uint64_t sampling_bytes = 0, partition_sampling_bytes = 0;
  if (spec.holds_rows) {
    // --partition words: whole rows of word w mod count; this partition's
    // sampler only, O(p + V/p) (the Distributed negative sampling paper).
    if (spec.hierarchical || !spec.init_model.empty())
      return failure{"--partition words trains neither -hs 1 nor from --init"};
    core->store = std::make_shared<shard_store>(word_rows{spec.index, spec.count}, spec.dim, vocab.size(), spec.seed);
    core->split =
      std::make_shared<word_split_part>(*core->store, vocab.counts, static_cast<negatives_mode>(spec.negatives_mode));
    sampling_bytes = partition_sampling_bytes = core->split->own.bytes();
    core->header =
      slice_header{spec.index, spec.count, spec.dim, 0, spec.dim, core->store->held_rows(), spec.vocab_crc, 0};
  } else {
    auto slice = column_slice::of(spec.index, spec.count, spec.dim);
    if (!noise)
      noise = std::make_shared<const noise_sampler>(
        vocab.counts,
        noise_spec{static_cast<negatives_mode>(spec.negatives_mode), spec.hierarchical_sampler, spec.word_partitions});
    std::shared_ptr<const huffman_tree> tree;
    if (spec.hierarchical)
      tree = shared_huffman_tree(counts);
    sampling_bytes = noise->bytes();
    partition_sampling_bytes = noise->partition_bytes(spec.index);
    core->store =
      std::make_shared<shard_store>(spec.index, spec.count, spec.dim, vocab.size(), spec.seed, std::move(noise), tree);
    core->header = slice_header{spec.index,  spec.count,   spec.dim,       slice.first,
                                slice.width, vocab.size(), spec.vocab_crc, core->store->node_rows()};
  }
  // --init matches the model's rows to ids by word: only then are the
  // vocabulary's words loaded, and only while the rows are read.
  if (!spec.init_model.empty()) {
    if (!words)
      words = [path = spec.vocabulary] { return load_shared_vocabulary(path); };
    core->init_from_model = [words, model = spec.init_model](shard_store& store) -> status {
      auto vocab = words();
      if (!vocab)
        return failure{vocab.error()};
      return init_from_model(store, **vocab, model);
    };
  }
  if (!spec.checkpoint.empty()) {
    if (auto s = read_slice_file(spec.checkpoint, core->header, core->store->input_data(), core->store->output_data());
        !s)
      return failure{s.error()};
  } else if (core->init_from_model) {
    if (auto s = core->init_from_model(*core->store); !s)
      return failure{s.error()};
  }
  shard_info info;
  info.index = spec.index;
  info.first = core->store->slice().first;
  info.width = core->store->slice().width;
  info.holds_rows = spec.holds_rows;
  info.sampling_bytes = sampling_bytes;
  info.partition_sampling_bytes = partition_sampling_bytes;
  if (where == lane_thread::network && sys.has_middleman()) {
    auto slow = spawn_shard_lane(sys, core);
    for (uint32_t i = 0; i < spec.lanes; ++i)
      info.lanes.push_back(spawn_network_lane(sys, core, slow));
    return info;
  }
  for (uint32_t i = 0; i < spec.lanes; ++i)
    info.lanes.push_back(spawn_shard_lane(sys, core));
  return info;
}

} // namespace gridvec
