#include "actors/partition_join.hpp"

#include <caf/scoped_actor.hpp>

namespace gridvec {

namespace {

// A partition answers a lookup at once; a day covers a node swapping hard.
// A lost partition's node answers with an error well before.
constexpr auto lookup_timeout = std::chrono::seconds(24 * 3600);

status check_parts(const std::vector<vocabulary_partition_actor>& parts) {
  if (parts.empty())
    return failure{"turning words into ids needs at least one word partition"};
  for (const auto& p : parts)
    if (!p)
      return failure{"a vocabulary partition that is no actor"};
  return {};
}

// The lookup of word_join.hpp through `blocking`: every partition with
// words to look up is asked before any answer is awaited, so that they
// look up at the same time.
join_lookup partition_lookup(caf::scoped_actor& blocking, const std::vector<vocabulary_partition_actor>& parts) {
  return [&](std::vector<word_batch>& asks, std::vector<std::vector<uint32_t>>& ids) -> status {
    using handle =
      decltype(blocking->request(parts[0], lookup_timeout, lookup_atom::value, std::string{}, std::vector<uint32_t>{}));
    std::vector<std::pair<size_t, handle>> pending;
    for (size_t p = 0; p < asks.size(); ++p)
      if (asks[p].size() > 0)
        pending.emplace_back(p, blocking->request(parts[p], lookup_timeout, lookup_atom::value,
                                                  std::move(asks[p].words), std::move(asks[p].lengths)));
    std::string failed;
    for (auto& [p, h] : pending)
      h.receive([&, p = p](std::vector<uint32_t>& got) { ids[p] = std::move(got); },
                [&, p = p](caf::error& err) {
                  if (failed.empty())
                    failed = "vocabulary partition " + std::to_string(p) + ": " + error_text(err);
                });
    if (!failed.empty())
      return failure{failed};
    return {};
  };
}

} // namespace

status join_through_partitions(caf::actor_system& sys, const std::vector<vocabulary_partition_actor>& parts,
                               const std::string& corpus, byte_range range, invalid_utf8 mode,
                               const std::string& ids_path, uint64_t& words, uint64_t vocab_size, join_limits limits) {
  if (auto s = check_parts(parts); !s)
    return s;
  caf::scoped_actor blocking{sys};
  return join_ids(corpus, range, mode, static_cast<uint32_t>(parts.size()), partition_lookup(blocking, parts), ids_path,
                  words, vocab_size, limits);
}

expected<model_row_map_made> row_map_through_partitions(caf::actor_system& sys,
                                                        const std::vector<vocabulary_partition_actor>& parts,
                                                        const std::string& model_vocab, const std::string& path,
                                                        uint64_t vocab_size, uint64_t vocab_crc, join_limits limits) {
  if (auto s = check_parts(parts); !s)
    return failure{s.error()};
  caf::scoped_actor blocking{sys};
  return write_model_row_map(model_vocab, path, static_cast<uint32_t>(parts.size()), partition_lookup(blocking, parts),
                             vocab_size, vocab_crc, limits);
}

} // namespace gridvec
