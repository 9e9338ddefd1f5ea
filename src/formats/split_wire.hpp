#pragma once
// Cap'n Proto codecs of the word split's messages (schema/minibatch.capnp,
// --partition words): learner -> source shard (SplitTrainRequest) and back,
// source -> peer shard (VisitBatch) and back. Every decoder checks the
// sizes a peer chose against what the receiver knows (its dimension, the
// lists' lengths) before anything is trained; a bad message is one line.
#include <cstdint>
#include <vector>

#include "src/model/word_split.hpp"
#include "src/sgns/minibatch.hpp"
#include <gridvec/core/expected.hpp>
#include <gridvec/core/wire_bytes.hpp>

namespace gridvec {

/// A source's answer to the learner.
struct split_train_result {
  uint32_t shard = 0;
  weight_result weights;
  uint32_t batches = 0;     // visit batches sent to other shards
  uint64_t batch_bytes = 0; // their bytes and their replies'
};

wire_bytes encode_split_train_request(const minibatch& mb, float alpha, visit_grouping grouping);
/// `mb.alpha` receives the learning rate.
status decode_split_train_request(const wire_bytes& bytes, minibatch& mb, visit_grouping& grouping);

wire_bytes encode_split_train_reply(const split_train_result& r);
status decode_split_train_reply(const wire_bytes& bytes, split_train_result& out);

/// A visit batch with its input vectors (dim floats per input word).
struct visit_message {
  visit_batch batch;
  uint64_t seed = 0;
  float alpha = 0;
  uint32_t source = 0;
  std::vector<float> inputs;
};

wire_bytes encode_visit_batch(const visit_batch& b, uint64_t seed, float alpha, uint32_t source, const float* inputs,
                              uint32_t dim);
/// Fails unless the inputs are exactly one row of `dim` floats per input
/// word (the batch itself is checked by check_batch).
status decode_visit_batch(const wire_bytes& bytes, uint32_t dim, visit_message& out);

wire_bytes encode_visit_reply(const weight_result& w, const float* gradients, size_t floats);
/// Fails unless the reply holds exactly `floats` gradient floats.
status decode_visit_reply(const wire_bytes& bytes, size_t floats, weight_result& w, std::vector<float>& gradients);

} // namespace gridvec
