#pragma once
// Helpers shared by the libFuzzer targets of this directory (docs/fuzzing.md).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "src/sgns/noise_sampler.hpp"
#include "src/shard/column_service.hpp"
#include "src/shard/row_service.hpp"

namespace gridvec::fuzz {

/// A file that the decoders under test read by path: one per process
/// (/tmp/gridvec-fuzz-PID-NAME), rewritten with every input, removed at exit.
class input_file {
public:
  explicit input_file(const char* name) : path_("/tmp/gridvec-fuzz-" + std::to_string(::getpid()) + "-" + name) {}
  ~input_file() { std::remove(path_.c_str()); }

  /// Writes the input; returns the path to hand to the decoder.
  const std::string& write(const uint8_t* data, size_t size) const {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size)) {
      std::perror(path_.c_str());
      std::abort(); // the harness, not the decoder, is broken
    }
    std::fclose(f);
    return path_;
  }

private:
  std::string path_;
};

/// A small shard (all 4 columns of a 64-word vocabulary) to run decoded
/// requests against with a lane's dotprod and adjust (src/shard/column_service.hpp),
/// as a shard lane does.
struct small_shard {
  static constexpr uint32_t vocab = 64;
  static constexpr uint32_t dim = 4;
  static constexpr uint64_t init_seed = 7;

  small_shard()
    : store(0, 1, dim, vocab, init_seed, std::make_shared<const noise_sampler>(alias_sampler::from_counts(counts()))),
      buffers(dim) {}

  static std::vector<uint64_t> counts() {
    std::vector<uint64_t> c(vocab);
    for (uint32_t i = 0; i < vocab; ++i)
      c[i] = vocab - i;
    return c;
  }

  shard_store store;
  sgns_buffers buffers;
};

/// Shard 0 of 2 holding whole rows (--partition words) over the same
/// 64-word vocabulary: half the words' rows, all 4 columns, and its
/// partition's noise table.
struct row_shard {
  row_shard()
    : part(std::make_shared<shard_store>(word_rows{0, 2}, small_shard::dim, small_shard::vocab, small_shard::init_seed),
           slice_header{}, small_shard::init_seed, small_shard::counts(), negatives_mode::bns) {}

  row_service part;
};

} // namespace gridvec::fuzz
