#include "src/util/malloc_policy.hpp"

#include <malloc.h>

#include <mutex>

namespace gridvec {

namespace {

constexpr int phase_mmap_threshold = 256 * 1024;
constexpr int phase_trim_threshold = 128 * 1024; // glibc's default
constexpr int reuse_mmap_threshold = 32 << 20;
constexpr int reuse_trim_threshold = 64 << 20;

std::mutex policy_mutex;
bool phase_release = false;
int reusers = 0;

} // namespace

void use_phase_release() {
  std::lock_guard<std::mutex> lock{policy_mutex};
  phase_release = true;
  if (reusers == 0)
    mallopt(M_MMAP_THRESHOLD, phase_mmap_threshold);
}

large_block_reuse::large_block_reuse() {
  std::lock_guard<std::mutex> lock{policy_mutex};
  if (phase_release && reusers++ == 0) {
    mallopt(M_MMAP_THRESHOLD, reuse_mmap_threshold);
    mallopt(M_TRIM_THRESHOLD, reuse_trim_threshold);
  }
}

large_block_reuse::~large_block_reuse() {
  std::lock_guard<std::mutex> lock{policy_mutex};
  if (phase_release && --reusers == 0) {
    mallopt(M_MMAP_THRESHOLD, phase_mmap_threshold);
    mallopt(M_TRIM_THRESHOLD, phase_trim_threshold);
    malloc_trim(0); // what the rounds kept goes back now
  }
}

} // namespace gridvec
