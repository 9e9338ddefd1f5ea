#pragma once
// The learner's side of the join (src/corpus/word_join.hpp) over the
// vocabulary partition actors: each chunk's distinct words go to the
// partitions that own them, all partitions asked at once, and the ids come
// back. No process holds the vocabulary's strings for it.
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>
#include "src/corpus/text_corpus.hpp"
#include "src/corpus/word_join.hpp"

namespace gridvec {

/// Writes the id file `ids_path` of corpus bytes `range` through `parts`
/// (in partition order, as the words were counted); `words` is how many
/// in-vocabulary words it holds. An id of `vocab_size` or more from a
/// partition fails it (0: not checked). Blocks on the partitions' answers:
/// call it from an actor that may block (it blocks as file I/O does).
status join_through_partitions(caf::actor_system& sys, const std::vector<vocabulary_partition_actor>& parts,
                               const std::string& corpus, byte_range range, invalid_utf8 mode,
                               const std::string& ids_path, uint64_t& words, uint64_t vocab_size = 0,
                               join_limits limits = {});

} // namespace gridvec
