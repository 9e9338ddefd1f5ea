#pragma once
// A zero-initialised float array for the vectors of a shard, backed by
// transparent huge pages where the kernel offers them (madvise). With a
// large vocabulary almost every row a noise word touches is a TLB miss on
// 4 KiB pages (V = 10M, d = 100 is 4 GB per matrix); 2 MiB pages keep the
// page walks in cache, so time per word stays flat as V grows.
#include <cstddef>
#include <memory>

namespace gridvec {

struct huge_buffer_free {
  size_t bytes = 0;
  void operator()(float* p) const;
};

using float_buffer = std::unique_ptr<float[], huge_buffer_free>;

/// Asks for huge pages for the whole 2 MiB pages inside [p, p + bytes), for
/// memory that is allocated but not yet touched (e.g. a reserved vector).
void advise_huge_pages(void* p, size_t bytes);

/// `count` floats, all 0.0f. Throws std::bad_alloc when out of memory, as
/// new[] would.
float_buffer allocate_floats(size_t count);

} // namespace gridvec
