// Reached by: a damaged vocabulary file (DIR/vocabulary.txt of a checkpoint,
// or the file a job's vocabulary actor saved on the shared file system),
// which every shard, learner and exporter node loads by the path it is sent
// (include/gridvec/core/vocabulary.hpp, vocabulary::load).
#include <cstddef>
#include <cstdint>

#include <gridvec/core/vocabulary.hpp>
#include "tests/fuzz/fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  static const fuzz::input_file file("vocabulary.txt");
  auto v = vocabulary::load(file.write(data, size));
  if (v && v->size() > 0)
    (void)v->id_of(v->word(v->size() - 1));
  return 0;
}
