#pragma once
// One host's copy of the whole model in the replicated mode (the GraphWord2Vec paper,
// GraphWord2Vec's RepModel-Opt). The host trains on `store()` with the
// fused kernel (src/sgns/local_trainer.hpp) as if it were alone; `base`
// keeps every row as all hosts had it after the last synchronisation, and
// two bit-vectors with their lists remember which rows this round touched.
// At the round's end:
//   changes(self)   per master m, the touched rows m combines, as changes
//                   (store - base): what this host sends to m; its own
//                   block stays empty;
//   combine(...)    as master: every other host's changes to its rows and
//                   its own (read from store and base, never copied out),
//                   merged by the combiner (model_combiner.hpp), into the
//                   rows' new values (base + combined change), kept here
//                   and returned: what m sends back;
//   apply(...)      a master's new values into store and base.
// Afterwards every host's store and base agree again on every row.
#include <cstdint>
#include <memory>
#include <vector>

#include "src/model/shard_store.hpp"
#include "src/replicated/model_combiner.hpp"
#include "src/replicated/row_block.hpp"
#include <gridvec/core/expected.hpp>
#include "src/util/huge_buffer.hpp"

namespace gridvec {

class replica {
public:
  /// Starts from the initial vectors every shard of `init_seed` starts
  /// from (shard_store's initialisation does not depend on the slicing).
  /// `word_keys`: a stable hash of each word (word_key of its text), which
  /// fixes its rows' master; one host until set_hosts.
  replica(uint32_t dim, std::vector<uint64_t> word_keys, uint64_t init_seed, std::shared_ptr<const noise_sampler> noise,
          std::shared_ptr<const huffman_tree> tree);

  /// The number of hosts: every row's master is then its word's key modulo
  /// it (the input and output rows of a word share one; a -hs 1 node's is
  /// a hash of its row), so masters get frequent and rare words alike.
  void set_hosts(uint32_t hosts);
  uint32_t master_of(bool output, uint32_t id) const {
    return output && id >= word_keys_.size() ? node_masters_[id - word_keys_.size()] : masters_[id];
  }

  /// What this host trains on: all columns of every row.
  const std::shared_ptr<shard_store>& store() const { return store_; }

  /// Remembers the rows a trained minibatch touched: its inputs and every
  /// target (`targets`: the trainer's, in dotprod layout).
  void mark(const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& targets);
  size_t touched_rows() const { return touched_.size(); }

  /// This round's changes, one block per host: block m holds the touched
  /// rows that host m combines. Block `self` (this host's as master) has
  /// no rows: combine reads them from the model, where they are already.
  /// (A round's changes are most of the model: every copy of them is a
  /// pass over tens of megabytes.)
  std::vector<row_block> changes(uint32_t self) const;

  /// As master `self`: every other host's changes (at most one block per
  /// host, any order; this host's own, empty, may be among them) and this
  /// host's own, combined in host order; returns the rows' new values and
  /// keeps them here (a lone host: its rows are the model already, and
  /// the block is empty). Refuses, before combining anything, a block with a
  /// row out of range or of another master, of another width, or rows in
  /// a block from `self`.
  expected<row_block> combine(const std::vector<row_block>& changes, combiner kind, uint32_t self);

  /// New values from a master: into the store and the base.
  status apply(row_block_ref synced);
  status apply(const row_block& synced) { return apply(synced.ref()); }

  /// Columns [first, first + width) of rows [begin, begin + count) as a
  /// shard holds them (`outputs`: output rows), into store and base: a
  /// rollback reloads the model the shards restored.
  void load(bool outputs, uint32_t begin, uint32_t count, uint32_t first, uint32_t width, const float* values);

  /// Forgets what was touched: the next round begins.
  void next_round();

  /// As master: the rows combined here since the last call (those the
  /// shards may not hold yet), with their values now; forgets them. The
  /// shards are written every few rounds, not every round, and then get
  /// every row that changed since.
  row_block unstored_values();
  size_t unstored_rows() const { return unstored_.size(); }
  /// Forgets the rows not yet stored: the model was loaded from the shards.
  void forget_unstored();

private:
  status check_row(bool output, uint32_t id) const;
  status check_changes(const row_block& b, uint32_t self) const;
  float* base_row(bool output, uint32_t id) const;
  float* store_row(bool output, uint32_t id) const;

  uint32_t dim_;
  std::vector<uint64_t> word_keys_;
  std::vector<uint32_t> masters_, node_masters_; // by word, by node
  uint32_t hosts_ = 1;
  std::shared_ptr<shard_store> store_;
  float_buffer base_inputs_, base_outputs_; // none while this host is alone
  // Rows as a set: a bit-vector each (input rows, output rows) says whether
  // a row is in, and their lists walk and clear it in the time of the rows
  // it holds, not of the model.
  struct row_set {
    std::vector<uint64_t> input_bits, output_bits;
    std::vector<uint32_t> inputs, outputs;
    void size_for(uint32_t input_rows, uint32_t output_rows);
    void add(bool output, uint32_t id);
    size_t size() const { return inputs.size() + outputs.size(); }
    void clear();
  };
  row_set touched_;  // by this host's training, this round
  row_set unstored_; // combined here since the shards were last written
  // combine()'s scratch, kept from round to round: a round's rows are most
  // of the model, and fresh buffers of that size cost their page faults
  // every round. A row's slot among the combined rows of its kind (none
  // yet: all ones).
  std::vector<uint32_t> input_slot_, output_slot_;
  std::vector<uint32_t> counts_;
  std::vector<uint8_t> only_own_;
};

} // namespace gridvec
