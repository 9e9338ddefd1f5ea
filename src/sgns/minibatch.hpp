#pragma once
// A minibatch as learners build it and shards read it: examples of
// (input set, output set), the layout of schema/minibatch.capnp.
//   skip-gram: one input (the centre word) and its context words as outputs
//   CBOW:      the context words as inputs (averaged) and the centre word
// Every (example, output) is a positive pair. Its dot products ("targets"),
// in this order:
//   hierarchical softmax (-hs 1): the inner nodes on the output word's
//     Huffman path (src/sgns/huffman_tree.hpp), label 1 - code;
//   negative sampling (negatives > 0): the output word itself, label 1,
//     then `negatives` noise words drawn from the seed, label 0.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/sgns/huffman_tree.hpp"
#include "src/util/rng.hpp"

namespace gridvec {

/// What a target is to its pair: bit 0 is the label of its logistic loss,
/// bit 1 marks an inner node of the Huffman tree (whose update word2vec.c
/// skips when |f| >= 6, where a noise word's is clipped).
namespace target_label {
constexpr uint8_t noise = 0, positive = 1;
constexpr uint8_t node_code1 = 2, node_code0 = 3; // label 1 - code
inline float value(uint8_t l) { return static_cast<float>(l & 1); }
inline bool is_node(uint8_t l) { return (l & 2) != 0; }
} // namespace target_label

/// The most noise words per pair a shard accepts (-negative's bound).
constexpr uint32_t max_negatives = 1000;

struct minibatch {
  uint64_t seed = 0;
  uint32_t negatives = 0;
  bool mean_inputs = false; // CBOW
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> input_counts; // empty: one input per example
  std::vector<uint32_t> outputs;
  std::vector<uint32_t> output_counts; // empty: one output per example
  // Adjust only: the learning rate its weights were computed with, and how
  // many minibatches were in flight beside it (the shard's refresh of
  // stale weights, src/sgns/weight_refresh.hpp; 0 turns it off).
  float alpha = 0;
  uint32_t staleness = 0;
  // -hs 1. The wire carries only this flag; `tree` is the job's tree,
  // attached on each side by whoever holds it (the learner that forms the
  // minibatch, the shard store that admits it).
  bool hierarchical = false;
  const huffman_tree* tree = nullptr;
  // Skip-gram windows trained whole (HogBatch, --shared-negatives): each
  // example is a window in word2vec.c's orientation -- its outputs (the
  // context words) are the inputs of the dot products, its input (the
  // centre) is the positive target -- and one draw of noise words serves
  // the whole window. Its targets are the centre's (Huffman path, itself,
  // its noise words) and its dot products every target with every context,
  // target by target: targets x contexts floats, in example order.
  bool shared_negatives = false;

  size_t examples() const {
    return !input_counts.empty() ? input_counts.size()
                                 : (!output_counts.empty() ? output_counts.size() : inputs.size());
  }
  size_t pairs() const { return outputs.size(); }
  /// Targets of a negative-sampling pair: the output word and its noise
  /// words (none with -hs 1 -negative 0).
  size_t sampled_targets() const { return negatives > 0 || !hierarchical ? size_t{negatives} + 1 : 0; }
  /// Targets of the pair whose output word is `output`.
  size_t targets_of(uint32_t output) const { return (hierarchical ? tree->length(output) : 0) + sampled_targets(); }
  /// Targets of the `count` pairs whose outputs begin at outputs[first]
  /// (an example's).
  size_t targets_of_outputs(size_t first, size_t count) const {
    size_t n = count * sampled_targets();
    if (hierarchical)
      for (size_t o = first; o < first + count; ++o)
        n += tree->length(outputs[o]);
    return n;
  }
  /// Dot products of the minibatch: of every pair, or with shared
  /// negatives of every window's targets with its contexts.
  size_t dot_count() const;
  /// Targets drawn for the minibatch (rows its dot products read on the
  /// output side): dot_count(), or with shared negatives one set a window.
  size_t target_count() const;
  /// The label of every dot product, in dot-product order.
  void labels(std::vector<uint8_t>& out) const;
  void clear();
};

/// Which rows a window's pairs train.
enum class example_form : uint8_t {
  /// Skip-gram, one example a window: the centre's input row predicts each
  /// context word (inputs {centre}, outputs its contexts). The same pairs as
  /// word2vec.c's in the other direction, and one input row a window.
  centre_predicts_contexts,
  /// Skip-gram as word2vec.c trains it, one example a pair: each context
  /// word's input row predicts the centre (inputs {context}, outputs
  /// {centre}). With -hs 1 the direction matters: a pair's targets are its
  /// output word's Huffman path (example_form_for says where each is
  /// used, src/sgns/minibatch_source.hpp).
  contexts_predict_centre,
  /// CBOW: the mean of the contexts' input rows predicts the centre.
  cbow,
};

/// Forms examples from sentences with word2vec's random window: for each
/// position a window b in 1..window is drawn, and the words within b on each
/// side are its context.
class example_builder {
public:
  example_builder(uint32_t window, example_form form) : window_(window), form_(form) {}
  example_builder(uint32_t window, bool cbow)
    : example_builder(window, cbow ? example_form::cbow : example_form::centre_predicts_contexts) {}

  /// Appends the examples of the window centred at `pos` of `sentence`;
  /// returns false (and appends nothing) if it has no context.
  bool add(const uint32_t* sentence, size_t length, size_t pos, rng& r, minibatch& out) const;
  bool add(const std::vector<uint32_t>& sentence, size_t pos, rng& r, minibatch& out) const {
    return add(sentence.data(), sentence.size(), pos, r, out);
  }

private:
  uint32_t window_;
  example_form form_;
};

} // namespace gridvec
