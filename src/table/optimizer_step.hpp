#pragma once
// One optimizer step on one row's columns, with the slot variables kept
// beside it on the shard (the Distributed embedding layer design: "optimizer slots stored beside the
// vectors"). The layouts of the slots are in table_spec.hpp.
#include <cstdint>

#include <gridvec/core/table_spec.hpp>

namespace gridvec {

/// Applies gradient `grad` (width floats) to `value` (width floats) under
/// spec.optimizer. `slots` holds slots_per_column(optimizer) * width floats
/// (adagrad: G; adam: m then s), `step` the row's adam step count.
void optimizer_step(const table_spec& spec, uint32_t width, float* value, float* slots, uint32_t& step,
                    const float* grad);

} // namespace gridvec
