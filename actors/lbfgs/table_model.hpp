#pragma once
// The L-BFGS model table as one learner reaches it through its own table
// client: the sparse fetch and increment of src/lbfgs/learner_share.hpp.
#include <gridvec/tables/client.hpp>

#include "src/lbfgs/learner_share.hpp"

namespace gridvec {

class table_model : public sparse_model {
public:
  explicit table_model(table& t) : t_(t) {}
  expected<std::vector<float>> fetch_rows(std::span<const uint64_t> rows, std::span<const uint32_t> columns) override {
    return t_.fetch_rows(rows, columns);
  }
  status increment(uint64_t row, std::span<const uint32_t> columns, std::span<const float> values) override {
    return t_.increment(row, columns, values);
  }

private:
  table& t_;
};

} // namespace gridvec
