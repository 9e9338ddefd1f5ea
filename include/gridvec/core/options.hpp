#pragma once
// (Public header of src/config/options.cpp.)
// Every option of `gridvec train`, defined once: its default is the member
// initializer below, and its flag, value, help line and validation are one
// entry of the table in options.cpp, which the parser, to_args, --help and
// check_option_values (a peer's options) all read. The structs the roles
// get are built from train_options (learner_config is one, job_types.hpp),
// so no default is written twice (tests/options.test.cpp checks). Names follow the reference word2vec.c (-size,
// -window, ...) so gridvec is a drop-in replacement; gridvec's own options
// are long (--shards). Either spelling takes one or two dashes, and
// --name=value works too.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/shard_layout.hpp>

namespace gridvec {

struct train_options {
  std::string train; // corpus, one sentence per line; several -train values one per line (src/corpus/corpus_inputs.hpp)
  std::string output;  // vectors file
  uint32_t size = 100; // vector dimension d
  uint32_t window = 5;
  uint32_t negative = 5;
  double sample = 1e-3;
  uint64_t min_count = 5;
  uint32_t iter = 5;
  double alpha = 0;     // 0: 0.025 for skip-gram, 0.05 for CBOW
  uint32_t threads = 0; // 0: all cores
  bool binary = false;
  bool output_parts = false; // -output is a directory of part files, one per vocabulary node
  bool cbow = false;         // word2vec.c defaults to CBOW; gridvec to skip-gram (better vectors, docs/quality.md)
  bool hs = false;           // hierarchical softmax (word2vec.c's -hs 1)
  uint64_t max_vocab = 0;    // 0: no limit
  uint32_t classes = 0;      // k-means classes written instead of vectors; 0: vectors
  uint32_t debug = 2;        // 0: errors and warnings, 1: also what happens, 2: also progress
  std::string save_vocab;    // word2vec.c's vocabulary file, written
  std::string read_vocab;    // ... or read instead of counting the corpus
  std::string save_model;    // the whole model (both vector sets, counts), docs/model.md
  std::string init;          // a saved model to continue training from
  uint8_t invalid_utf8 = 0;  // --invalid-utf8: 0 fail, 1 skip, 2 replace (src/corpus/text_corpus.hpp)
  // gridvec's own
  uint32_t shards = 0;     // 0: 1 in gridvec train, the config's total in a cluster
  uint32_t minibatch = 64; // input words per minibatch
  uint32_t in_flight = 0;  // minibatches in flight per learner; 0: in_flight_window()
  uint32_t coalesce = 4;   // minibatches per message to each shard
  uint64_t seed = 1;
  bool fused = true; // learners train on shards of their own process directly
  // --shared-negatives: how the fused path trains skip-gram. 0: the exact
  // kernel, pair by pair; 1: HogBatch, each window as small matrix products
  // with one draw of noise words (src/sgns/local_trainer_windows.cpp);
  // shared_negatives_auto (the default): window_kernel() decides.
  uint8_t shared_negatives = 2;
  uint32_t interleave = 64; // stride of example order; 1: corpus order
  // The corpus is cut into this many parts per learner, handed out as a
  // work queue (src/corpus/work_queue.hpp); a replicated host keeps its
  // parts, this many per thread. 0: parts_per_learner_count()'s default.
  uint32_t parts_per_learner = 0;
  bool refresh_weights = true; // protocol path: shards refresh stale weights for the rows as they are
  // Noise words over word partitions (the Distributed negative sampling paper, src/sgns/noise_sampler.hpp).
  uint8_t negatives_mode = 0;        // --negatives: 0 bns (word2vec's), 1 sns, 2 tns (-negative is the count)
  bool hierarchical_sampler = false; // --sampler hierarchical (else alias)
  uint32_t word_partitions = 0;      // word w in partition w mod P; 0: one per shard
  // --partition: columns; words (the Distributed negative sampling paper): rows split by word, trained
  // through the partitions' exchange (src/model/word_split.hpp), over the
  // shards or one shard viewed as --word-partitions partitions; replicated
  // (the GraphWord2Vec paper): every learner holds the whole model and synchronises the
  // rows it changed sync_rounds times per epoch.
  model_partition partition = model_partition::columns;
  // --visits skipgram: the word split sends every skip-gram's visits on
  // their own, the Distributed negative sampling paper's pattern (src/model/word_split.hpp), instead of
  // an example's together.
  bool visits_per_skipgram = false;
  // --partition auto (the default): the cost model (src/model/partition_choice.hpp)
  // picks columns or words once the vocabulary is known; until then, and
  // whenever the word split cannot run the job, the vectors are split by
  // column. False once --partition names a layout.
  bool partition_auto = true;

  bool replicated() const { return partition == model_partition::replicated; }
  bool word_split() const { return partition == model_partition::words; }
  shard_layout layout_of_shards() const { return gridvec::layout_of_shards(partition, shards); }
  bool explain = false;          // --explain: print the model's figures and choice, train nothing
  double link_speed = 0;         // --link-speed, bytes/s; 0: none given (a cluster's measured one, else no link)
  uint32_t sync_rounds = 0;      // per epoch; 0: auto (sync_rounds_per_epoch())
  uint32_t host_threads = 0;     // replicated: learner threads per host; 0: auto, all of a node's (hosts_on_node())
  bool average_combiner = false; // --combiner avg; else the model combiner (mc)
  std::string report;            // JSON summary path
  std::string work_dir;          // preprocessed corpus; default: a temp dir
  double log_every = 0;          // seconds between progress lines; 0: auto
  std::string checkpoint_dir;    // where checkpoints go; empty: none
  double checkpoint_seconds = 0; // checkpoint interval in time; 0: none
  uint64_t checkpoint_words = 0; // ... or in words read; 0: none
  bool checkpoint_failures_warn = false; // a checkpoint that cannot be written: warn and go on (else stop)
  uint32_t checkpoint_keep = 2;          // newest complete checkpoints kept
  // Not training options proper: how this job is run.
  bool stop_cluster = false; // gridvec submit: stop every node once the job is done
  std::string resume;        // continue from the checkpoint directory instead of starting

  static constexpr uint8_t shared_negatives_auto = 2;
  /// Whether skip-gram windows are trained whole, with one draw of noise
  /// words a window (HogBatch): by the fused path's window kernel, and on
  /// the protocol path and a cluster's shards by their window dotprod and
  /// adjust (minibatch::shared_negatives). By default wherever a job trains
  /// skip-gram with word2vec's negative sampling alone: there it matched
  /// word2vec.c's quality on two held-out corpora on both paths, and was
  /// faster (docs/quality.md, "HogBatch"), and so on the replicated mode's
  /// hosts. Not with -cbow 1 (one pair an example already), -hs 1 (it
  /// trained worse through the windows), --negatives, --sampler
  /// hierarchical or --partition words (it trains pairs).
  bool window_kernel() const {
    if (shared_negatives != shared_negatives_auto)
      return shared_negatives == 1;
    return !cbow && !hs && negative > 0 && negatives_mode == 0 && !hierarchical_sampler && !word_split();
  }
  /// --shared-negatives 1, asked for by name.
  bool shared_negatives_asked() const { return shared_negatives == 1; }
  /// Whether the shards draw every noise word through the word partitions'
  /// tables: asked for, or needed by the word split.
  bool partitioned_sampler() const { return hierarchical_sampler || word_split(); }
  /// The word partitions noise words are drawn over, for a job of `shards`.
  uint32_t word_partitions_of(uint32_t shards) const {
    return word_partitions > 0 ? word_partitions : (shards > 0 ? shards : 1);
  }
  float start_alpha() const { return alpha > 0 ? static_cast<float>(alpha) : (cbow ? 0.05f : 0.025f); }
  /// Whether learners take parts from the work queue, one epoch at a time;
  /// with one part per learner each keeps its own part, as a fixed split.
  bool work_queue() const { return !replicated() && parts_per_learner_count() > 1; }
  /// --parts-per-learner, or by default 8, and 1 with -hs 1. The learning
  /// rate decays within each part, so it restarts once per part an epoch:
  /// with negative sampling 8 parts trained better vectors than 4 on two
  /// corpora besides the dev corpus, but with -hs 1 one part (a single
  /// decay an epoch, as word2vec.c's) trained better than 8 on both
  /// (docs/quality.md, "The work queue and the learning rate" and
  /// "Hierarchical softmax").
  uint32_t parts_per_learner_count() const { return parts_per_learner > 0 ? parts_per_learner : (hs ? 1 : 8); }
  /// Corpus parts for `learners` learners of `threads_each` threads (a
  /// replicated host's; 1 elsewhere). A replicated host keeps its parts and
  /// walks them epoch by epoch (src/corpus/part_walker.hpp): with
  /// parts_per_learner_count() a thread, its learning rate restarts as often
  /// per word trained as a work queue's learners' do.
  uint32_t parts_for(uint32_t learners, uint32_t threads_each = 1) const {
    const uint32_t l = learners > 0 ? learners : 1;
    if (work_queue())
      return l * parts_per_learner_count();
    if (replicated() && parts_per_learner_count() > 1)
      return l * parts_per_learner_count() * std::max(1u, threads_each);
    return l;
  }
  /// Minibatches a learner keeps in flight on the protocol path: 10 by
  /// default, 1 with -hs 1, whose root node is a target of every pair: the
  /// updates in flight beside a minibatch all move it. The shards' refresh
  /// of stale weights trains 10 in one process as well as 1, but a loopback
  /// cluster lost analogy with them at -hs 1 -negative 5 (docs/quality.md).
  uint32_t in_flight_window() const { return in_flight > 0 ? in_flight : (hs ? 1 : 10); }
  /// Synchronisation rounds per epoch of the replicated mode with
  /// `threads` learner threads in all hosts: --sync-rounds, or by the
  /// seed's rule of thumb, more rounds as hosts are added (GraphWord2Vec
  /// doubles them with the hosts): 8 per thread (docs/replicated.md
  /// measures the choice), so that a host of two threads syncs as often as
  /// two hosts of one would.
  uint32_t sync_rounds_per_epoch(uint32_t threads) const {
    return sync_rounds > 0 ? sync_rounds : 8 * (threads > 0 ? threads : 1);
  }
  /// The replicated mode's hosts on a node (or in gridvec train) with
  /// `learners` learner threads: each host holds one copy of the model and
  /// trains it with host_threads of them at once, as gridvec train's
  /// threads share one model (--host-threads; auto: one host a node, all its
  /// threads). Copies in one process would only cost memory and rounds.
  uint32_t hosts_on_node(uint32_t learners) const {
    const uint32_t per = threads_per_host(learners);
    return (learners + per - 1) / per;
  }
  /// The learner threads of host `host` (0-based) of a node's: host_threads,
  /// and what is left for the last.
  uint32_t threads_of_host(uint32_t learners, uint32_t host) const {
    const uint32_t per = threads_per_host(learners);
    return std::min(per, learners - std::min(learners, host * per));
  }
  /// Threads of a full host on a node of `learners` learner threads.
  uint32_t threads_per_host(uint32_t learners) const {
    return host_threads > 0 ? host_threads : std::max(1u, learners);
  }
};

/// The defaults of every option: the structs built from a job's options
/// (learner_config, ...) take their own defaults from here.
inline const train_options& train_defaults() {
  static const train_options defaults;
  return defaults;
}

/// One option as --help describes it, for tests and documentation.
struct train_option_info {
  std::string name;          // without dashes: "size"
  std::string value_name;    // "N"; empty for a switch
  std::string note;          // what a computed default means, or empty
  std::string default_value; // train_defaults() as the option writes it
  std::string default_text;  // what --help shows in [brackets]
};
/// Every option of the table, in its order.
std::vector<train_option_info> train_option_table();

/// Parses `args` (without the program and subcommand names). Fails with one
/// line on an unknown option, a missing or malformed value, or a value out
/// of range.
expected<train_options> parse_train_options(const std::vector<std::string>& args);

/// Whether every option's value is one its flag accepts (the table's
/// ranges and choices; a default always is), for options that come from
/// elsewhere than the parser: a peer's message. One line naming the first
/// that is not.
status check_option_values(const train_options& o);

/// Every option as "-name" "value" pairs: parse_train_options(to_args(o))
/// gives back o (checkpoint manifests store a job's options this way).
/// stop_cluster and resume are not included: they are not part of a job.
std::vector<std::string> to_args(const train_options& o);

/// `path` made absolute and normalised, from this process's working
/// directory; an empty path stays empty.
std::string absolute_path(const std::string& path);

/// Every path option (-train, -output, -save-vocab, -read-vocab,
/// --save-model, --init, --report, --work-dir, --checkpoint-dir, --resume)
/// made absolute: checkpoints record them, and
/// cluster nodes and resumed jobs open them from other working directories.
void make_paths_absolute(train_options& o);

/// Checks, before any training, that the files a job writes (-output,
/// --report) can be written and are not its corpus -- the same path, or
/// the same file under another name (a hard link, a symlink): writing the
/// vectors there would replace the corpus.
status check_outputs(const train_options& o);

/// The --help text: every option with its default and description.
std::string train_help();

} // namespace gridvec
