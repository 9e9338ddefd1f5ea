#pragma once
// How the shell shows the controller's replies: plain functions from the
// reply structs of include/gridvec/job_types.hpp to text, so that they are tested
// without an actor system. Tables have a header row and columns separated
// by two spaces; numbers are right-aligned.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/job_types.hpp>
#include "src/util/human_units.hpp" // human_count, human_bytes, human_duration

namespace gridvec {

/// Columns padded to their widest cell (counting UTF-8 characters, not
/// bytes); a column listed in `right` is right-aligned. Ends with '\n'.
std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                         const std::vector<size_t>& right = {});

std::string format_status(const job_status& s);
/// One line, as the coordinator's progress line: "epoch 2/5  45.0%  1.20M
/// words/s  eta 0:12  alpha 0.01234  loss 2.7100".
std::string format_progress_line(const job_status& s);
std::string format_nodes(const std::vector<node_status>& nodes);
std::string format_shards(const std::vector<shard_status>& shards);
/// `iterations`: the job's epochs, to tell each part's epoch and progress
/// within it (0 if unknown: then only words read are shown).
std::string format_learners(const std::vector<learner_status>& learners, uint32_t iterations);
/// Rank, word, cosine.
std::string format_neighbours(const std::vector<neighbour>& words);
/// One line: how long the job took, how fast, what it produced.
std::string format_summary(const job_summary& s);
std::string format_checkpoint(const checkpoint_info& c);

/// One part of a learner's work, e.g. "p3 epoch 2/5 41%" (or "p3 done").
std::string format_part(const part_cursor& c, uint32_t iterations);

} // namespace gridvec
