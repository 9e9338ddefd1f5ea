// The one registration of the training layouts: shard_layout's values
// (include/gridvec/core/shard_layout.hpp), in order, and their entries,
// each defined in its folder.
#include "actors/layouts/layouts.hpp"

#include <array>

namespace gridvec {

const layout_entry& layout_entry_of(shard_layout layout) {
  static const std::array<layout_entry, last_shard_layout + 1> entries{columns_layout(), rows_layout(),
                                                                       replica_layout()};
  return entries.at(static_cast<size_t>(layout));
}

} // namespace gridvec
