#pragma once
// The learner's side of the join (src/corpus/word_join.hpp) over the
// vocabulary partition actors: each chunk's distinct words go to the
// partitions that own them, all partitions asked at once, and the ids come
// back. No process holds the vocabulary's strings for it. --init's row map
// is made the same way from the model's words.
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>
#include "src/corpus/model_row_map.hpp"
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

/// Writes --init's row map (src/corpus/model_row_map.hpp) of the model
/// vocabulary file `model_vocab` at `path` through `parts`, the same way;
/// ids checked against `vocab_size`, the header naming `vocab_crc`.
expected<model_row_map_made> row_map_through_partitions(caf::actor_system& sys,
                                                        const std::vector<vocabulary_partition_actor>& parts,
                                                        const std::string& model_vocab, const std::string& path,
                                                        uint64_t vocab_size, uint64_t vocab_crc,
                                                        join_limits limits = {});

} // namespace gridvec
