#pragma once
// --partition auto: which way to split the vectors over S shards, from a
// cost model of the two layouts that train word2vec's skip-gram with
// negative sampling (docs/word-partitions.md, "Choosing"):
//   columns  (the Network-efficient word2vec paper) every shard holds d/S columns of every word; per
//            trained word, each of the ~(w+1) pairs' n+1 partial dot
//            products goes shard -> learner and the same number of weights
//            back, on each of the S shards: formula (7) both ways,
//            2·(w+1)·(n+1)·S·4 bytes, plus the word ids 2·S·4·(w+3)
//            (as scripts/bytes-per-word.sh states them);
//   words    (the Distributed negative sampling paper) every shard holds whole rows of V/S words. Per
//            skip-gram (--visits skipgram, the seed's pattern) a pair moves
//            2(n+1) (bns), 4 (sns) or 2 (tns) vectors of d floats, of which
//            a fraction 1 - 1/S crosses to another shard:
//            (w+1)·count·(1 - 1/S)·d·4 bytes. gridvec's default (--visits
//            example) sends an example's input once to each shard its
//            pairs visit: of the m = (w+1)·k partitions its pairs' k
//            targets fall in (k: n+1 bns, 2 sns, 1 tns), the
//            (S-1)·(1 - (1-1/S)^m) that are not its own, expected, two
//            vectors each.
// Memory per shard: the model's rows (2 vectors of each word it holds) and
// the noise words' sampling tables (columns: every table; words: one
// partition's, O(p + V/p)). What bounds words/s where links are slow is the
// busiest link, not the sum: with columns every byte passes a learner
// node's link (requests out, dot products in), so L learner nodes carry
// S/L shards' traffic each; with words the shards' exchange spreads over
// the S shard nodes' links, 1/S each, and the learners send word ids only.
// Where the links are faster than the cores (the busiest link would move a
// trained word of the column split in less time than the cores take to
// train it, compute_seconds_per_word), columns: the word split does more
// work per word (a message per visit, vectors copied out and in). The
// choice: columns if the job cannot be split
// by word, or runs in one process (nothing crosses a network there, and
// the learners train the columns in place: the fastest path); the one that fits a shard's memory budget if only one does;
// else the one that sends fewer bytes per trained word, a tie (S = 1:
// nothing crosses) to columns, which is word2vec's exact algorithm. (The
// bytes are compared on the busiest link.)
// Pure arithmetic: no I/O, no actors.
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/word_split.hpp"
#include "src/sgns/noise_sampler.hpp"
#include <gridvec/core/options.hpp>

namespace gridvec {

enum class partition_layout : uint8_t { columns, words };

const char* partition_layout_name(partition_layout l);

/// The job and cluster figures the model reads.
struct partition_inputs {
  uint64_t vocab = 0;    // V
  uint32_t dim = 100;    // d (-size)
  uint32_t shards = 1;   // S
  uint32_t negative = 5; // n
  uint32_t window = 5;   // w (the maximum; word2vec draws 1..w)
  negatives_mode negatives = negatives_mode::bns;
  visit_grouping grouping = visit_grouping::example; // --visits
  uint64_t column_sampling_bytes = 0; // a shard's sampling tables with columns: every partition's, or the whole table
  uint64_t word_sampling_bytes = 0;   // one word partition's tables
  double link_bytes_per_second = 0;   // 0: not known (one process: no link at all)
  bool one_process = false;           // every shard and learner in one process (gridvec train)
  uint64_t memory_budget = 0;         // bytes a shard may hold; 0: unknown, no limit
  std::string words_refused;          // why the job cannot be split by word; empty: it can
  uint32_t learner_nodes = 1;         // nodes the learners run on (their links carry the column split's bytes)
};

/// The cores' time per trained word, estimated: a trained word's pairs
/// touch P·(n+1) output rows of d floats, at about half a nanosecond per
/// float of such work. Calibrated on the network lab's VM (docs/netlab.md:
/// columns trained 480k words/s at 10 Gbit/s, d = 100, its cores the
/// bound). Where the busiest link moves a trained word faster than this,
/// the cores bound words/s, not the links.
double compute_seconds_per_word(const partition_inputs& in);
constexpr double compute_seconds_per_float = 0.53e-9;

/// One layout's figures.
struct layout_cost {
  double vector_bytes_per_word = 0; // floats on the wire per trained word (formula 7 / the seed's vectors)
  double id_bytes_per_word = 0;     // word ids beside them
  uint64_t model_bytes = 0;         // one shard's rows
  uint64_t sampling_bytes = 0;      // one shard's sampling tables
  // Bytes per trained word on the busiest link, in its busier direction:
  // what bounds words/s where the links are slower than the cores.
  double busiest_link_bytes_per_word = 0;
  double bytes_per_word() const { return vector_bytes_per_word + id_bytes_per_word; }
  uint64_t memory_per_shard() const { return model_bytes + sampling_bytes; }
  /// Seconds the busiest link of `bytes_per_second` needs for a million
  /// trained words; negative without a link.
  double wire_seconds_per_million(double bytes_per_second) const {
    return bytes_per_second > 0 ? busiest_link_bytes_per_word * 1e6 / bytes_per_second : -1;
  }
};

struct partition_choice {
  layout_cost columns, words;
  partition_layout chosen = partition_layout::columns;
  std::string reason; // one line: why
};

/// Positive pairs per trained word: word2vec draws the window c uniformly
/// from 1..w and pairs the word with the 2c words around it, w + 1 on
/// average (fewer near a sentence's ends).
double pairs_per_word(uint32_t window);
/// Vectors a pair moves with the vectors split by word (the Distributed negative sampling paper).
uint32_t vectors_per_pair(negatives_mode mode, uint32_t negative);
/// Partitions a pair's targets are drawn in: n+1 (bns), 2 (sns), 1 (tns).
uint32_t partitions_per_pair(negatives_mode mode, uint32_t negative);

layout_cost columns_cost(const partition_inputs& in);
layout_cost words_cost(const partition_inputs& in);
/// Both layouts' figures and the model's choice.
partition_choice choose_partition(const partition_inputs& in);

/// Why the job cannot train with its vectors split by word at all (seed
/// 001 is skip-gram with negative sampling, drawn per pair on the shards);
/// empty if it can.
std::string word_split_refusal(const train_options& o);
/// Whether gridvec can run the word split for this job: over S >= 2 shards
/// (--word-partitions unset or S), or in one process on one shard viewed
/// as --word-partitions partitions (docs/word-partitions.md).
bool word_split_runnable(const train_options& o, bool one_process);
/// What --partition auto trains: the model's choice if it can run, else
/// columns; `why` gets one line saying so.
partition_layout resolve_partition(const partition_choice& c, bool words_runnable, std::string& why);

/// The model's inputs for a job of `o` (shards resolved) over a vocabulary
/// of `counts` (most frequent first), with the sampling tables each layout
/// would hold built to measure them (O(V) time and memory: only where they
/// are shown or a memory budget can use them).
partition_inputs partition_inputs_of(const train_options& o, const std::vector<uint64_t>& counts);
/// The same over a vocabulary of `vocab_size` words, without the tables.
partition_inputs partition_inputs_of(const train_options& o, uint64_t vocab_size);

/// The table --explain prints: both layouts' figures and the choice.
std::string explain_partition(const partition_inputs& in, const partition_choice& c);

} // namespace gridvec
