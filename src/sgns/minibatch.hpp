#pragma once
// A minibatch as learners build it and shards read it: examples of
// (input set, output set), the layout of schema/minibatch.capnp.
//   skip-gram: one input (the centre word) and its context words as outputs
//   CBOW:      the context words as inputs (averaged) and the centre word
// Every (example, output) is a positive pair with `negatives` noise words.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/util/rng.hpp"

namespace gridvec {

struct minibatch {
  uint64_t seed = 0;
  uint32_t negatives = 0;
  bool mean_inputs = false; // CBOW
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> input_counts; // empty: one input per example
  std::vector<uint32_t> outputs;
  std::vector<uint32_t> output_counts; // empty: one output per example
  // Adjust only: the learning rate its weights were computed with, and how
  // many minibatches were in flight beside it (the shard's staleness
  // damping, src/sgns/sgns.hpp; 0 turns it off).
  float alpha = 0;
  uint32_t staleness = 0;

  size_t examples() const {
    return !input_counts.empty() ? input_counts.size()
                                 : (!output_counts.empty() ? output_counts.size() : inputs.size());
  }
  size_t pairs() const { return outputs.size(); }
  size_t dot_count() const { return pairs() * (negatives + 1); }
  void clear();
};

/// Forms examples from sentences with word2vec's random window: for each
/// position a window b in 1..window is drawn, and the words within b on each
/// side are its context.
class example_builder {
public:
  example_builder(uint32_t window, bool cbow) : window_(window), cbow_(cbow) {}

  /// Appends the example centred at `pos` of `sentence`; returns false (and
  /// appends nothing) if it has no context.
  bool add(const uint32_t* sentence, size_t length, size_t pos, rng& r, minibatch& out) const;
  bool add(const std::vector<uint32_t>& sentence, size_t pos, rng& r, minibatch& out) const {
    return add(sentence.data(), sentence.size(), pos, r, out);
  }

private:
  uint32_t window_;
  bool cbow_;
};

} // namespace gridvec
