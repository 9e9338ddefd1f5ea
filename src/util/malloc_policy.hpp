#pragma once
// How the gridvec program has glibc's malloc hand memory back, by phase.
//
// Counting holds every distinct word in 1 MiB blocks and frees them before
// the model is allocated. With glibc's default, the mmap threshold rises
// after the first large block is freed, later blocks come from the heap,
// and the freed heap stays in the process's RSS beside the model (at
// V = 3M, about 300 MiB of the peak). So the program keeps large blocks
// mmapped (use_phase_release, from main): freeing one unmaps it.
//
// The replicated mode pays for that: every synchronisation round builds,
// sends and receives buffers of the size of the model's changed rows, and
// each fresh mapping costs a page fault per page (half the learner's CPU
// in a round). While such a trainer runs it holds a large_block_reuse,
// under which blocks of up to 32 MiB come from the heap and stay there,
// up to 64 MiB of them, for the next round to reuse.
//
// A process that never calls use_phase_release (an application embedding
// the actors) keeps its own malloc settings: large_block_reuse does
// nothing there.
namespace gridvec {

/// Keeps large blocks mmapped (from the program's main, before anything).
void use_phase_release();

/// While one is alive, large blocks are kept for reuse (see above); the
/// last one destroyed restores use_phase_release's setting.
class large_block_reuse {
public:
  large_block_reuse();
  ~large_block_reuse();
  large_block_reuse(const large_block_reuse&) = delete;
  large_block_reuse& operator=(const large_block_reuse&) = delete;
};

} // namespace gridvec
