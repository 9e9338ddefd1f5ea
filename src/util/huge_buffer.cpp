#include "src/util/huge_buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace gridvec {

namespace {
constexpr size_t huge_page = size_t{2} << 20;
}

void huge_buffer_free::operator()(float* p) const {
  if (p)
    ::munmap(p, bytes);
}

void advise_huge_pages(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  auto first = (reinterpret_cast<uintptr_t>(p) + huge_page - 1) / huge_page * huge_page;
  auto last = (reinterpret_cast<uintptr_t>(p) + bytes) / huge_page * huge_page;
  if (last > first)
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

float_buffer allocate_floats(size_t count) {
  // Anonymous mappings are zero-filled by the kernel and returned to it on
  // free: the pages are only touched when training reaches them.
  size_t bytes = (count * sizeof(float) + huge_page - 1) / huge_page * huge_page;
  if (bytes == 0)
    bytes = huge_page;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw std::bad_alloc{};
#ifdef MADV_HUGEPAGE
  ::madvise(p, bytes, MADV_HUGEPAGE); // a hint: without THP it is ignored
#endif
  return float_buffer{static_cast<float*>(p), huge_buffer_free{bytes}};
}

} // namespace gridvec
