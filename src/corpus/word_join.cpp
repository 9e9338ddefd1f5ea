#include "src/corpus/word_join.hpp"

#include <algorithm>

#include <gridvec/core/vocabulary.hpp>
#include <gridvec/core/word_map.hpp>

#include "src/corpus/id_stream.hpp"
#include "src/corpus/partitioned_count.hpp"

namespace gridvec {

namespace {

// A chunk's tokens as indices into its distinct words; a line end as this.
constexpr uint32_t line_end = 0xFFFFFFFFu;

// One chunk of the range: its distinct words (each asked once, of the
// partition that owns it) and its tokens, until it is joined and written.
class chunk_join {
public:
  chunk_join(uint32_t partitions, const join_lookup& lookup, id_writer& out, uint64_t vocab_size, join_limits limits)
    : lookup_(lookup), out_(out), vocab_size_(vocab_size), limits_(limits), asks_(partitions) {
    // A chunk's distinct words are bounded: the map's index is made for
    // that many once, and kept from chunk to chunk (clear_keeping_index),
    // where growing it anew for each chunk took fresh pages every time.
    local_.reserve(static_cast<size_t>(std::min<uint64_t>(limits_.distinct_words, uint64_t{1} << 20)));
  }

  void word(std::string_view w) {
    if (!failed_.empty())
      return;
    const uint64_t h = word_hash(w);
    auto r = local_.find(w, h);
    if (r == 0) {
      if (local_.size() + 1 > limits_.distinct_words || bytes_ + w.size() > limits_.word_bytes)
        flush();
      const auto index = static_cast<uint32_t>(local_.size());
      local_.insert(w, h, index);
      const uint32_t p = word_partition_of_hash(h, static_cast<uint32_t>(asks_.size()));
      part_of_.push_back(p);
      place_of_.push_back(static_cast<uint32_t>(asks_[p].size()));
      asks_[p].words.append(w);
      asks_[p].lengths.push_back(static_cast<uint32_t>(w.size()));
      bytes_ += w.size();
      tokens_.push_back(index);
    } else {
      tokens_.push_back(local_.value(r));
    }
    if (tokens_.size() >= limits_.tokens)
      flush();
  }

  void line() {
    if (!failed_.empty())
      return;
    tokens_.push_back(line_end);
    if (tokens_.size() >= limits_.tokens)
      flush();
  }

  // Joins and writes what the chunk holds; then it is empty.
  void flush() {
    if (!failed_.empty() || tokens_.empty())
      return;
    std::vector<std::vector<uint32_t>> ids(asks_.size());
    std::vector<size_t> asked(asks_.size()), asked_bytes(asks_.size());
    for (size_t p = 0; p < asks_.size(); ++p) {
      asked[p] = asks_[p].size();
      asked_bytes[p] = asks_[p].words.size();
    }
    if (auto s = lookup_(asks_, ids); !s) {
      failed_ = s.error();
      return;
    }
    if (ids.size() != asks_.size()) {
      failed_ =
        "the word partitions answered " + std::to_string(ids.size()) + " lookups of " + std::to_string(asks_.size());
      return;
    }
    for (size_t p = 0; p < asks_.size(); ++p)
      if (ids[p].size() != asked[p]) {
        failed_ = "word partition " + std::to_string(p) + " answered " + std::to_string(ids[p].size()) + " ids for " +
                  std::to_string(asked[p]) + " words";
        return;
      }
    std::vector<uint32_t> id_of(part_of_.size());
    for (size_t i = 0; i < part_of_.size(); ++i) {
      const uint32_t id = ids[part_of_[i]][place_of_[i]];
      if (id != vocabulary::npos && vocab_size_ > 0 && id >= vocab_size_) {
        failed_ = "word partition " + std::to_string(part_of_[i]) + " answered id " + std::to_string(id) +
                  ", outside a vocabulary of " + std::to_string(vocab_size_) + " words";
        return;
      }
      id_of[i] = id;
    }
    for (uint32_t t : tokens_) {
      if (t == line_end)
        out_.end_sentence();
      else if (id_of[t] != vocabulary::npos)
        out_.add(id_of[t]);
    }
    local_.clear_keeping_index();
    tokens_.clear();
    part_of_.clear();
    place_of_.clear();
    // The batches were moved into the lookup: made as large as they were,
    // not grown (and copied) word by word again.
    for (size_t p = 0; p < asks_.size(); ++p) {
      asks_[p].words.clear();
      asks_[p].lengths.clear();
      asks_[p].words.reserve(asked_bytes[p]);
      asks_[p].lengths.reserve(asked[p]);
    }
    bytes_ = 0;
  }

  const std::string& failed() const { return failed_; }

private:
  const join_lookup& lookup_;
  id_writer& out_;
  uint64_t vocab_size_;
  join_limits limits_;
  std::vector<word_batch> asks_;   // by partition
  word_map<uint32_t> local_;       // word -> index among the chunk's distinct words
  std::vector<uint32_t> part_of_;  // by index: the partition asked
  std::vector<uint32_t> place_of_; // by index: its place in that partition's batch
  std::vector<uint32_t> tokens_;
  uint64_t bytes_ = 0;
  std::string failed_;
};

} // namespace

status join_ids(const std::string& corpus, byte_range range, invalid_utf8 mode, uint32_t partitions,
                const join_lookup& lookup, const std::string& ids_path, uint64_t& words, uint64_t vocab_size,
                join_limits limits) {
  if (partitions == 0)
    return failure{"turning words into ids needs at least one word partition"};
  limits.distinct_words = std::max<uint64_t>(1, std::min(limits.distinct_words, max_lookup_words));
  limits.word_bytes = std::max<uint64_t>(1, std::min(limits.word_bytes, max_lookup_bytes));
  limits.tokens = std::max<uint64_t>(1, limits.tokens);
  auto writer = id_writer::create(ids_path);
  if (!writer)
    return failure{writer.error()};
  chunk_join chunk{partitions, lookup, *writer, vocab_size, limits};
  corpus_scanner scanner{corpus, mode};
  auto s = scanner.scan(
    range, [&](std::string_view w) { chunk.word(w); }, [&] { chunk.line(); });
  if (!s)
    return s;
  chunk.flush();
  if (!chunk.failed().empty())
    return failure{chunk.failed()};
  words = writer->words();
  return writer->close();
}

std::string check_lookup(const std::string& words, const std::vector<uint32_t>& lengths) {
  if (lengths.size() > max_lookup_words)
    return "a lookup of " + std::to_string(lengths.size()) + " words, more than " + std::to_string(max_lookup_words);
  if (words.size() > max_lookup_bytes)
    return "a lookup of " + std::to_string(words.size()) + " bytes of words, more than " +
           std::to_string(max_lookup_bytes);
  uint64_t sum = 0;
  for (uint32_t n : lengths)
    sum += n;
  if (sum != words.size())
    return "a lookup whose word lengths add up to " + std::to_string(sum) + " bytes, not its " +
           std::to_string(words.size());
  return {};
}

status write_ids_from_vocabulary(const vocabulary& vocab, const std::string& corpus, byte_range range,
                                 const std::string& ids_path, invalid_utf8 mode, uint64_t& words) {
  auto writer = id_writer::create(ids_path);
  if (!writer)
    return failure{writer.error()};
  corpus_scanner scanner{corpus, mode};
  auto s = scanner.scan(
    range,
    [&](std::string_view w) {
      uint32_t id = vocab.id_of(w);
      if (id != vocabulary::npos)
        writer->add(id);
    },
    [&] { writer->end_sentence(); });
  if (!s)
    return s;
  words = writer->words();
  return writer->close();
}

} // namespace gridvec
