#include "src/corpus/word2vec_vocab.hpp"

#include <charconv>
#include <fstream>
#include <unordered_set>

#include "src/corpus/text_corpus.hpp" // max_token_bytes
#include "src/util/atomic_file.hpp"
#include "src/access/guarded_open.hpp"

namespace gridvec {

namespace {

constexpr const char* line_end_word = "</s>";

// The file of `n` words, next(word, count) giving each in turn (a failure
// leaves no file).
template <class Next>
status write_vocab(size_t n, Next next, uint64_t lines, const std::string& path) {
  auto file = atomic_file::create(path);
  if (!file)
    return failure{file.error()};
  std::FILE* f = file->stream();
  std::fprintf(f, "%s %llu\n", line_end_word, static_cast<unsigned long long>(lines));
  std::string_view word;
  uint64_t count = 0;
  for (size_t id = 0; id < n; ++id) {
    if (auto s = next(id, word, count); !s)
      return s;
    std::fwrite(word.data(), 1, word.size(), f);
    std::fprintf(f, " %llu\n", static_cast<unsigned long long>(count));
  }
  return file->commit();
}

} // namespace

status save_word2vec_vocab(const vocabulary& vocab, uint64_t lines, const std::string& path) {
  return write_vocab(
    vocab.size(),
    [&](size_t id, std::string_view& word, uint64_t& count) -> status {
      word = vocab.word(static_cast<uint32_t>(id));
      count = vocab.count(static_cast<uint32_t>(id));
      return {};
    },
    lines, path);
}

status save_word2vec_vocab(vocabulary_reader& words, uint64_t lines, const std::string& path) {
  std::string held;
  return write_vocab(
    words.size() - words.position(),
    [&](size_t, std::string_view& word, uint64_t& count) -> status {
      if (auto s = words.next(held, count); !s)
        return s;
      word = held;
      return {};
    },
    lines, path);
}

status save_word2vec_vocab(std::span<const std::string> words, std::span<const uint64_t> counts, uint64_t lines,
                           const std::string& path) {
  if (words.size() != counts.size())
    return failure{"cannot write " + path + ": " + std::to_string(words.size()) + " words and " +
                   std::to_string(counts.size()) + " counts"};
  return write_vocab(
    words.size(),
    [&](size_t id, std::string_view& word, uint64_t& count) -> status {
      word = words[id];
      count = counts[id];
      return {};
    },
    lines, path);
}

expected<word2vec_vocab_stream> word2vec_vocab_stream::open_guarded(const std::string& path) {
  auto opened = access::istream_read(path, "the vocabulary (-read-vocab)");
  if (!opened)
    return failure{opened.error()};
  word2vec_vocab_stream out;
  out.path_ = path;
  out.in_ = std::move(*opened);
  return out;
}

expected<bool> word2vec_vocab_stream::next(std::string& word, uint64_t& count) {
  while (std::getline(*in_, line_)) {
    ++number_;
    if (!line_.empty() && line_.back() == '\r')
      line_.pop_back();
    if (line_.empty())
      continue;
    const auto where = [&] { return path_ + ":" + std::to_string(number_) + ": "; };
    const auto space = line_.find(' ');
    count = 0;
    bool well_formed = space != std::string::npos && space > 0 && space + 1 < line_.size();
    if (well_formed) {
      auto [end, ec] = std::from_chars(line_.data() + space + 1, line_.data() + line_.size(), count);
      well_formed = ec == std::errc{} && end == line_.data() + line_.size();
    }
    if (!well_formed)
      return failure{where() + "expected 'WORD COUNT' (a word2vec vocabulary, as -save-vocab writes)"};
    if (space > max_token_bytes)
      return failure{where() + "a word longer than " + std::to_string(max_token_bytes) + " bytes"};
    word.assign(line_, 0, space);
    if (word == line_end_word) {
      lines_ += count;
      continue;
    }
    if (count == 0)
      continue;
    return true;
  }
  if (in_->bad())
    return failure{"cannot read the vocabulary " + path_ + " (-read-vocab)"};
  return false;
}

expected<count_table> read_word2vec_vocab(const std::string& path) {
  auto stream = word2vec_vocab_stream::open_guarded(path);
  if (!stream)
    return failure{stream.error()};
  count_table t;
  std::unordered_set<std::string> seen;
  std::string word;
  uint64_t count = 0;
  for (;;) {
    auto more = stream->next(word, count);
    if (!more)
      return failure{more.error()};
    if (!*more)
      break;
    if (!seen.insert(word).second)
      return failure{path + ":" + std::to_string(stream->line_number()) + ": '" + word + "' is listed twice"};
    t.add(word, count, t.size());
    t.total += count;
  }
  t.lines = stream->lines();
  if (t.size() == 0)
    return failure{path + " lists no words (-read-vocab)"};
  return t;
}

} // namespace gridvec
