#pragma once
// A vocabulary partition's words read back from a vocabulary file: what
// turns corpus parts into ids once the partitions that counted them are gone
// (a job resumed from its checkpoints whose id files were lost). Each
// partition keeps only the words the join sends it (word_partition_of_hash,
// over the partitions there are now, which need not be as many as counted
// the words), with their ids, so no node holds every word.
#include <cstdint>
#include <string>

#include <gridvec/core/expected.hpp>
#include "src/corpus/vocabulary_partition.hpp"

namespace gridvec {

/// The words of partition `partition` of `partitions` in the gridvec
/// vocabulary file `path` (opened through the process's path policy), each
/// with its id: its place in the file. The file is read one word at a time.
/// Fails with one line if it cannot be read, is malformed, or does not
/// hold `size` words with the checksum `crc`.
expected<vocabulary_partition> read_partition_words(const std::string& path, uint32_t partition, uint32_t partitions,
                                                    uint64_t size, uint32_t crc);

} // namespace gridvec
