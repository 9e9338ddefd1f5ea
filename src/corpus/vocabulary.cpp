#include <gridvec/core/vocabulary.hpp>

#include <algorithm>
#include <filesystem>
#include <charconv>
#include <cmath>
#include <fstream>

#include "src/util/atomic_file.hpp"
#include "src/access/guarded_open.hpp"
#include "src/corpus/vocabulary_reader.hpp"

namespace gridvec {

uint64_t word_key(std::string_view word) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : word) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

void count_table::add(std::string_view word, uint64_t count, uint64_t first) {
  words.append(word);
  lengths.push_back(static_cast<uint32_t>(word.size()));
  counts.push_back(count);
  firsts.push_back(first);
}

bool count_table::well_formed() const {
  if (counts.size() != lengths.size() || firsts.size() != lengths.size())
    return false;
  uint64_t bytes = 0;
  for (uint32_t n : lengths)
    bytes += n;
  return bytes == words.size();
}

void word_counts::add(std::string_view word, uint64_t count, uint64_t first) {
  auto [r, added] = words_.insert(word, seen{count, first});
  if (!added) {
    seen s = words_.value(r);
    s.count += count;
    s.first = std::min(s.first, first);
    words_.set(r, s);
  }
}

void word_counts::merge(const word_counts& other) {
  other.for_each([&](std::string_view word, seen s) { add(word, s.count, s.first); });
  total_ += other.total_;
  lines_ += other.lines_;
}

bool word_counts::merge(const count_table& table) {
  if (!table.well_formed())
    return false;
  words_.reserve(words_.size() + table.size());
  table.for_each([&](std::string_view word, uint64_t count, uint64_t first) { add(word, count, first); });
  total_ += table.total;
  lines_ += table.lines;
  return true;
}

count_table word_counts::to_table() const {
  count_table t;
  t.lengths.reserve(words_.size());
  t.counts.reserve(words_.size());
  t.firsts.reserve(words_.size());
  for_each([&](std::string_view word, seen s) { t.add(word, s.count, s.first); });
  t.total = total_;
  t.lines = lines_;
  return t;
}

count_table word_counts::release_table() {
  count_table t;
  t.lengths.reserve(words_.size());
  t.counts.reserve(words_.size());
  t.firsts.reserve(words_.size());
  words_.release([&](std::string_view word, seen s) { t.add(word, s.count, s.first); });
  t.words.shrink_to_fit();
  t.total = total_;
  t.lines = lines_;
  *this = word_counts{};
  return t;
}

void vocabulary::reserve(size_t words) {
  ids_.reserve(words);
  refs_.reserve(words);
  counts_.reserve(words);
}

bool vocabulary::add_word(std::string_view word, uint64_t count) {
  auto [r, added] = ids_.insert(word, static_cast<uint32_t>(refs_.size()));
  if (!added)
    return false;
  refs_.push_back(r);
  counts_.push_back(count);
  train_words_ += count;
  return true;
}

status vocabulary::save(const std::string& path) const {
  auto file = atomic_file::create(path);
  if (!file)
    return failure{file.error()};
  std::FILE* f = file->stream();
  std::fprintf(f, "gridvec-vocabulary 1 %u %llu\n", size(), static_cast<unsigned long long>(train_words_));
  for (uint32_t id = 0; id < size(); ++id) {
    const auto w = word(id);
    std::fprintf(f, "%llu ", static_cast<unsigned long long>(counts_[id]));
    std::fwrite(w.data(), 1, w.size(), f);
    std::fputc('\n', f);
  }
  return file->commit();
}

expected<vocabulary> vocabulary::load(const std::string& path) {
  auto reader = vocabulary_reader::open_guarded(path);
  if (!reader)
    return failure{reader.error()};
  vocabulary v;
  // The header's size is not trusted for the reservation: a damaged header
  // ("-5" reads as 2^64 - 5) made reserve() throw length_error or bad_alloc,
  // which ended the process instead of failing below (found by fuzzing,
  // tests/fuzz/fuzz_vocabulary.cpp). The file's size bounds it instead (a
  // word's line takes at least 4 bytes, "1 w\n"), so that a large
  // vocabulary's index is made once, not grown through every size.
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(path, ec);
  v.reserve(static_cast<size_t>(std::min<uint64_t>(reader->size(), ec ? uint64_t{1} << 20 : file_bytes / 4)));
  std::string word;
  uint64_t count = 0;
  while (reader->position() < reader->size()) {
    if (auto s = reader->next(word, count); !s)
      return failure{s.error()};
    if (!v.add_word(word, count))
      return failure{path + ": word '" + word + "' appears twice"};
  }
  return v; // the reader checked the counts against the header's total
}

expected<vocabulary> vocabulary::build(const word_counts& counts, uint64_t min_count, uint64_t max_size) {
  if (counts.total() == 0)
    return failure{"the corpus contains no words"};
  struct entry {
    std::string_view word;
    uint64_t count;
    uint64_t first;
  };
  std::vector<entry> kept;
  counts.for_each([&](std::string_view word, word_counts::seen s) {
    if (s.count >= min_count)
      kept.push_back({word, s.count, s.first});
  });
  if (kept.empty())
    return failure{"the vocabulary is empty: no word occurs at least " + std::to_string(min_count) +
                   " times (-min-count " + std::to_string(min_count) + ")"};
  std::sort(kept.begin(), kept.end(), [](const entry& a, const entry& b) {
    if (a.count != b.count)
      return a.count > b.count;
    return a.first != b.first ? a.first < b.first : a.word < b.word;
  });
  if (max_size > 0 && kept.size() > max_size)
    kept.resize(max_size);
  if (kept.size() > max_words)
    return failure{"the vocabulary would hold " + std::to_string(kept.size()) + " words, more than the " +
                   std::to_string(max_words) +
                   " that 32-bit word ids can number (raise -min-count or give -max-vocab)"};
  vocabulary v;
  v.reserve(kept.size());
  for (const auto& e : kept)
    v.add_word(e.word, e.count);
  return v;
}

subsampler::subsampler(const std::vector<uint64_t>& counts, uint64_t train_words, double sample) {
  keep_.resize(counts.size());
  const double tn = sample * static_cast<double>(train_words);
  for (size_t id = 0; id < counts.size(); ++id) {
    double p = 1.0;
    if (sample > 0) {
      double c = static_cast<double>(counts[id]);
      p = std::min(1.0, (std::sqrt(c / tn) + 1.0) * tn / c);
    }
    keep_[id] = static_cast<uint64_t>(p * 4294967296.0);
  }
}

} // namespace gridvec
