#include <gridvec/core/vocabulary.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

#include "src/util/atomic_file.hpp"
#include "src/access/guarded_open.hpp"

namespace gridvec {

uint64_t word_key(std::string_view word) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : word) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

void word_counts::add(std::string_view word, uint64_t count, uint64_t first) {
  auto it = counts_.find(word);
  if (it == counts_.end()) {
    counts_.emplace(std::string{word}, seen{count, first});
  } else {
    it->second.count += count;
    it->second.first = std::min(it->second.first, first);
  }
}

void word_counts::merge(const word_counts& other) {
  for (const auto& [word, s] : other.counts_)
    add(word, s.count, s.first);
  total_ += other.total_;
  lines_ += other.lines_;
}

void word_counts::merge(const count_table& table) {
  for (size_t i = 0; i < table.words.size() && i < table.counts.size(); ++i)
    add(table.words[i], table.counts[i], i < table.firsts.size() ? table.firsts[i] : UINT64_MAX);
  total_ += table.total;
  lines_ += table.lines;
}

count_table word_counts::to_table() const {
  count_table t;
  t.words.reserve(counts_.size());
  t.counts.reserve(counts_.size());
  t.firsts.reserve(counts_.size());
  for (const auto& [word, s] : counts_) {
    t.words.push_back(word);
    t.counts.push_back(s.count);
    t.firsts.push_back(s.first);
  }
  t.total = total_;
  t.lines = lines_;
  return t;
}

void vocabulary::add_word(std::string word, uint64_t count) {
  ids_.emplace(word, static_cast<uint32_t>(words_.size()));
  words_.push_back(std::move(word));
  counts_.push_back(count);
  train_words_ += count;
}

status vocabulary::save(const std::string& path) const {
  auto file = atomic_file::create(path);
  if (!file)
    return failure{file.error()};
  std::FILE* f = file->stream();
  std::fprintf(f, "gridvec-vocabulary 1 %u %llu\n", size(), static_cast<unsigned long long>(train_words_));
  for (uint32_t id = 0; id < size(); ++id)
    std::fprintf(f, "%llu %s\n", static_cast<unsigned long long>(counts_[id]), words_[id].c_str());
  return file->commit();
}

expected<vocabulary> vocabulary::load(const std::string& path) {
  auto opened = access::istream_read(path, "vocabulary");
  if (!opened)
    return failure{opened.error()};
  std::istream& in = **opened;
  std::string magic;
  int version = 0;
  uint64_t size = 0, train_words = 0;
  if (!(in >> magic >> version >> size >> train_words) || magic != "gridvec-vocabulary" || version != 1)
    return failure{path + " is not a gridvec vocabulary file"};
  vocabulary v;
  // The header's size is not trusted for the reservation: a damaged header
  // ("-5" reads as 2^64 - 5) made reserve() throw length_error or bad_alloc,
  // which ended the process instead of failing below (found by fuzzing,
  // tests/fuzz/fuzz_vocabulary.cpp). A larger vocabulary still loads.
  const auto reserve = static_cast<size_t>(std::min<uint64_t>(size, uint64_t{1} << 20));
  v.words_.reserve(reserve);
  v.counts_.reserve(reserve);
  v.ids_.reserve(reserve);
  for (uint64_t i = 0; i < size; ++i) {
    uint64_t count = 0;
    std::string word;
    if (!(in >> count >> word) || count == 0)
      return failure{path + ": malformed entry " + std::to_string(i + 1)};
    if (v.ids_.count(word))
      return failure{path + ": word '" + word + "' appears twice"};
    v.add_word(std::move(word), count);
  }
  if (v.train_words_ != train_words)
    return failure{path + ": counts do not add up to the header's total (truncated file?)"};
  return v;
}

expected<vocabulary> vocabulary::build(const word_counts& counts, uint64_t min_count, uint64_t max_size) {
  if (counts.total() == 0)
    return failure{"the corpus contains no words"};
  struct entry {
    const std::string* word;
    uint64_t count;
    uint64_t first;
  };
  std::vector<entry> kept;
  for (const auto& [word, s] : counts.map())
    if (s.count >= min_count)
      kept.push_back({&word, s.count, s.first});
  if (kept.empty())
    return failure{"the vocabulary is empty: no word occurs at least " + std::to_string(min_count) +
                   " times (-min-count " + std::to_string(min_count) + ")"};
  std::sort(kept.begin(), kept.end(), [](const entry& a, const entry& b) {
    if (a.count != b.count)
      return a.count > b.count;
    return a.first != b.first ? a.first < b.first : *a.word < *b.word;
  });
  if (max_size > 0 && kept.size() > max_size)
    kept.resize(max_size);
  vocabulary v;
  v.words_.reserve(kept.size());
  v.counts_.reserve(kept.size());
  v.ids_.reserve(kept.size());
  for (const auto& e : kept)
    v.add_word(*e.word, e.count);
  return v;
}

subsampler::subsampler(const vocabulary& vocab, double sample) {
  keep_.resize(vocab.size());
  const double tn = sample * static_cast<double>(vocab.train_words());
  for (uint32_t id = 0; id < vocab.size(); ++id) {
    double p = 1.0;
    if (sample > 0) {
      double c = static_cast<double>(vocab.count(id));
      p = std::min(1.0, (std::sqrt(c / tn) + 1.0) * tn / c);
    }
    keep_[id] = static_cast<uint64_t>(p * 4294967296.0);
  }
}

} // namespace gridvec
