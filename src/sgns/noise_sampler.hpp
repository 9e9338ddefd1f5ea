#pragma once
// Where a pair's noise words come from. word2vec draws each one from the
// whole vocabulary by count^0.75. The Distributed negative sampling paper partitions the words (word w in
// partition w mod p) and offers three ways, which differ in how many
// partitions a skip-gram's input vector must visit:
//   bns  every noise word on its own: a partition drawn by its mass, then
//        one of its words -- exactly word2vec's distribution (2(N+1)
//        vectors on the wire per skip-gram when the vectors are split by
//        word);
//   sns  one partition drawn by mass for the pair, all N words from it
//        (4 vectors);
//   tns  all N words from the partition of the pair's positive word (2
//        vectors: the positive's partition is visited anyway).
// sns and tns change the distribution a pair sees (each word still comes
// from count^0.75 within its partition); bns does not. `hierarchical`
// draws bns through the partitions too (the Distributed negative sampling paper's Algorithm 3: the same
// distribution, from tables of O(p + V/p) per partition); otherwise bns is
// one alias table over the whole vocabulary.
//
// With the vectors split by column (every shard draws every noise word
// from the minibatch's seed) each shard holds all the tables; the choice
// then only changes which words are drawn, which is what a test of sns's
// and tns's quality needs.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/sgns/alias_sampler.hpp"
#include "src/sgns/hierarchical_sampler.hpp"

namespace gridvec {

enum class negatives_mode : uint8_t { bns = 0, sns = 1, tns = 2 };

/// "bns", "sns", "tns"; parse_negatives_mode is its inverse (false: none).
const char* negatives_mode_name(negatives_mode m);
bool parse_negatives_mode(const std::string& text, negatives_mode& out);

struct noise_spec {
  negatives_mode negatives = negatives_mode::bns;
  bool hierarchical = false; // bns through the partitions' tables (sns and tns always are)
  uint32_t partitions = 1;   // word w belongs to partition w mod partitions
};

class noise_sampler {
public:
  /// For the words of `counts` (vocabulary ids, most frequent first).
  explicit noise_sampler(const std::vector<uint64_t>& counts, noise_spec spec = {});
  /// word2vec's: every noise word from `whole` (bns, one alias table).
  explicit noise_sampler(alias_sampler whole) : whole_(std::move(whole)) {}

  const noise_spec& spec() const { return spec_; }
  /// The whole vocabulary's alias table (bns without `hierarchical`),
  /// else null: draw_targets prefetches its entries when it is large.
  const alias_sampler* whole() const { return whole_ ? &*whole_ : nullptr; }

  /// Appends a pair's n noise words to `out`; none is `positive` unless
  /// the words it may come from leave no other (bounded redraws, as
  /// word2vec skips a noise word equal to the positive).
  void draw_for_pair(rng& r, uint32_t positive, uint32_t n, std::vector<uint32_t>& out) const;
  /// One noise word for `positive`, drawn as bns draws (each on its own).
  uint32_t draw_one(rng& r, uint32_t positive) const;

  /// Partition k's tables (for sns, tns and --sampler hierarchical), or
  /// null for one alias table over the vocabulary.
  const hierarchical_sampler* partition(uint32_t k) const { return k < parts_.size() ? &parts_[k] : nullptr; }
  /// Memory of every table held here.
  uint64_t bytes() const;
  /// What partition k would hold for sampling with the vectors split by
  /// word: the partition distribution and its own words' table.
  uint64_t partition_bytes(uint32_t k) const;

private:
  static constexpr int max_redraws = hierarchical_sampler::max_redraws;

  noise_spec spec_;
  std::optional<alias_sampler> whole_;
  std::vector<hierarchical_sampler> parts_; // partition k's tables
};

} // namespace gridvec
