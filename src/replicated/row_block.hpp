#pragma once
// A set of whole or partial model rows as the replicated mode's round
// messages carry them (schema/minibatch.capnp, RowBlock).
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <gridvec/core/wire_bytes.hpp>
#include <gridvec/core/expected.hpp>

namespace gridvec {

/// Rows as a block lays them out, wherever their values are: a
/// row_block's own, or a received message's, read where they arrived.
struct row_block_ref {
  uint32_t width = 0;
  uint32_t first_column = 0;
  std::span<const uint32_t> inputs;
  std::span<const uint32_t> outputs;
  const float* values = nullptr; // (inputs + outputs) x width, inputs first

  size_t rows() const { return inputs.size() + outputs.size(); }
  const float* input_value(size_t i) const { return values + i * width; }
  const float* output_value(size_t i) const { return values + (inputs.size() + i) * width; }
};

struct row_block {
  uint64_t round = 0;
  uint64_t generation = 0;
  uint32_t host = 0;
  bool last = false;
  bool pausing = false; // host -> master: a checkpoint reads the shards after this round
  bool stored = false;  // master -> host: the shards hold the model as of this round
  uint32_t width = 0;
  uint32_t first_column = 0;
  std::vector<uint32_t> inputs;  // input vector ids
  std::vector<uint32_t> outputs; // output vector ids
  std::vector<float> values;     // (inputs + outputs) x width, inputs first

  size_t rows() const { return inputs.size() + outputs.size(); }
  const float* input_value(size_t i) const { return values.data() + i * width; }
  const float* output_value(size_t i) const { return values.data() + (inputs.size() + i) * width; }
  row_block_ref ref() const { return {width, first_column, inputs, outputs, values.data()}; }
};

wire_bytes encode_row_block(const row_block& b);
/// Checks the shape (values = rows x width); ids are the receiver's to check.
status decode_row_block(const wire_bytes& bytes, row_block& out);
/// The same without copying the values: `use` reads them where they are in
/// `bytes` (a reference valid only during the call; the ids are copied into
/// `ids`, which keeps its memory from call to call). Returns what `use`
/// returns, or why the block is malformed.
status with_row_block(const wire_bytes& bytes, std::vector<uint32_t>& ids,
                      const std::function<status(const row_block&, row_block_ref)>& use);

} // namespace gridvec
