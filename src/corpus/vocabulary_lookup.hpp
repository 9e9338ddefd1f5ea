#pragma once
// Words of a vocabulary file looked up without loading it: one pass over
// the file a call, holding only the words asked for. For a process that
// answers a few queries on a vocabulary too large to keep whole (the
// coordinator's `nearest`, `analogy` and `vector` at hundreds of millions
// of words).
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

/// Up to this many words a process that queries a vocabulary may keep it
/// whole (about 176 bytes a word, 0.7 GiB); beyond, it looks words up in
/// the file.
inline constexpr uint64_t whole_query_vocabulary = uint64_t{1} << 22;

/// Each word's id in the vocabulary file at `path`, vocabulary::npos for a
/// word it does not hold.
expected<std::vector<uint32_t>> ids_in_vocabulary_file(const std::string& path, const std::vector<std::string>& words);

/// Each id's word, ids in any order and repeated or not; fails on an id
/// past the file's last word.
expected<std::vector<std::string>> words_in_vocabulary_file(const std::string& path, const std::vector<uint32_t>& ids);

} // namespace gridvec
