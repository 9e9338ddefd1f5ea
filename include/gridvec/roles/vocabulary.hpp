#pragma once
// (Public header of actors/vocabulary_actor.cpp.)
// The vocabulary, a map-reduce over word partitions: count workers run
// where the data is (one per corpus part) and send each word's counts to
// the partition that owns it (one per node with the vocabulary role); the
// partitions exchange count histograms, not words, to decide min-count,
// -max-vocab and the ids (src/corpus/vocabulary_layout.hpp); the builder
// then writes the vocabulary file, a page of each partition's words at a
// time, and its counts beside it (what shards and learners load). The
// partitions stay until the learners have turned their corpus parts into
// ids through them (the join, lookup).
#include <memory>

#include <gridvec/protocol.hpp>

namespace gridvec {

class huffman_tree;

/// A vocabulary partition counting in at most `budget_bytes`, spilling
/// sorted runs into a new directory under `spill_dir` (removed when it
/// ends); on its own thread (spills block).
vocabulary_partition_actor spawn_vocabulary_partition(caf::actor_system& sys, std::string spill_dir,
                                                      uint64_t budget_bytes);
/// What a node's partition counts in when its config says nothing: a
/// quarter of the memory the node may take (at least what counting needs).
uint64_t default_count_memory(uint64_t node_memory_bytes);

/// A worker that counts byte ranges on its own thread (file I/O blocks).
count_worker_actor spawn_count_worker(caf::actor_system& sys);

/// What the builder needs: the partitions (in partition order), the
/// limits, the files to write, and what the count workers reported.
struct vocabulary_build {
  std::vector<vocabulary_partition_actor> partitions;
  uint64_t min_count = 5;
  uint64_t max_size = 0;      // -max-vocab; 0: no limit
  std::string path;           // the gridvec vocabulary file
  std::string word2vec_path;  // -save-vocab; empty: none
  uint64_t corpus_tokens = 0; // the counted corpus's tokens; 0: none counted (-read-vocab)
  uint64_t lines = 0;         // line ends ("</s>")
  uint64_t listed_words = 0;  // the words a vocabulary file listed (-read-vocab, --init): each must be distinct
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, vocabulary_build& x) {
  return f(caf::meta::type_name("vocabulary_build"), x.partitions, x.min_count, x.max_size, x.path, x.word2vec_path,
           x.corpus_tokens, x.lines, x.listed_words);
}

/// Decides the vocabulary over the partitions and writes its files:
///   build: (what) -> the vocabulary's sizes and file
/// It blocks on the partitions' replies, on its own thread, so it lives
/// in the process that asks (the coordinator's), never sent to a peer.
using vocabulary_builder_actor = caf::typed_actor<caf::replies_to<build_atom, vocabulary_build>::with<vocabulary_info>>;
vocabulary_builder_actor spawn_vocabulary_builder(caf::actor_system& sys);

/// Loads a vocabulary file once per process (the exporter, --init, the
/// coordinator's queries, a learner redoing a part without partitions).
expected<vocabulary_ptr> load_shared_vocabulary(const std::string& path);

/// Loads the counts beside the vocabulary file `vocab_path` (the builder
/// writes them: src/corpus/vocabulary_counts.hpp) once per process: the
/// shards and learners of a process share one copy, 8 bytes a word, and
/// never hold the words.
expected<vocabulary_counts_ptr> load_shared_counts(const std::string& vocab_path);

/// The Huffman tree of the counts (-hs 1), built once per process for as
/// long as someone holds it: every shard and learner of the process uses
/// the same one (a tree of V words holds about V log2 V path entries).
std::shared_ptr<const huffman_tree> shared_huffman_tree(const vocabulary_ptr& vocab);
std::shared_ptr<const huffman_tree> shared_huffman_tree(const vocabulary_counts_ptr& counts);

} // namespace gridvec
