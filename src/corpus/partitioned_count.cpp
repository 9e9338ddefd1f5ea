#include "src/corpus/partitioned_count.hpp"

namespace gridvec {

status count_partitioned(const std::string& path, std::span<const byte_range> ranges,
                         std::vector<bounded_counter>& counters, uint64_t& lines, invalid_utf8 mode) {
  if (counters.empty())
    return failure{"counting needs at least one partition", error_code::invalid_argument};
  const auto partitions = static_cast<uint32_t>(counters.size());
  corpus_scanner scanner{path, mode};
  for (const byte_range& range : ranges) {
    uint64_t place = range.begin;
    auto scanned = scanner.scan(
      range,
      [&](std::string_view w) {
        const uint64_t h = word_hash(w);
        counters[word_partition_of_hash(h, partitions)].add_hashed(w, h, 1, place);
        ++place;
      },
      [&] { ++lines; });
    if (!scanned)
      return scanned;
    for (auto& c : counters)
      if (!c.ok())
        return c.merge([](const counted_word&) {}); // its line, and its runs removed
  }
  return {};
}

} // namespace gridvec
