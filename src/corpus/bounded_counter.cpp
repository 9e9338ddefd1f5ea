#include "src/corpus/bounded_counter.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <vector>

#include <unistd.h>

#include "src/access/guarded_open.hpp"

namespace gridvec {

namespace {

// The words still in memory, sorted by their bytes, as a source for the
// merge.
class memory_source final : public count_source {
  using map = word_map<word_counts::seen>;

public:
  explicit memory_source(const map& words) : words_(words) {
    refs_.reserve(words.size());
    words.for_each([&](map::ref r) { refs_.push_back(r); });
    std::sort(refs_.begin(), refs_.end(), [&](map::ref a, map::ref b) { return words_.word(a) < words_.word(b); });
  }
  bool next() override {
    if (at_ == refs_.size())
      return false;
    const auto r = refs_[at_++];
    const word_counts::seen s = words_.value(r);
    current_ = {words_.word(r), s.count, s.first};
    return true;
  }
  const counted_word& current() const override { return current_; }
  const std::string& failed() const override { return none_; }

private:
  const map& words_;
  std::vector<map::ref> refs_;
  size_t at_ = 0;
  counted_word current_;
  std::string none_;
};

std::string with_spill_hint(const std::string& line) {
  return line + " (counting writes its words there when they do not fit its memory budget: free space there, "
                "or give it more memory)";
}

} // namespace

expected<bounded_counter> bounded_counter::create(const std::string& work_dir, size_t budget_bytes) {
  if (budget_bytes < min_budget)
    return failure{"a counting budget of " + std::to_string(budget_bytes) + " bytes is below the smallest, " +
                     std::to_string(min_budget),
                   error_code::invalid_argument};
  // A directory of its own: several counters (partitions, processes) may
  // share a work directory, and removing it removes every run.
  static std::atomic<uint64_t> sequence{0};
  std::string dir = (work_dir.empty() ? std::string{"."} : work_dir) + "/gridvec-counts-" + std::to_string(::getpid()) +
                    "-" + std::to_string(sequence.fetch_add(1));
  // The process's own directory (see count_runs.cpp): no path policy.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return failure{"cannot create the counting work directory " + dir + ": " + ec.message(), error_code::io};
  return bounded_counter{std::move(dir), budget_bytes};
}

bounded_counter::bounded_counter(bounded_counter&& other) noexcept
  : directory_(std::move(other.directory_)), budget_(other.budget_), words_(std::move(other.words_)),
    runs_(std::move(other.runs_)), next_run_(other.next_run_), spills_(other.spills_),
    spilled_bytes_(other.spilled_bytes_), tokens_(other.tokens_), failure_(std::move(other.failure_)) {
  other.directory_.clear();
  other.words_ = {};
}

bounded_counter& bounded_counter::operator=(bounded_counter&& other) noexcept {
  if (this != &other) {
    remove_files();
    directory_ = std::move(other.directory_);
    budget_ = other.budget_;
    words_ = std::move(other.words_);
    runs_ = std::move(other.runs_);
    next_run_ = other.next_run_;
    spills_ = other.spills_;
    spilled_bytes_ = other.spilled_bytes_;
    tokens_ = other.tokens_;
    failure_ = std::move(other.failure_);
    other.directory_.clear();
    other.words_ = {};
  }
  return *this;
}

bounded_counter::~bounded_counter() { remove_files(); }

void bounded_counter::remove_files() {
  if (directory_.empty())
    return;
  std::error_code ec;
  std::filesystem::remove_all(directory_, ec);
  runs_.clear();
}

std::string bounded_counter::run_path(size_t number) const { return directory_ + "/run-" + std::to_string(number); }

bool bounded_counter::make_room(size_t word_bytes) {
  if (words_.empty()) {
    failure_ = "a word of " + std::to_string(word_bytes) + " bytes does not fit a counting budget of " +
               std::to_string(budget_) + " bytes";
    return false;
  }
  const size_t held = words_.size();
  if (!spill())
    return false;
  // The next run holds about as many words: the index is made for them at
  // once instead of growing through every size again.
  words_.reserve(held);
  if (words_.memory_bytes_after_insert(word_bytes) + sizeof(uint64_t) > budget_)
    words_.clear();
  return true;
}

bool bounded_counter::spill() {
  std::string path = run_path(next_run_++);
  auto writer = run_writer::create(path);
  if (!writer) {
    failure_ = with_spill_hint(writer.error());
    return false;
  }
  {
    memory_source sorted{words_};
    while (sorted.next()) {
      const counted_word& w = sorted.current();
      writer->add(w.word, w.count, w.first);
    }
  }
  words_.clear();
  spilled_bytes_ += writer->bytes();
  runs_.push_back(path);
  ++spills_;
  if (auto closed = writer->close(); !closed) {
    failure_ = with_spill_hint(closed.error());
    return false;
  }
  return true;
}

std::optional<word_map<word_counts::seen>> bounded_counter::take_words() {
  if (!failure_.empty() || !runs_.empty())
    return std::nullopt;
  std::optional<word_map<word_counts::seen>> words{std::move(words_)};
  words_ = {};
  remove_files();
  failure_ = "these counts were merged already";
  return words;
}

status bounded_counter::merge(const std::function<void(const counted_word&)>& on_word) {
  auto done = [&](status s) {
    words_.clear();
    remove_files();
    if (failure_.empty())
      failure_ = "these counts were merged already";
    return s;
  };
  if (!failure_.empty())
    return done(failure{failure_, error_code::io});
  auto open_runs = [&](size_t count, std::vector<std::unique_ptr<count_source>>& sources) -> status {
    for (size_t i = 0; i < count; ++i) {
      std::string error;
      auto run = open_run(runs_[i], error);
      if (!run)
        return failure{error, error_code::io};
      sources.push_back(std::move(run));
    }
    return {};
  };
  // Too many runs to read at once: the oldest are merged into one, until
  // the rest and the words in memory fit the fan-in.
  while (runs_.size() + 1 > merge_fan_in) {
    std::vector<std::unique_ptr<count_source>> sources;
    if (auto opened = open_runs(merge_fan_in, sources); !opened)
      return done(opened);
    const std::string path = run_path(next_run_++);
    auto writer = run_writer::create(path);
    if (!writer)
      return done(failure{with_spill_hint(writer.error()), error_code::io});
    auto merged = merge_sources(sources, [&](const counted_word& w) { writer->add(w.word, w.count, w.first); });
    spilled_bytes_ += writer->bytes();
    auto closed = writer->close();
    if (!merged)
      return done(merged);
    if (!closed)
      return done(failure{with_spill_hint(closed.error()), error_code::io});
    sources.clear();
    std::error_code ec;
    for (size_t i = 0; i < merge_fan_in; ++i)
      std::filesystem::remove(runs_[i], ec);
    runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(merge_fan_in));
    runs_.push_back(path);
    ++spills_;
  }
  std::vector<std::unique_ptr<count_source>> sources;
  if (auto opened = open_runs(runs_.size(), sources); !opened)
    return done(opened);
  sources.push_back(std::make_unique<memory_source>(words_));
  return done(merge_sources(sources, on_word));
}

} // namespace gridvec
