#include <gridvec/roles/vocabulary.hpp>

#include "src/access/guarded_open.hpp"
#include "src/access/path_policy.hpp"

#include <caf/scoped_actor.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include "actors/partition_join.hpp"
#include "src/corpus/partition_words.hpp"
#include "src/corpus/partitioned_count.hpp"
#include "src/corpus/sharded_counter.hpp"
#include "src/corpus/text_corpus.hpp"
#include "src/corpus/vocabulary_partition.hpp"
#include "src/corpus/vocabulary_counts.hpp"
#include "src/corpus/vocabulary_writer.hpp"
#include "src/corpus/word2vec_vocab.hpp"
#include "src/corpus/word_join.hpp"
#include "src/formats/checkpoint.hpp"
#include "src/model/memory_plan.hpp"
#include "src/sgns/huffman_tree.hpp"

namespace gridvec {

namespace {

// Counting a whole corpus part may take long; a dead partition's node is
// noticed by the supervisor, not through this.
constexpr auto partition_timeout = std::chrono::seconds(30 * 24 * 3600);
// Words a page from a partition carries at most (a page of id-like words
// is a few MB).
constexpr uint64_t max_page_words = vocabulary_page_words; // what the memory plan counts on
// What a count worker fills before it sends its counts on: over every
// partition, and so what one merge message carries at most (well under
// max-message-mb's default of 64). It holds up to twice that, with the
// tables the partitions give back (partition_sender). Kept tables made
// 32 MiB no faster than 16 and cost 80 MiB more peak at V = 3M.
constexpr size_t worker_buffer_bytes = size_t{16} << 20;

// Sends `msg...` to `part` and waits for its reply, put into `reply`.
template <class Reply, class Actor, class... Ts>
status ask(caf::actor_system& sys, const Actor& part, Reply& reply, Ts&&... msg) {
  caf::scoped_actor blocking{sys};
  status result;
  blocking->request(part, partition_timeout, std::forward<Ts>(msg)...)
    .receive([&](Reply& r) { reply = std::move(r); }, [&](caf::error& err) { result = failure{error_text(err)}; });
  return result;
}

// A count worker's counts, one map per partition, sent on to the
// partitions whenever one grows past its share of the buffer. A send does
// not wait for the partition: the worker counts on while the partition
// merges, and waits only before its next send to the same partition, so
// that at most one table per partition is in flight (the partition's
// reply is the back-pressure).
//
// The map pays where words repeat within a buffer (natural text: a
// table of distinct words is a fraction of its tokens). Where they hardly
// do (id-like words, a vocabulary file), counting them twice, here and in
// the partition, only costs time: once a map's table holds more than
// 2/3 as many words as it counted tokens, the next `pass_through_tables`
// tables to that partition carry the tokens as they come, each with a
// count of 1, and then one map measures again.
//
// A partition answers with the table it merged, emptied. In one process
// that is the same memory, and the sender fills it again: two tables a
// partition go back and forth. (Every block of that size is a mapping of
// its own, apps/cli/main.cpp: a table freed after each merge came back
// from the OS a page fault every 4 KB, a third of counting's faults.)
class partition_sender {
public:
  partition_sender(caf::actor_system& sys, const std::vector<vocabulary_partition_actor>& parts)
    : self_(sys), parts_(parts), out_(parts.size()), in_flight_(parts.size()),
      flush_bytes_(std::max<size_t>(worker_buffer_bytes / parts.size(), size_t{4} << 20)) {}

  void add(std::string_view word, uint64_t count, uint64_t first) {
    if (!failed_.empty())
      return;
    const uint64_t h = word_hash(word);
    const uint32_t p = word_partition_of_hash(h, static_cast<uint32_t>(parts_.size()));
    auto& o = out_[p];
    if (o.pass_through > 0) {
      o.table.add(word, count, first);
      if (o.table.words.size() + o.table.size() * raw_entry_bytes > flush_bytes_)
        send(p);
      return;
    }
    ++o.added;
    auto [r, added] = o.map.insert(word, h, word_counts::seen{count, first});
    if (!added) {
      auto seen = o.map.value(r);
      seen.count += count;
      seen.first = std::min(seen.first, first);
      o.map.set(r, seen);
    } else if (o.map.memory_bytes() > flush_bytes_) {
      send(p);
    }
  }

  // Sends what is left and waits for every partition; fails with the
  // first partition's error.
  status finish() {
    for (uint32_t p = 0; p < out_.size(); ++p)
      send(p);
    for (uint32_t p = 0; p < out_.size(); ++p)
      wait(p);
    if (!failed_.empty())
      return failure{failed_};
    return {};
  }

private:
  using handle = decltype(std::declval<caf::scoped_actor&>()->request(
    std::declval<vocabulary_partition_actor&>(), partition_timeout, merge_atom::value, count_table{}));
  // Tables passed through after a map that saved little.
  static constexpr int pass_through_tables = 8;
  // A passed-through token's bytes in its table beside the word's own:
  // its length, count and first place.
  static constexpr size_t raw_entry_bytes = sizeof(uint32_t) + 2 * sizeof(uint64_t);

  struct outgoing {
    word_map<word_counts::seen> map;
    uint64_t added = 0;   // words given to the map since it was last sent
    count_table table;    // passed-through tokens
    count_table spare;    // the table the partition gave back last
    int pass_through = 0; // tables still to pass through
  };

  // The partition's last table back, emptied (with its memory where the
  // partition is in this process).
  count_table take_spare(uint32_t p) {
    count_table t = std::move(out_[p].spare);
    out_[p].spare = count_table{};
    t.clear();
    return t;
  }

  void send(uint32_t p) {
    auto& o = out_[p];
    if (!failed_.empty())
      return;
    count_table table;
    bool refill = false; // passed-through tokens fill another table
    if (o.pass_through > 0) {
      if (o.table.size() == 0)
        return;
      table = std::move(o.table);
      o.table = count_table{};
      refill = --o.pass_through > 0;
    } else {
      if (o.map.empty())
        return;
      table = take_spare(p);
      table.lengths.reserve(o.map.size());
      table.counts.reserve(o.map.size());
      table.firsts.reserve(o.map.size());
      table.words.reserve(o.map.memory_bytes());
      o.map.release([&](std::string_view w, word_counts::seen s) { table.add(w, s.count, s.first); });
      if (table.size() * 3 > o.added * 2) {
        o.pass_through = pass_through_tables;
        refill = true;
      }
      o.added = 0;
    }
    wait(p); // the table sent before comes back as the spare
    if (!failed_.empty())
      return;
    if (refill) { // reserved, not touched: a fresh page is taken only when written
      o.table = take_spare(p);
      reserve_raw(o.table);
    }
    in_flight_[p].emplace(self_->request(parts_[p], partition_timeout, merge_atom::value, std::move(table)));
  }

  void reserve_raw(count_table& t) const {
    const size_t most = flush_bytes_ / raw_entry_bytes;
    t.lengths.reserve(most);
    t.counts.reserve(most);
    t.firsts.reserve(most);
    t.words.reserve(flush_bytes_);
  }

  void wait(uint32_t p) {
    if (!in_flight_[p])
      return;
    in_flight_[p]->receive([&](count_table& back) { out_[p].spare = std::move(back); },
                           [&](caf::error& err) {
                             if (failed_.empty())
                               failed_ = "vocabulary partition " + std::to_string(p) + ": " + error_text(err);
                           });
    in_flight_[p].reset();
  }

  caf::scoped_actor self_;
  const std::vector<vocabulary_partition_actor>& parts_;
  std::vector<outgoing> out_;
  std::vector<std::optional<handle>> in_flight_;
  size_t flush_bytes_;
  std::string failed_;
};

status check_partitions(const std::vector<vocabulary_partition_actor>& parts) {
  if (parts.empty() || parts.size() > vocabulary_layout::max_partitions)
    return failure{"counting needs 1 to " + std::to_string(vocabulary_layout::max_partitions) +
                   " vocabulary partitions, got " + std::to_string(parts.size())};
  for (const auto& p : parts)
    if (!p)
      return failure{"a vocabulary partition that is no actor"};
  return {};
}

count_worker_actor::behavior_type count_worker(count_worker_actor::pointer self) {
  self->set_default_handler(caf::drop); // unexpected messages: an error reply, never printed (node_actor.cpp)
  return {
    [self](count_atom, const std::string& path, uint64_t begin, uint64_t end, uint8_t mode,
           const std::vector<vocabulary_partition_actor>& parts) -> caf::result<count_table> {
      if (auto s = check_partitions(parts); !s)
        return make_job_error(s.error());
      partition_sender out{self->system(), parts};
      // Numbered from the part's first byte, as word_counts numbers them,
      // so that first places agree with one process's count.
      count_table totals;
      uint64_t place = begin;
      corpus_scanner scanner{path, static_cast<invalid_utf8>(mode)};
      auto s = scanner.scan(
        {begin, end}, [&](std::string_view w) { out.add(w, 1, place++); }, [&] { ++totals.lines; });
      if (!s)
        return make_job_error(s.error());
      if (auto sent = out.finish(); !sent)
        return make_job_error(sent.error());
      totals.total = place - begin;
      return totals;
    },
    // -read-vocab, or a model's words (--init): the file's words and
    // counts, in its order among equal counts, sent on as they are read
    // (this node never holds them all), and how many it lists: the
    // vocabulary's builder refuses the file if the partitions found fewer
    // distinct words (one listed twice).
    [self](load_atom, const std::string& word2vec_vocab,
           const std::vector<vocabulary_partition_actor>& parts) -> caf::result<count_table, uint64_t> {
      if (auto s = check_partitions(parts); !s)
        return make_job_error(s.error());
      auto stream = word2vec_vocab_stream::open_guarded(word2vec_vocab);
      if (!stream)
        return make_job_error(stream.error());
      partition_sender out{self->system(), parts};
      count_table totals;
      uint64_t entries = 0;
      std::string word;
      uint64_t count = 0;
      for (;;) {
        auto more = stream->next(word, count);
        if (!more) {
          (void)out.finish();
          return make_job_error(more.error());
        }
        if (!*more)
          break;
        out.add(word, count, entries++);
        totals.total += count;
      }
      if (auto sent = out.finish(); !sent)
        return make_job_error(sent.error());
      if (entries == 0)
        return make_job_error(word2vec_vocab + " lists no words (-read-vocab)");
      totals.lines = stream->lines();
      return {std::move(totals), entries};
    },
    // --init, once the vocabulary is built: the model's rows as job ids,
    // looked up in the partitions (a shard then needs no words). On this
    // node, which read the model's words for the counts.
    [self](row_map_atom, const std::string& model_vocab, const std::string& path, uint64_t vocab_size,
           uint64_t vocab_crc,
           const std::vector<vocabulary_partition_actor>& parts) -> caf::result<uint64_t, uint64_t> {
      if (auto s = check_partitions(parts); !s)
        return make_job_error(s.error());
      auto made = row_map_through_partitions(self->system(), parts, model_vocab, path, vocab_size, vocab_crc);
      if (!made)
        return make_job_error(made.error());
      return {made->rows, made->found};
    },
  };
}

struct partition_state {
  std::optional<sharded_counter> counter;    // until collect
  std::string unusable;                      // why the counter could not be made
  std::optional<vocabulary_partition> words; // from collect on
  bool assigned = false;
  vocabulary_partition::lookup_scratch lookup_scratch; // kept between lookups
  static inline const char* name = "vocabulary-partition";
};

vocabulary_partition_actor::behavior_type
vocabulary_partition_behavior(vocabulary_partition_actor::stateful_pointer<partition_state> self, std::string spill_dir,
                              uint64_t budget) {
  self->set_default_handler(caf::drop);
  auto counter = sharded_counter::create(spill_dir, std::max<uint64_t>(budget, bounded_counter::min_budget),
                                         sharded_counter::default_shards());
  if (counter)
    self->state.counter.emplace(std::move(*counter));
  else
    self->state.unusable = "the vocabulary partition cannot count: " + counter.error();
  auto out_of_order = [self](const char* step) {
    return make_job_error(self->state.unusable.empty()
                            ? std::string{"the vocabulary partition was asked to "} + step + " out of order"
                            : self->state.unusable);
  };
  return {
    [self, out_of_order](merge_atom, count_table& part) -> caf::result<count_table> {
      auto& st = self->state;
      if (!st.counter)
        return out_of_order("count");
      if (!part.well_formed())
        return make_job_error("a count table whose words, lengths and counts disagree");
      st.counter->add(part);
      part.clear();
      return std::move(part);
    },
    [self, out_of_order](collect_atom, uint64_t min_count) -> caf::result<partition_counts> {
      auto& st = self->state;
      if (!st.counter)
        return out_of_order("collect");
      const uint64_t spills = st.counter->spills();
      auto words = vocabulary_partition::collect(st.counter->shards(), std::max<uint64_t>(min_count, 1));
      st.counter.reset(); // its runs are gone; the directory with it
      if (!words)
        return make_job_error(words.error());
      partition_counts out;
      for (const auto& c : words->histogram()) {
        out.counts.push_back(c.count);
        out.words.push_back(c.words);
      }
      out.tokens = words->tokens();
      out.distinct = words->distinct();
      out.spills = spills;
      st.words.emplace(std::move(*words));
      return out;
    },
    [self, out_of_order](earlier_atom, uint64_t count, uint64_t first_limit) -> caf::result<uint64_t> {
      if (!self->state.words || self->state.assigned)
        return out_of_order("compare first places");
      return self->state.words->earlier(count, first_limit);
    },
    [self, out_of_order](assign_ids_atom, const std::vector<uint64_t>& code,
                         uint32_t partition) -> caf::result<uint64_t> {
      auto& st = self->state;
      if (!st.words || st.assigned)
        return out_of_order("number its words");
      auto layout = vocabulary_layout::decode(code);
      if (!layout)
        return make_job_error(layout.error());
      if (partition >= layout->partitions())
        return make_job_error("partition " + std::to_string(partition) + " of a layout of " +
                              std::to_string(layout->partitions()));
      st.words->assign(*layout, partition);
      st.assigned = true;
      return st.words->size();
    },
    [self, out_of_order](page_atom, uint64_t most, count_table& page) -> caf::result<count_table> {
      auto& st = self->state;
      if (!st.assigned)
        return out_of_order("send its words");
      page.clear(); // the page before, given back: filled again, in its memory
      const size_t given = st.words->next_page(static_cast<size_t>(std::min(most, max_page_words)), page);
      // Every word is in the file now: the join needs only the ids.
      if (given == 0)
        st.words->keep_ids_only();
      return std::move(page);
    },
    // Its words from the job's vocabulary file instead of a count: only
    // before anything was counted.
    [self, out_of_order](load_atom, const std::string& path, uint32_t partition, uint32_t partitions, uint64_t size,
                         uint32_t crc) -> caf::result<uint64_t> {
      auto& st = self->state;
      if (!st.counter || st.counter->tokens() > 0)
        return out_of_order("read its words back");
      auto words = read_partition_words(path, partition, partitions, size, crc);
      if (!words)
        return make_job_error("vocabulary partition " + std::to_string(partition) + ": " + words.error());
      st.counter.reset();
      st.words.emplace(std::move(*words));
      st.assigned = true;
      return st.words->size();
    },
    // The join: a learner's chunk of distinct words -> their ids. Checked
    // (bounds, lengths adding up) before the answer is allocated.
    [self, out_of_order](lookup_atom, const std::string& words,
                         const std::vector<uint32_t>& lengths) -> caf::result<std::vector<uint32_t>> {
      auto& st = self->state;
      if (!st.assigned)
        return out_of_order("look words up");
      if (auto why = check_lookup(words, lengths); !why.empty())
        return make_job_error(why);
      std::vector<uint32_t> ids;
      st.words->ids_of(words, lengths, ids, st.lookup_scratch);
      return ids;
    },
  };
}

// The builder's one job, blocking on the partitions (see the header).
expected<vocabulary_info> build_vocabulary(caf::actor_system& sys, const vocabulary_build& what) {
  const auto& parts = what.partitions;
  if (auto s = check_partitions(parts); !s)
    return failure{s.error()};
  std::vector<count_histogram> histograms;
  uint64_t tokens = 0, distinct = 0, spills = 0;
  for (uint32_t p = 0; p < parts.size(); ++p) {
    partition_counts counted;
    if (auto s = ask(sys, parts[p], counted, collect_atom::value, what.min_count); !s)
      return failure{"vocabulary partition " + std::to_string(p) + ": " + s.error()};
    if (counted.counts.size() != counted.words.size())
      return failure{"vocabulary partition " + std::to_string(p) + " sent a histogram that does not add up"};
    count_histogram h;
    for (size_t i = 0; i < counted.counts.size(); ++i)
      h.push_back({counted.counts[i], counted.words[i]});
    histograms.push_back(std::move(h));
    tokens += counted.tokens;
    distinct += counted.distinct;
    spills += counted.spills;
  }
  // The partitions merge a word listed twice into one: fewer distinct
  // words than the file listed is how that shows.
  if (what.listed_words > 0 && distinct != what.listed_words)
    return failure{"the vocabulary lists a word more than once (" + std::to_string(what.listed_words) + " entries, " +
                   std::to_string(distinct) + " distinct words)"};
  std::string asked_failure;
  auto earlier = [&](uint32_t p, uint64_t count, uint64_t limit) -> uint64_t {
    uint64_t n = 0;
    if (auto s = ask(sys, parts[p], n, earlier_atom::value, count, limit); !s && asked_failure.empty())
      asked_failure = s.error();
    return n;
  };
  auto layout = vocabulary_layout::decide(histograms, tokens, what.min_count, what.max_size, earlier);
  if (!asked_failure.empty())
    return failure{asked_failure};
  if (!layout)
    return failure{layout.error()};
  const auto code = layout->encode();
  for (uint32_t p = 0; p < parts.size(); ++p) {
    uint64_t kept = 0;
    if (auto s = ask(sys, parts[p], kept, assign_ids_atom::value, code, p); !s)
      return failure{"vocabulary partition " + std::to_string(p) + ": " + s.error()};
  }
  auto page = [&](uint32_t p, count_table spare) -> expected<count_table> {
    count_table words;
    if (auto s = ask(sys, parts[p], words, page_atom::value, max_page_words, std::move(spare)); !s)
      return failure{"vocabulary partition " + std::to_string(p) + ": " + s.error()};
    return words;
  };
  if (auto s = write_vocabulary_files(*layout, page, what.lines, what.path, what.word2vec_path); !s)
    return failure{s.error()};
  // Its counts beside it, from the layout alone: what shards and learners
  // load instead of the words.
  auto crc = file_crc32(what.path);
  if (!crc)
    return failure{crc.error()};
  if (auto s = write_vocabulary_counts(layout->id_count_runs(), layout->train_words(), *crc,
                                       vocabulary_counts_path(what.path));
      !s)
    return failure{s.error()};
  vocabulary_info info;
  info.path = what.path;
  info.size = layout->size();
  info.train_words = layout->train_words();
  info.raw_words = what.corpus_tokens > 0 ? what.corpus_tokens : tokens;
  info.distinct_words = distinct;
  info.lines = what.lines;
  info.spills = spills;
  return info;
}

vocabulary_builder_actor::behavior_type vocabulary_builder(vocabulary_builder_actor::pointer self) {
  return {
    [self](build_atom, const vocabulary_build& what) -> caf::result<vocabulary_info> {
      auto info = build_vocabulary(self->system(), what);
      if (!info)
        return make_job_error(info.error());
      return *info;
    },
  };
}

} // namespace

count_worker_actor spawn_count_worker(caf::actor_system& sys) { return sys.spawn<caf::detached>(count_worker); }

vocabulary_partition_actor spawn_vocabulary_partition(caf::actor_system& sys, std::string spill_dir,
                                                      uint64_t budget_bytes) {
  return sys.spawn<caf::detached>(vocabulary_partition_behavior, std::move(spill_dir), budget_bytes);
}

uint64_t default_count_memory(uint64_t node_memory_bytes) {
  return std::max<uint64_t>(node_memory_bytes / 4, bounded_counter::min_budget);
}

vocabulary_builder_actor spawn_vocabulary_builder(caf::actor_system& sys) {
  return sys.spawn<caf::detached>(vocabulary_builder);
}

expected<vocabulary_ptr> load_shared_vocabulary(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const vocabulary>> loaded;
  std::lock_guard<std::mutex> guard{mutex};
  // Keyed by path and file identity, so a rewritten file is loaded afresh.
  // Opened under the path policy first: a path outside the allowed
  // directories gets the policy's line, whether or not a file is there.
  auto fd = access::open_read(path, "vocabulary");
  if (!fd)
    return failure{fd.error()};
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0)
    return failure{"cannot read vocabulary " + path};
  std::string key = path + '|' + std::to_string(st.st_ino) + '|' + std::to_string(st.st_mtim.tv_sec) + '.' +
                    std::to_string(st.st_mtim.tv_nsec) + '|' + std::to_string(st.st_size);
  if (auto p = loaded[key].lock())
    return vocabulary_ptr{p};
  auto v = vocabulary::load(path);
  if (!v)
    return failure{v.error()};
  auto p = std::make_shared<const vocabulary>(std::move(*v));
  loaded[key] = p;
  return vocabulary_ptr{p};
}

expected<vocabulary_counts_ptr> load_shared_counts(const std::string& vocab_path) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const vocabulary_counts>> loaded;
  std::lock_guard<std::mutex> guard{mutex};
  const std::string path = vocabulary_counts_path(vocab_path);
  // The vocabulary path the peer named gets the policy's line, as if it
  // were opened (it is not: only the counts beside it are).
  if (auto allowed = access::process_policy()->may_read(vocab_path, "vocabulary"); !allowed)
    return failure{allowed.error()};
  // Keyed as load_shared_vocabulary's: a rewritten file is loaded afresh.
  auto fd = access::open_read(path, "the vocabulary's counts");
  if (!fd)
    return failure{fd.error()};
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0)
    return failure{"cannot read " + path};
  std::string key = path + '|' + std::to_string(st.st_ino) + '|' + std::to_string(st.st_mtim.tv_sec) + '.' +
                    std::to_string(st.st_mtim.tv_nsec) + '|' + std::to_string(st.st_size);
  for (auto it = loaded.begin(); it != loaded.end();) // forget finished jobs'
    it = it->second.expired() ? loaded.erase(it) : std::next(it);
  if (auto p = loaded[key].lock())
    return vocabulary_counts_ptr{p};
  auto c = read_vocabulary_counts(path);
  if (!c)
    return failure{c.error()};
  auto p = std::make_shared<const vocabulary_counts>(std::move(*c));
  loaded[key] = p;
  return vocabulary_counts_ptr{p};
}

namespace {

// The tree of `counts`, which `owner` holds, built once for as long as
// someone holds it. Keyed by the owner's address; the entry also remembers
// the owner, so that a new one at a freed one's address is not taken for it.
std::shared_ptr<const huffman_tree> tree_of(const std::shared_ptr<const void>& owner,
                                            const std::vector<uint64_t>& counts) {
  static std::mutex mutex;
  struct entry {
    std::weak_ptr<const void> owner;
    std::weak_ptr<const huffman_tree> tree;
  };
  static std::map<const void*, entry> built;
  std::lock_guard<std::mutex> guard{mutex};
  for (auto it = built.begin(); it != built.end();) // forget finished jobs'
    it = it->second.owner.expired() ? built.erase(it) : std::next(it);
  entry& e = built[owner.get()];
  if (auto tree = e.tree.lock(); tree && e.owner.lock() == owner)
    return tree;
  auto tree = std::make_shared<const huffman_tree>(huffman_tree::from_counts(counts));
  e = {owner, tree};
  return tree;
}

} // namespace

std::shared_ptr<const huffman_tree> shared_huffman_tree(const vocabulary_ptr& vocab) {
  return tree_of(vocab, vocab->counts());
}

std::shared_ptr<const huffman_tree> shared_huffman_tree(const vocabulary_counts_ptr& counts) {
  return tree_of(counts, counts->counts);
}

} // namespace gridvec
