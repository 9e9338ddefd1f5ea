#pragma once
// One shard's part of the model: columns [first, first + width) of the input
// vectors u and output vectors v of every vocabulary word (the Network-efficient word2vec paper,
// section 5). Their memory is one dense, columns-layout table_slice
// (model(): rows 0..V-1 are u, rows V.. are v), the storage a columns
// table of src/table/ has; the table service does not serve it. This class computes the shard's side of the two
// training RPCs (the Network-efficient word2vec paper, Figures 5 and 6), which a shard lane calls
// through src/shard/column_service.hpp:
//   dotprod: partial dot products u_s . v_s for every positive pair and
//            every noise word, noise words drawn from the request's seed;
//   adjust:  regenerates the same noise words and adds the weighted partial
//            vectors, all updates of the call applied at its end.
// With -hs 1 it also holds the output vectors of the Huffman tree's V - 1
// inner nodes (word2vec.c's syn1), as output rows V .. 2V-2: a pair's
// targets are then its output word's path (src/sgns/minibatch.hpp).
// Several callers may run dotprod/adjust at once without locks (Hogwild),
// each with its own adjust_scratch. A learner in the same process may also
// train on the store directly (src/sgns/local_trainer.hpp).
#include <cstdint>
#include <memory>
#include <vector>

#include "src/model/last_visits.hpp"
#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/huffman_tree.hpp"
#include <gridvec/core/expected.hpp>
#include "src/util/huge_buffer.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/sgns/weight_refresh.hpp"
#include <gridvec/core/shard_layout.hpp>
#include <gridvec/core/table_slice.hpp>

namespace gridvec {

/// The table that holds an SGNS model of `dim` columns: a dense matrix of
/// the `vocab_size` input rows, then the output rows (one per word, and one
/// per Huffman inner node with -hs 1), split by columns over the shards.
table_spec sgns_model_spec(uint32_t dim, uint32_t vocab_size, uint32_t node_rows);

/// Per-caller buffers for adjust, reused across calls: steady state
/// allocates nothing.
struct adjust_scratch {
  explicit adjust_scratch(uint32_t width) : hidden(width) {}
  std::vector<uint32_t> targets; // output word of every dot product
  std::vector<float> errors;     // input-side delta, one row per example
  std::vector<float> inputs;     // CBOW: the mean input row of every example
  std::vector<float> hidden;
  std::vector<float> fresh;    // refreshed weights (src/sgns/weight_refresh.hpp)
  std::vector<uint8_t> labels; // per dot product, for the refresh
  // Which dot products are their row's last in the call, and the
  // output-side updates deferred until after the rows' last reads.
  last_visits last;
  struct deferred_update {
    uint32_t target;    // index of the dot product
    const float* input; // the example's input row (or mean)
  };
  std::vector<deferred_update> deferred;
  // Shared negatives: a window's rows and its contexts' deltas.
  std::vector<float*> in_rows, out_rows;
  std::vector<float> delta;
};

class shard_store {
public:
  /// Shard `shard` of `shards` of a model of `dim` columns. u is
  /// initialised as word2vec.c does, (uniform - 0.5) / dim, from a hash of
  /// (seed, word, global column), so every sharding gets the same start; v
  /// starts at zero. `tree`: the job's Huffman tree if it trains with
  /// hierarchical softmax.
  shard_store(uint32_t shard, uint32_t shards, uint32_t dim, uint32_t vocab_size, uint64_t init_seed,
              std::shared_ptr<const noise_sampler> noise, std::shared_ptr<const huffman_tree> tree = nullptr);
  /// Shard `rows.partition` of a model split by word: the whole rows of
  /// its words, initialised as every layout's (the same hash of seed, word
  /// and column). It draws no noise words (its partition's sampler lives
  /// beside it, src/model/word_split.hpp) and has no Huffman tree.
  shard_store(word_rows rows, uint32_t dim, uint32_t vocab_size, uint64_t init_seed);
  shard_store(const shard_store&) = delete;
  shard_store& operator=(const shard_store&) = delete;

  /// The model's table slice: its rows are this store's u and v.
  const std::shared_ptr<table_slice>& model() const { return model_; }

  column_slice slice() const { return slice_; }
  uint32_t vocab_size() const { return vocab_size_; }
  uint32_t dim() const { return dim_; }
  /// Output rows: one per word, then one per inner node with -hs 1.
  uint32_t output_rows() const { return vocab_size_ + node_rows(); }
  uint32_t node_rows() const { return tree_ ? tree_->inner_nodes() : 0; }
  const huffman_tree* tree() const { return tree_.get(); }
  uint64_t bytes() const { return (uint64_t{held_rows()} + held_output_rows()) * slice_.width * sizeof(float); }

  /// Whether this shard holds whole rows of its words (--partition words)
  /// rather than a column slice of every word; and which.
  bool holds_rows() const { return rows_.partitions > 1; }
  word_rows rows_layout() const { return rows_; }
  shard_geometry geometry() const { return {slice_, rows_}; }
  /// Input rows in input_data(): the vocabulary, or this shard's words.
  uint32_t held_rows() const { return rows_.rows_below(vocab_size_); }
  /// Output rows in output_data().
  uint32_t held_output_rows() const { return holds_rows() ? held_rows() : output_rows(); }

  /// Checks ids and shape against this store (the message came from
  /// outside), and attaches the store's Huffman tree to a minibatch that
  /// asks for hierarchical softmax.
  status validate(minibatch& mb) const;

  /// Writes mb.dot_count() partial dot products to `dots`; if `drawn` is
  /// given, appends the target of every dot product to it (for adjust).
  void dotprod(const minibatch& mb, float* dots, std::vector<float>& hidden,
               std::vector<uint32_t>* drawn = nullptr) const;

  /// Applies weights (one per dot product, layout of dotprod). Every read
  /// sees the vectors as they were when the call began. `drawn`: the
  /// targets dotprod recorded for this minibatch, if kept; else they are
  /// drawn again from the seed. `partials`: this shard's dot products as
  /// dotprod took them, if kept; with them, and a staleness over 1 (the
  /// protocol path), the weights are first refreshed for the rows as they
  /// are now (src/sgns/weight_refresh.hpp).
  void adjust(const minibatch& mb, const float* weights, adjust_scratch& scratch,
              const std::vector<uint32_t>* drawn = nullptr, const float* partials = nullptr);

  /// Back to the initial vectors of `init_seed`, as the constructor makes
  /// them (a rollback to the start of a run that has no checkpoint).
  void reset(uint64_t init_seed);

  /// The whole slices, vocab_size (u) and output_rows (v) x width floats
  /// (checkpoints).
  float* input_data() { return u_; }
  float* output_data() { return v_; }
  const float* input_data() const { return u_; }
  const float* output_data() const { return v_; }

  /// Copies the slice of input vectors of words [begin, end), row-major.
  /// A shard that holds rows copies the rows it holds of those words,
  /// rows_held_in(begin, end) of them.
  void read_input_rows(uint32_t begin, uint32_t end, float* out) const;
  /// ... and of output vectors (a saved model keeps both).
  void read_output_rows(uint32_t begin, uint32_t end, float* out) const;
  uint32_t rows_held_in(uint32_t begin, uint32_t end) const { return geometry().rows_between(begin, end); }

  /// Row r of input_data() and output_data(): word r's, or with rows held
  /// the r-th word this shard holds (word_rows::local).
  float* input_row(uint32_t w) { return u_ + size_t{w} * slice_.width; }
  float* output_row(uint32_t w) { return v_ + size_t{w} * slice_.width; }
  const float* input_row(uint32_t w) const { return u_ + size_t{w} * slice_.width; }
  const float* output_row(uint32_t w) const { return v_ + size_t{w} * slice_.width; }

  /// The next noise word for a pair whose positive output is `positive`;
  /// dotprod, adjust and the local trainer draw them in the same order.
  uint32_t draw_negative(rng& r, uint32_t positive) const { return noise_->draw_one(r, positive); }
  /// The sampler of noise words (src/sgns/noise_sampler.hpp).
  const noise_sampler& noise() const { return *noise_; }

  /// Appends the output rows of the inner nodes on `output`'s Huffman path
  /// (-hs 1), root first.
  void append_path(uint32_t output, std::vector<uint32_t>& targets) const {
    const uint32_t* node = tree_->points(output);
    for (uint32_t d = 0; d < tree_->length(output); ++d)
      targets.push_back(vocab_size_ + node[d]);
  }

  /// Appends the output row of every dot product of `mb` to `targets`, in
  /// the layout of dotprod: per pair its Huffman path's nodes (-hs 1), then
  /// the positive and its noise words.
  void draw_targets(const minibatch& mb, std::vector<uint32_t>& targets) const;

  /// The most dot products a minibatch may ask of a shard: 64M floats
  /// (256 MB), four times what a reply in a cluster's largest message
  /// (64 MB by default) carries, and about 15,000 default minibatches'.
  static constexpr size_t max_dot_products = size_t{1} << 26;

private:
  // Minibatches of skip-gram windows with shared negatives
  // (shard_store_windows.cpp): `targets` are the minibatch's, as drawn.
  void dotprod_windows(const minibatch& mb, float* dots, const uint32_t* targets) const;
  void adjust_windows(const minibatch& mb, const float* weights, adjust_scratch& s, const uint32_t* targets,
                      const float* partials);

  template <class OnPair>
  void for_each_pair(const minibatch& mb, std::vector<float>& hidden, OnPair&& on_pair) const;

  column_slice slice_;
  word_rows rows_; // partitions 1: the columns layout
  uint32_t dim_;
  uint32_t vocab_size_;
  std::shared_ptr<const noise_sampler> noise_;
  std::shared_ptr<const huffman_tree> tree_;
  std::shared_ptr<table_slice> model_;
  float* u_; // model_'s rows 0..V-1
  float* v_; // and V..
};

} // namespace gridvec
