#pragma once
// A shard of the rows layout (--partition words over several shards): the
// whole rows of its words (word w on shard w mod S, src/model/shard_store.hpp
// word_rows), and its side of the Distributed negative sampling paper's
// exchange (src/model/word_split.hpp):
//   as a source, a learner's examples whose input words it owns: their
//   visits are planned and each other shard sent its batch of input
//   vectors (the actor does the sending: actors/layouts/rows/row_exchange.hpp);
//   as a peer, a batch from a source: trained against its output rows,
//   the inputs' gradients sent back (serve).
// The lanes of a shard share this (Hogwild, as the rows themselves).
#include "src/model/word_split.hpp"
#include "src/shard/shard_service.hpp"

namespace gridvec {

class row_service : public shard_service {
public:
  row_service(std::shared_ptr<shard_store> store, slice_header header, uint64_t init_seed,
              const std::vector<uint64_t>& counts, negatives_mode mode);

  uint32_t index() const { return rows.index(); }
  uint32_t partitions() const { return layout.partitions; }

  /// Checks a learner's share before anything is trained: skip-gram with
  /// noise words, every input word this shard's, every output in the
  /// vocabulary.
  status check_share(const minibatch& mb) const;
  /// The peer's side, whole: decodes a VisitBatch, checks, trains, encodes
  /// the VisitReply.
  expected<wire_bytes> serve(const wire_bytes& request);
  expected<wire_bytes> norms(const std::vector<uint32_t>& words) const override;
  /// [0, q.u(x), |u(x)|^2] for the words x it holds, 0 for the others;
  /// `query` the vector q as float32 bytes.
  expected<wire_bytes> similar(const wire_bytes& query) const;

  word_layout layout;
  partition_rows rows;      // a view of the store's rows
  hierarchical_sampler own; // the partitions' masses, and this one's words
  negatives_mode mode;
  uint32_t vocab;
};

} // namespace gridvec
