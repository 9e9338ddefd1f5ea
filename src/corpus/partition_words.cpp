#include "src/corpus/partition_words.hpp"

#include <algorithm>
#include <filesystem>

#include "src/corpus/partitioned_count.hpp"
#include "src/corpus/vocabulary_reader.hpp"
#include "src/formats/checkpoint.hpp" // file_crc32

namespace gridvec {

expected<vocabulary_partition> read_partition_words(const std::string& path, uint32_t partition, uint32_t partitions,
                                                    uint64_t size, uint32_t crc) {
  if (partitions == 0 || partition >= partitions)
    return failure{"partition " + std::to_string(partition) + " of " + std::to_string(partitions)};
  auto reader = vocabulary_reader::open_guarded(path);
  if (!reader)
    return failure{reader.error()};
  if (reader->size() != size)
    return failure{path + " holds " + std::to_string(reader->size()) + " words; the job has " + std::to_string(size)};
  // Checked before the words are taken: another file at the same path
  // would give every word a wrong id.
  auto file_crc = file_crc32(path);
  if (!file_crc)
    return failure{file_crc.error()};
  if (*file_crc != crc)
    return failure{path + " is not the job's vocabulary (its checksum differs)"};
  // Room for this partition's share, bounded by what the file can hold (a
  // line is at least 4 bytes: "1 w\n") before anything is allocated.
  std::error_code ec;
  const uint64_t bytes = std::filesystem::file_size(path, ec);
  word_map<uint32_t> ids;
  ids.reserve(static_cast<size_t>(std::min(size / partitions + 1, ec ? 0 : bytes / 4)));
  std::string word;
  uint64_t count = 0;
  uint64_t tokens = 0;
  for (uint64_t id = 0; id < size; ++id) {
    if (auto s = reader->next(word, count); !s)
      return failure{s.error()};
    const uint64_t h = word_hash(word);
    if (word_partition_of_hash(h, partitions) != partition)
      continue;
    if (!ids.insert(word, h, static_cast<uint32_t>(id)).second)
      return failure{path + ": the word on line " + std::to_string(id + 2) + " comes twice"};
    tokens += count;
  }
  return vocabulary_partition::of_ids(std::move(ids), tokens);
}

} // namespace gridvec
