#pragma once
// A set of whole or partial model rows as the replicated mode's round
// messages carry them (schema/minibatch.capnp, RowBlock).
#include <cstdint>
#include <vector>

#include <gridvec/core/wire_bytes.hpp>
#include <gridvec/core/expected.hpp>

namespace gridvec {

struct row_block {
  uint64_t round = 0;
  uint64_t generation = 0;
  uint32_t host = 0;
  bool last = false;
  uint32_t width = 0;
  uint32_t first_column = 0;
  std::vector<uint32_t> inputs;  // input vector ids
  std::vector<uint32_t> outputs; // output vector ids
  std::vector<float> values;     // (inputs + outputs) x width, inputs first

  size_t rows() const { return inputs.size() + outputs.size(); }
  const float* input_value(size_t i) const { return values.data() + i * width; }
  const float* output_value(size_t i) const { return values.data() + (inputs.size() + i) * width; }
};

wire_bytes encode_row_block(const row_block& b);
/// Checks the shape (values = rows x width); ids are the receiver's to check.
status decode_row_block(const wire_bytes& bytes, row_block& out);

} // namespace gridvec
