#pragma once
// The Distributed negative sampling paper's word split, the part that needs no actors: partition k of p
// holds whole rows -- the input and the output vector -- of the words w
// with w mod p = k (docs/word-partitions.md). A skip-gram (input word,
// output word) is trained where its rows live:
//   - the source, the partition of the input word, plans which partitions
//     the pair must visit: the output word's, and those its noise words
//     are drawn from (--negatives: bns draws a partition per noise word,
//     sns one for all of them, tns takes the output word's);
//   - it sends each peer one batch: the distinct input vectors, and per
//     visit the input it uses, the positive word the peer owns (if any)
//     and how many noise words the peer draws from its own words;
//   - the peer trains every visit against its output rows, pair after
//     pair (the same update as every other path, src/sgns/sgns_update.hpp),
//     and returns one summed gradient per input vector;
//   - the source adds the gradients to its input rows.
// Only input vectors and gradients travel between partitions, never an
// output row; a batch to the source's own partition crosses no wire.
// Skip-gram only: CBOW's mean of context rows from many partitions is not
// in the seed.
#include <cstdint>
#include <vector>

#include "src/sgns/hierarchical_sampler.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/sgns/noise_sampler.hpp"
#include "src/sgns/sgns.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec {

/// Which partition holds word w, and at which of its rows.
struct word_layout {
  uint32_t partitions = 1;
  uint32_t owner(uint32_t w) const { return w % partitions; }
  uint32_t local(uint32_t w) const { return w / partitions; }
  /// Rows of partition k for a vocabulary of `vocab` words.
  uint32_t rows_of(uint32_t k, uint32_t vocab) const {
    return k < vocab ? (vocab - k + partitions - 1) / partitions : 0;
  }
};

/// Partition k's rows: the input and output vectors of its words, whole.
/// Input rows start as every other layout's (word2vec.c's, from the seed),
/// output rows at zero.
class partition_rows {
public:
  partition_rows(uint32_t k, word_layout layout, uint32_t dim, uint32_t vocab, uint64_t init_seed);
  /// How a view finds word w's row in the arrays it is given.
  ///   global: row w (one process holding the whole model,
  ///           src/model/word_split_trainer.hpp);
  ///   local:  row layout.local(w), the partition's own rows only (a shard
  ///           holding one partition, src/model/shard_store.hpp).
  enum class indexing { global, local };
  /// A view of partition k's words in `inputs` and `outputs` (dim floats
  /// per row), which stay owned by the caller.
  partition_rows(uint32_t k, word_layout layout, uint32_t dim, uint32_t vocab, float* inputs, float* outputs,
                 indexing rows = indexing::global);

  uint32_t index() const { return index_; }
  uint32_t dim() const { return dim_; }
  uint32_t rows() const { return rows_; }
  bool owns(uint32_t w) const { return w < vocab_ && layout_.owner(w) == index_; }
  float* input(uint32_t w) { return u_ + offset(w); }
  float* output(uint32_t w) { return v_ + offset(w); }
  const float* input(uint32_t w) const { return u_ + offset(w); }
  const float* output(uint32_t w) const { return v_ + offset(w); }

private:
  size_t offset(uint32_t w) const { return size_t{global_ ? w : layout_.local(w)} * dim_; }

  uint32_t index_, dim_, vocab_, rows_;
  word_layout layout_;
  bool global_ = false;              // rows indexed by global word id
  std::vector<float> own_u_, own_v_; // its rows, unless a view
  float* u_ = nullptr;
  float* v_ = nullptr;
};

/// Each partition's share of `mb`: the examples whose input word it owns,
/// in their order, with mb's settings (seed, negatives). A learner sends
/// share k to the shard of partition k.
std::vector<minibatch> split_by_source(const minibatch& mb, word_layout layout);

/// What a source partition sends one peer for a minibatch.
struct visit_batch {
  static constexpr uint32_t no_positive = UINT32_MAX;
  uint32_t peer = 0;
  std::vector<uint32_t> input_words; // their vectors travel; one per example's run of visits
  // Per visit:
  std::vector<uint32_t> visit_input;    // index into input_words
  std::vector<uint32_t> visit_positive; // the output word the peer owns, or no_positive
  std::vector<uint32_t> visit_noise;    // noise words the peer draws from its own words
  size_t visits() const { return visit_input.size(); }
};

/// How visits are grouped into what travels:
///   example:  an example's pairs share its input word, so its vector goes
///             once to each partition the example visits, and the noise
///             words of one pair that land on one partition travel in one
///             visit (gridvec's default: fewer bytes, the same updates);
///   skipgram: the Distributed negative sampling paper's pattern, every skip-gram on its own: bns sends
///             the input to the positive's partition and to a partition per
///             noise word (2(N+1) vectors per skip-gram), sns to the
///             positive's and to the noise words' (4), tns to the
///             positive's (2). What the seed's counts describe.
enum class visit_grouping : uint8_t { example, skipgram };

/// The batches of `mb`'s pairs whose input words `source` owns, one per
/// partition visited, in partition order; `partitions` draws the
/// partitions of bns's and sns's noise words (a hierarchical sampler of
/// any partition: the distribution over partitions is the same on all).
/// Fails on a CBOW minibatch or an input word another partition owns.
expected<std::vector<visit_batch>> plan_visits(const minibatch& mb, uint32_t source, word_layout layout,
                                               negatives_mode mode, const hierarchical_sampler& partitions, rng& r,
                                               visit_grouping grouping = visit_grouping::example);

/// The vectors a plan puts on the wire: per batch to another partition,
/// its input vectors out and as many gradients back.
uint64_t vectors_on_wire(const std::vector<visit_batch>& plan, uint32_t source);

/// What crosses between partitions; a batch to the source's own partition
/// crosses nothing.
struct split_traffic {
  uint64_t batches = 0;     // batches to other partitions (each answered once)
  uint64_t vectors = 0;     // input vectors out, gradients back
  uint64_t index_bytes = 0; // the batches' word ids and visit lists, 4 bytes each
};
void add_traffic(const std::vector<visit_batch>& plan, uint32_t source, split_traffic& t);

/// Checks a batch from another partition before anything is trained: every
/// positive owned by `rows`, every visit's input present, noise counts
/// bounded. (A batch comes off the network.)
status check_batch(const partition_rows& rows, const visit_batch& batch);

/// The peer side: trains `batch`'s visits against `rows`, pair after pair.
/// `inputs` holds the batch's input vectors (dim each, input_words order);
/// `gradients` (same shape) receives the error each input gets back. A
/// visit's noise words come from `own` (this partition's table), drawn
/// from `seed`; a noise word equal to the visit's positive is redrawn, as
/// everywhere. Returns the loss of the visits (counted per target, so the
/// visits of one pair add up to its SGNS loss).
/// `batch` must have passed check_batch.
weight_result serve_visits(partition_rows& rows, const hierarchical_sampler& own, const visit_batch& batch,
                           const float* inputs, float* gradients, uint64_t seed, float alpha);

/// The seeds of a minibatch's exchange, the same wherever the partitions
/// live: source's plan, and its batch to `peer` (of p partitions).
inline uint64_t plan_seed(uint64_t mb_seed, uint32_t source) { return mix64(mb_seed, source); }
inline uint64_t visit_seed(uint64_t mb_seed, uint32_t source, uint32_t peer, uint32_t partitions) {
  return mix64(mb_seed, uint64_t{source} * partitions + peer);
}

/// The source's side: copies the input vectors of `batch` (its
/// input_words order) out of `rows`, and adds the gradients a peer sent
/// back for them.
void gather_inputs(const partition_rows& rows, const visit_batch& batch, std::vector<float>& out);
void add_gradients(partition_rows& rows, const visit_batch& batch, const float* gradients);

/// Every partition in this process: trains `mb` (input words of any
/// partition) exactly as the partitions would exchange it -- a plan at
/// each source, the batches served at their peers, the gradients added at
/// the source -- and adds to `wire` what would have crossed between
/// partitions. `noise` must draw through parts.size() partitions
/// (noise_sampler::partition).
expected<weight_result> train_word_split(std::vector<partition_rows>& parts, const noise_sampler& noise,
                                         const minibatch& mb, negatives_mode mode, float alpha, split_traffic& wire,
                                         visit_grouping grouping = visit_grouping::example);

} // namespace gridvec
