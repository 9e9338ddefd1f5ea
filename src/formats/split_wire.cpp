#include "src/formats/split_wire.hpp"

#include <string>

#include "src/formats/capnp_bytes.hpp"
#include "src/formats/minibatch_capnp.hpp"

namespace gridvec {

namespace {

size_t words_of(const minibatch& mb) {
  return 24 + (mb.inputs.size() + mb.input_counts.size() + mb.outputs.size() + mb.output_counts.size()) / 2 + 8;
}

} // namespace

wire_bytes encode_split_train_request(const minibatch& mb, float alpha, visit_grouping grouping) {
  wire_message message(static_cast<unsigned>(words_of(mb)));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::SplitTrainRequest>();
  fill_batch(root.initBatch(), mb);
  root.setAlpha(alpha);
  root.setPerSkipgram(grouping == visit_grouping::skipgram);
  return message.finish();
}

status decode_split_train_request(const wire_bytes& bytes, minibatch& mb, visit_grouping& grouping) {
  return with_reader<wire::SplitTrainRequest>(bytes, "split train request", [&](auto r) -> status {
    read_batch(r.getBatch(), mb);
    mb.alpha = r.getAlpha();
    grouping = r.getPerSkipgram() ? visit_grouping::skipgram : visit_grouping::example;
    if (!(mb.alpha >= 0.0f && mb.alpha < 1.0f))
      return failure{"split train request: learning rate " + std::to_string(mb.alpha) + " is outside [0, 1)"};
    return {};
  });
}

wire_bytes encode_split_train_reply(const split_train_result& x) {
  wire_message message(16);
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::SplitTrainReply>();
  root.setShard(x.shard);
  root.setLoss(x.weights.loss);
  root.setPairs(x.weights.pairs);
  root.setDiverged(x.weights.diverged);
  root.setBatches(x.batches);
  root.setBatchBytes(x.batch_bytes);
  return message.finish();
}

status decode_split_train_reply(const wire_bytes& bytes, split_train_result& out) {
  return with_reader<wire::SplitTrainReply>(bytes, "split train reply", [&](auto r) -> status {
    out.shard = r.getShard();
    out.weights.loss = r.getLoss();
    out.weights.pairs = r.getPairs();
    out.weights.diverged = r.getDiverged();
    out.batches = r.getBatches();
    out.batch_bytes = r.getBatchBytes();
    return {};
  });
}

wire_bytes encode_visit_batch(const visit_batch& b, uint64_t seed, float alpha, uint32_t source, const float* inputs,
                              uint32_t dim) {
  const size_t input_bytes = b.input_words.size() * dim * sizeof(float);
  wire_message message(static_cast<unsigned>(24 + (b.input_words.size() + 3 * b.visits()) / 2 + input_bytes / 8 + 8));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::VisitBatch>();
  root.setSeed(seed);
  root.setAlpha(alpha);
  root.setSource(source);
  set_list(root.initInputWords(static_cast<unsigned>(b.input_words.size())), b.input_words);
  set_list(root.initVisitInput(static_cast<unsigned>(b.visit_input.size())), b.visit_input);
  set_list(root.initVisitPositive(static_cast<unsigned>(b.visit_positive.size())), b.visit_positive);
  set_list(root.initVisitNoise(static_cast<unsigned>(b.visit_noise.size())), b.visit_noise);
  copy_into(root.initInputs(static_cast<unsigned>(input_bytes)), inputs, input_bytes);
  return message.finish();
}

status decode_visit_batch(const wire_bytes& bytes, uint32_t dim, visit_message& out) {
  return with_reader<wire::VisitBatch>(bytes, "visit batch", [&](auto r) -> status {
    out.seed = r.getSeed();
    out.alpha = r.getAlpha();
    out.source = r.getSource();
    if (!(out.alpha >= 0.0f && out.alpha < 1.0f))
      return failure{"visit batch: learning rate " + std::to_string(out.alpha) + " is outside [0, 1)"};
    get_list(r.getInputWords(), out.batch.input_words);
    get_list(r.getVisitInput(), out.batch.visit_input);
    get_list(r.getVisitPositive(), out.batch.visit_positive);
    get_list(r.getVisitNoise(), out.batch.visit_noise);
    auto inputs = r.getInputs();
    if (uint64_t{inputs.size()} != uint64_t{out.batch.input_words.size()} * dim * sizeof(float))
      return failure{"visit batch: " + std::to_string(inputs.size()) + " bytes of input vectors for " +
                     std::to_string(out.batch.input_words.size()) + " words of " + std::to_string(dim) + " floats"};
    copy_from(inputs, out.inputs);
    return {};
  });
}

wire_bytes encode_visit_reply(const weight_result& w, const float* gradients, size_t floats) {
  wire_message message(static_cast<unsigned>(16 + floats / 2 + 8));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::VisitReply>();
  root.setLoss(w.loss);
  root.setPairs(w.pairs);
  root.setDiverged(w.diverged);
  copy_into(root.initGradients(static_cast<unsigned>(floats * sizeof(float))), gradients, floats * sizeof(float));
  return message.finish();
}

status decode_visit_reply(const wire_bytes& bytes, size_t floats, weight_result& w, std::vector<float>& gradients) {
  return with_reader<wire::VisitReply>(bytes, "visit reply", [&](auto r) -> status {
    w.loss = r.getLoss();
    w.pairs = r.getPairs();
    w.diverged = r.getDiverged();
    auto g = r.getGradients();
    if (uint64_t{g.size()} != uint64_t{floats} * sizeof(float))
      return failure{"visit reply: " + std::to_string(g.size()) + " bytes of gradients, expected " +
                     std::to_string(floats * sizeof(float))};
    copy_from(g, gradients);
    return {};
  });
}

} // namespace gridvec
