#include "src/formats/wire.hpp"

#include <cmath>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>
#include <kj/exception.h>
#include <kj/io.h>

#include <cstring>
#include <span>

#include "schema/minibatch.capnp.h"
#include "src/formats/capnp_bytes.hpp"
#include "src/formats/minibatch_capnp.hpp"
#include "src/replicated/row_block.hpp"

namespace gridvec {

void fill_batch(wire::Minibatch::Builder b, const minibatch& mb) {
  b.setSeed(mb.seed);
  b.setNegatives(mb.negatives);
  b.setMeanInputs(mb.mean_inputs);
  b.setHierarchical(mb.hierarchical);
  b.setSharedNegatives(mb.shared_negatives);
  set_list(b.initInputs(static_cast<unsigned>(mb.inputs.size())), mb.inputs);
  set_list(b.initInputCounts(static_cast<unsigned>(mb.input_counts.size())), mb.input_counts);
  set_list(b.initOutputs(static_cast<unsigned>(mb.outputs.size())), mb.outputs);
  set_list(b.initOutputCounts(static_cast<unsigned>(mb.output_counts.size())), mb.output_counts);
}

void read_batch(wire::Minibatch::Reader b, minibatch& mb) {
  mb.seed = b.getSeed();
  mb.negatives = b.getNegatives();
  mb.mean_inputs = b.getMeanInputs();
  mb.hierarchical = b.getHierarchical();
  mb.shared_negatives = b.getSharedNegatives();
  mb.tree = nullptr; // the receiver attaches its own (shard_store::validate)
  get_list(b.getInputs(), mb.inputs);
  get_list(b.getInputCounts(), mb.input_counts);
  get_list(b.getOutputs(), mb.outputs);
  get_list(b.getOutputCounts(), mb.output_counts);
}

namespace {

// Words needed for the first segment, so that one segment holds everything.
size_t batch_words(const minibatch& mb) {
  return 16 + (mb.inputs.size() + mb.input_counts.size() + mb.outputs.size() + mb.output_counts.size()) / 2 + 8;
}

} // namespace

wire_bytes encode_dotprod_request(const minibatch& mb) {
  wire_message message(static_cast<unsigned>(batch_words(mb)));
  auto& builder = message.builder();
  fill_batch(builder.initRoot<wire::DotprodRequest>().initBatch(), mb);
  return message.finish();
}

status decode_dotprod_request(const wire_bytes& bytes, minibatch& out) {
  return with_reader<wire::DotprodRequest>(bytes, "dotprod request", [&](auto r) -> status {
    read_batch(r.getBatch(), out);
    return {};
  });
}

wire_bytes encode_dotprod_reply(uint32_t shard, const float* dots, size_t count) {
  wire_message message(static_cast<unsigned>(16 + count / 2));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::DotprodReply>();
  root.setShard(shard);
  set_list(root.initDots(static_cast<unsigned>(count)), std::span<const float>(dots, count));
  return message.finish();
}

status decode_dotprod_reply(const wire_bytes& bytes, uint32_t& shard, std::vector<float>& dots) {
  return with_reader<wire::DotprodReply>(bytes, "dotprod reply", [&](auto r) -> status {
    shard = r.getShard();
    get_list(r.getDots(), dots);
    return {};
  });
}

status accumulate_dotprod_reply(const wire_bytes& bytes, std::vector<float>& sum) {
  return with_reader<wire::DotprodReply>(bytes, "dotprod reply", [&](auto r) -> status {
    auto list = r.getDots();
    if (list.size() != sum.size())
      return failure{"dotprod reply of shard " + std::to_string(r.getShard()) + " has " + std::to_string(list.size()) +
                     " dot products, expected " + std::to_string(sum.size())};
    for (unsigned i = 0; i < list.size(); ++i)
      sum[i] += list[i];
    return {};
  });
}

wire_bytes encode_adjust_request(const minibatch& mb, const float* weights, size_t count) {
  wire_message message(static_cast<unsigned>(batch_words(mb) + count / 2 + 8));
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::AdjustRequest>();
  fill_batch(root.initBatch(), mb);
  root.setAlpha(mb.alpha);
  root.setStaleness(mb.staleness);
  set_list(root.initWeights(static_cast<unsigned>(count)), std::span<const float>(weights, count));
  return message.finish();
}

status decode_adjust_request(const wire_bytes& bytes, minibatch& out, std::vector<float>& weights) {
  return with_reader<wire::AdjustRequest>(bytes, "adjust request", [&](auto r) -> status {
    read_batch(r.getBatch(), out);
    out.alpha = r.getAlpha();
    out.staleness = r.getStaleness();
    if (!std::isfinite(out.alpha) || out.alpha < 0)
      return failure{"adjust request has an invalid learning rate"};
    get_list(r.getWeights(), weights);
    return {};
  });
}

wire_bytes encode_adjust_reply(uint32_t shard, uint32_t pairs) {
  wire_message message(16);
  auto& builder = message.builder();
  auto root = builder.initRoot<wire::AdjustReply>();
  root.setShard(shard);
  root.setPairs(pairs);
  return message.finish();
}

status decode_adjust_reply(const wire_bytes& bytes, uint32_t& shard, uint32_t& pairs) {
  return with_reader<wire::AdjustReply>(bytes, "adjust reply", [&](auto r) -> status {
    shard = r.getShard();
    pairs = r.getPairs();
    return {};
  });
}

// --- replicated mode (src/replicated/row_block.hpp) ---

wire_bytes encode_row_block(const row_block& b) {
  wire_message message(static_cast<unsigned>(16 + b.rows() / 2 + b.values.size() / 2 + 8));
  auto& builder = message.builder();
  auto r = builder.initRoot<wire::RowBlock>();
  r.setRound(b.round);
  r.setGeneration(b.generation);
  r.setHost(b.host);
  r.setLast(b.last);
  r.setPausing(b.pausing);
  r.setStored(b.stored);
  r.setWidth(b.width);
  r.setFirstColumn(b.first_column);
  set_list(r.initInputRows(static_cast<unsigned>(b.inputs.size())), b.inputs);
  set_list(r.initOutputRows(static_cast<unsigned>(b.outputs.size())), b.outputs);
  // Whole rows of floats: one copy, not one call per float (gridvec runs on
  // little-endian machines only, as the vectors files assume).
  auto values = r.initValues(static_cast<unsigned>(b.values.size() * sizeof(float)));
  copy_into(values, b.values.data(), values.size());
  return message.finish();
}

status with_row_block(const wire_bytes& bytes, std::vector<uint32_t>& ids,
                      const std::function<status(const row_block&, row_block_ref)>& use) {
  return with_reader<wire::RowBlock>(bytes, "row block", [&](wire::RowBlock::Reader r) -> status {
    row_block head; // the header's fields; its rows stay in the message
    head.round = r.getRound();
    head.generation = r.getGeneration();
    head.host = r.getHost();
    head.last = r.getLast();
    head.pausing = r.getPausing();
    head.stored = r.getStored();
    head.width = r.getWidth();
    head.first_column = r.getFirstColumn();
    const auto in = r.getInputRows(), out = r.getOutputRows();
    ids.resize(size_t{in.size()} + out.size());
    for (unsigned i = 0; i < in.size(); ++i)
      ids[i] = in[i];
    for (unsigned i = 0; i < out.size(); ++i)
      ids[in.size() + i] = out[i];
    auto values = r.getValues();
    if (uint64_t{values.size()} != uint64_t{ids.size()} * head.width * sizeof(float))
      return failure{"malformed row block: " + std::to_string(values.size()) + " bytes of values for " +
                     std::to_string(ids.size()) + " rows of " + std::to_string(head.width) + " floats"};
    // A Data field starts on a word of its segment, and the segments on
    // words of `bytes` (or of with_reader's aligned copy): floats are aligned.
    const std::span<const uint32_t> all{ids};
    return use(head, row_block_ref{head.width, head.first_column, all.first(in.size()), all.subspan(in.size()),
                                   reinterpret_cast<const float*>(values.begin())});
  });
}

status decode_row_block(const wire_bytes& bytes, row_block& out) {
  std::vector<uint32_t> ids;
  return with_row_block(bytes, ids, [&](const row_block& head, row_block_ref rows) -> status {
    out = head; // the header; then the rows, copied out of the message
    out.inputs.assign(rows.inputs.begin(), rows.inputs.end());
    out.outputs.assign(rows.outputs.begin(), rows.outputs.end());
    out.values.assign(rows.values, rows.values + rows.rows() * rows.width);
    return {};
  });
}

} // namespace gridvec
