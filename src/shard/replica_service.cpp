#include "src/shard/replica_service.hpp"

#include <cstring>

#include "src/replicated/row_block.hpp"

namespace gridvec {

status replica_service::store_rows(const wire_bytes& bytes) {
  thread_local std::vector<uint32_t> ids; // the lanes store on their own threads
  return with_row_block(bytes, ids, [&](const row_block&, row_block_ref b) -> status {
    auto& st = store();
    const auto slice = st.slice();
    if (b.first_column != slice.first || b.width != slice.width)
      return failure{"row block of columns [" + std::to_string(b.first_column) + ", " +
                     std::to_string(b.first_column + b.width) + ") sent to the shard of columns [" +
                     std::to_string(slice.first) + ", " + std::to_string(slice.first + slice.width) + ")"};
    for (uint32_t u : b.inputs)
      if (u >= st.vocab_size())
        return failure{"row block: input row " + std::to_string(u) + " is outside the vocabulary"};
    for (uint32_t v : b.outputs)
      if (v >= st.output_rows())
        return failure{"row block: output row " + std::to_string(v) + " is outside the model"};
    for (size_t i = 0; i < b.inputs.size(); ++i)
      std::memcpy(st.input_row(b.inputs[i]), b.input_value(i), b.width * sizeof(float));
    for (size_t i = 0; i < b.outputs.size(); ++i)
      std::memcpy(st.output_row(b.outputs[i]), b.output_value(i), b.width * sizeof(float));
    return {};
  });
}

} // namespace gridvec
