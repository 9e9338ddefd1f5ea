#include <gridvec/roles/vocabulary.hpp>

#include "src/access/guarded_open.hpp"

#include <sys/stat.h>

#include <map>
#include <mutex>

#include "src/corpus/text_corpus.hpp"
#include "src/corpus/word2vec_vocab.hpp"
#include "src/sgns/huffman_tree.hpp"

namespace gridvec {

namespace {

count_worker_actor::behavior_type count_worker(count_worker_actor::pointer self) {
  self->set_default_handler(caf::drop); // unexpected messages: an error reply, never printed (node_actor.cpp)
  return {
    [](count_atom, const std::string& path, uint64_t begin, uint64_t end, uint8_t mode) -> caf::result<count_table> {
      // Numbered from the part's first byte: see word_counts.
      word_counts counts{begin};
      corpus_scanner scanner{path, static_cast<invalid_utf8>(mode)};
      auto s = scanner.scan(
        {begin, end}, [&](std::string_view w) { counts.add(w); }, [&] { counts.add_line_end(); });
      if (!s)
        return make_job_error(s.error());
      return counts.release_table();
    },
  };
}

struct vocabulary_state {
  word_counts merged;
  // Tokens of the corpus: the counted parts' (merge), not a saved model's
  // or vocabulary file's counts (load) added to them. Without counted
  // parts (-read-vocab) the loaded counts stand for the corpus.
  uint64_t corpus_tokens = 0;
  bool counted = false;
  static inline const char* name = "vocabulary";
};

vocabulary_actor::behavior_type vocabulary_behavior(vocabulary_actor::stateful_pointer<vocabulary_state> self) {
  self->set_default_handler(caf::drop); // unexpected messages: an error reply, never printed (node_actor.cpp)
  return {
    [self](merge_atom, const count_table& part) -> caf::result<uint64_t> {
      if (!self->state.merged.merge(part))
        return make_job_error("a count table whose words, lengths and counts disagree");
      self->state.corpus_tokens += part.total;
      self->state.counted = true;
      return self->state.merged.distinct();
    },
    // -read-vocab: the counts come from a file instead of the corpus.
    [self](load_atom, const std::string& word2vec_vocab) -> caf::result<uint64_t> {
      auto table = read_word2vec_vocab(word2vec_vocab);
      if (!table)
        return make_job_error(table.error());
      self->state.merged.merge(*table);
      return self->state.merged.distinct();
    },
    [self](build_atom, uint64_t min_count, uint64_t max_size, const std::string& path,
           const std::string& word2vec_vocab) -> caf::result<vocabulary_info> {
      auto& merged = self->state.merged;
      auto v = vocabulary::build(merged, min_count, max_size);
      if (!v)
        return make_job_error(v.error());
      if (auto s = v->save(path); !s)
        return make_job_error(s.error());
      // -save-vocab: the same vocabulary in word2vec.c's format.
      if (!word2vec_vocab.empty())
        if (auto s = save_word2vec_vocab(*v, merged.lines(), word2vec_vocab); !s)
          return make_job_error(s.error());
      const uint64_t raw = self->state.counted ? self->state.corpus_tokens : merged.total();
      vocabulary_info info{path, v->size(), v->train_words(), raw, merged.distinct(), merged.lines()};
      merged = word_counts{}; // the counts are not needed again
      return info;
    },
  };
}

} // namespace

count_worker_actor spawn_count_worker(caf::actor_system& sys) { return sys.spawn<caf::detached>(count_worker); }

vocabulary_actor spawn_vocabulary(caf::actor_system& sys) { return sys.spawn(vocabulary_behavior); }

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

std::shared_ptr<const huffman_tree> shared_huffman_tree(const vocabulary_ptr& vocab) {
  static std::mutex mutex;
  // Keyed by the vocabulary's address; the entry also remembers the
  // vocabulary, so that a new one at a freed one's address is not taken
  // for it.
  struct entry {
    std::weak_ptr<const vocabulary> vocab;
    std::weak_ptr<const huffman_tree> tree;
  };
  static std::map<const vocabulary*, entry> built;
  std::lock_guard<std::mutex> guard{mutex};
  for (auto it = built.begin(); it != built.end();) // forget finished jobs'
    it = it->second.vocab.expired() ? built.erase(it) : std::next(it);
  entry& e = built[vocab.get()];
  if (auto tree = e.tree.lock(); tree && e.vocab.lock() == vocab)
    return tree;
  auto tree = std::make_shared<const huffman_tree>(huffman_tree::from_counts(vocab->counts()));
  e = {vocab, tree};
  return tree;
}

} // namespace gridvec
