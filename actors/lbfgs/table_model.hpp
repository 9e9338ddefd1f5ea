#pragma once
// The L-BFGS model table as one learner reaches it through its own table
// client: the sparse fetch and increment of src/lbfgs/learner_share.hpp.
// Increments carry `writer`, the token of the pass they belong to (0 on the
// driver's own threads, which are never fenced): node_learners::pass.
#include <gridvec/tables/client.hpp>

#include "src/lbfgs/learner_share.hpp"

namespace gridvec {

class table_model : public sparse_model {
public:
  explicit table_model(table& t, uint64_t writer = 0) : t_(t), writer_(writer) {}
  expected<std::vector<float>> fetch_rows(std::span<const uint64_t> rows, std::span<const uint32_t> columns) override {
    return t_.fetch_rows(rows, columns);
  }
  status increment(uint64_t row, std::span<const uint32_t> columns, std::span<const float> values) override {
    return t_.increment(row, columns, values, writer_);
  }

private:
  table& t_;
  uint64_t writer_;
};

} // namespace gridvec
