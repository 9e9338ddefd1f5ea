#include "src/corpus/vocabulary_lookup.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/vocabulary_reader.hpp"

namespace gridvec {

expected<std::vector<uint32_t>> ids_in_vocabulary_file(const std::string& path, const std::vector<std::string>& words) {
  std::vector<uint32_t> ids(words.size(), vocabulary::npos);
  std::unordered_multimap<std::string, size_t> wanted; // word -> its places in `words`
  for (size_t i = 0; i < words.size(); ++i)
    wanted.emplace(words[i], i);
  auto reader = vocabulary_reader::open_guarded(path);
  if (!reader)
    return failure{reader.error()};
  std::string word;
  uint64_t count = 0;
  size_t found = 0;
  while (found < words.size() && reader->position() < reader->size()) {
    const auto id = static_cast<uint32_t>(reader->position());
    if (auto s = reader->next(word, count); !s)
      return failure{s.error()};
    auto [first, last] = wanted.equal_range(word);
    for (auto it = first; it != last; ++it, ++found)
      ids[it->second] = id;
  }
  return ids;
}

expected<std::vector<std::string>> words_in_vocabulary_file(const std::string& path, const std::vector<uint32_t>& ids) {
  // Read in id order, each word once, however the ids come.
  std::vector<size_t> order(ids.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a] < ids[b]; });
  std::vector<std::string> words(ids.size());
  auto reader = vocabulary_reader::open_guarded(path);
  if (!reader)
    return failure{reader.error()};
  std::string word;
  uint64_t count = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const uint32_t id = ids[order[i]];
    if (i > 0 && id == ids[order[i - 1]]) {
      words[order[i]] = words[order[i - 1]];
      continue;
    }
    if (id >= reader->size())
      return failure{"word " + std::to_string(id) + " is past the last of " + path + "'s " +
                     std::to_string(reader->size()) + " words"};
    if (auto s = reader->skip_to(id); !s)
      return failure{s.error()};
    if (auto s = reader->next(word, count); !s)
      return failure{s.error()};
    words[order[i]] = word;
  }
  return words;
}

} // namespace gridvec
