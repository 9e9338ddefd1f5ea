#pragma once
// Counting the words of a stream in bounded memory. The distinct words are
// held in a word_map (count and first place beside each word); before a
// new word would take the counter past its budget, the words held are
// sorted by their bytes and written out as a run (src/corpus/count_runs.hpp)
// in a directory of the counter's own, and counting starts again with an
// empty map. merge() then reads the runs and what is still in memory as
// one stream in increasing byte order of the words, each word once with
// its count summed and its first place the smallest, and removes the runs.
//
// The budget covers everything the counter holds while counting: the map's
// arena and index, and the array a run is sorted by (8 bytes a word).
// merge() reads at most merge_fan_in runs at a time, each through a
// 64 KiB buffer, beside the words still in memory; more runs than that are
// first merged into fewer (each word then passes through the disk more
// than once). The counter's directory and its files are removed by merge()
// and, whatever happened, by the destructor.
//
// A run that cannot be written (a full disk, a directory that is not
// writable) ends the counting: add() does nothing more and merge()
// returns the line, "cannot write counts to PATH: REASON".
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/vocabulary.hpp>
#include <gridvec/core/word_map.hpp>
#include "src/corpus/count_runs.hpp"

namespace gridvec {

class bounded_counter {
public:
  /// The smallest budget: one arena chunk (1 MiB) and room for a few
  /// thousand words' index and sort array.
  static constexpr size_t min_budget = (size_t{1} << 20) + (size_t{64} << 10);
  /// Runs read at once by merge().
  static constexpr size_t merge_fan_in = 64;

  /// A counter that holds at most `budget_bytes` and spills into a new
  /// directory under `work_dir` (created, with missing parents, now: an
  /// unwritable place fails here, before any counting).
  static expected<bounded_counter> create(const std::string& work_dir, size_t budget_bytes);

  bounded_counter(bounded_counter&& other) noexcept;
  bounded_counter& operator=(bounded_counter&& other) noexcept;
  bounded_counter(const bounded_counter&) = delete;
  bounded_counter& operator=(const bounded_counter&) = delete;
  ~bounded_counter();

  /// One occurrence of `word`, the token at place `first` (word_counts'
  /// numbering: increasing through the corpus).
  void add(std::string_view word, uint64_t first) { add(word, 1, first); }
  /// `count` occurrences of `word`, the first at place `first`.
  void add(std::string_view word, uint64_t count, uint64_t first) { add_hashed(word, word_hash(word), count, first); }
  /// The same, `h` being word_hash(word) (computed once where it also
  /// chose the partition).
  void add_hashed(std::string_view word, uint64_t h, uint64_t count, uint64_t first) {
    if (!failure_.empty())
      return;
    if (const auto r = words_.find(word, h); r != 0) {
      word_counts::seen s = words_.value(r);
      s.count += count;
      s.first = first < s.first ? first : s.first;
      words_.set(r, s);
    } else {
      if (words_.memory_bytes_after_insert(word.size()) + (words_.size() + 1) * sizeof(uint64_t) > budget_ &&
          !make_room(word.size()))
        return;
      words_.insert(word, h, word_counts::seen{count, first});
    }
    tokens_ += count;
  }

  /// word_map's prefetch hints, for a word of hash `h` to be added soon.
  void prefetch_slot(uint64_t h) const { words_.prefetch_slot(h); }
  void prefetch_record(uint64_t h) const { words_.prefetch_record(h); }

  /// Whether counting goes on (no run failed to be written).
  bool ok() const { return failure_.empty(); }
  /// Occurrences added (the sum of every count).
  uint64_t tokens() const { return tokens_; }
  /// Runs written so far (merge() counts the intermediate ones too).
  size_t spills() const { return spills_; }
  /// Bytes written to runs so far.
  uint64_t spilled_bytes() const { return spilled_bytes_; }
  /// What the counter holds now: its map's arena and index.
  size_t memory_bytes() const { return words_.memory_bytes(); }
  /// Distinct words in memory now (not those in runs).
  size_t words_in_memory() const { return words_.size(); }
  size_t budget() const { return budget_; }
  /// The directory runs go to.
  const std::string& directory() const { return directory_; }

  /// Calls on_word for every word counted, in increasing byte order, each
  /// once (see above); then the counter is empty, its runs are gone, and it
  /// counts no more (a second merge fails).
  /// Fails with the line of a run that could not be written or read.
  status merge(const std::function<void(const counted_word&)>& on_word);
  /// The words counted, in no particular order, given away whole when
  /// nothing was spilled (there is no run to merge them with): no sort, no
  /// copy. Then, as after merge(), the counter counts no more. Nothing if
  /// a run was written or counting failed: merge() is the way then.
  std::optional<word_map<word_counts::seen>> take_words();

private:
  bounded_counter(std::string directory, size_t budget) : directory_(std::move(directory)), budget_(budget) {}
  // Spills the words held; false (failure_ set) if that fails or a word of
  // `word_bytes` bytes alone does not fit the budget.
  bool make_room(size_t word_bytes);
  bool spill();
  std::string run_path(size_t number) const;
  void remove_files();

  std::string directory_;
  size_t budget_ = 0;
  word_map<word_counts::seen> words_;
  std::vector<std::string> runs_;
  size_t next_run_ = 0;
  size_t spills_ = 0;
  uint64_t spilled_bytes_ = 0;
  uint64_t tokens_ = 0;
  std::string failure_;
};

} // namespace gridvec
