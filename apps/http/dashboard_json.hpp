#pragma once
// The JSON of the routes the dashboard reads besides /status and the
// queries (docs/http.md): /history, /events, /nodes, /shards, /learners and
// /tables, from what the controller and the table shards answer. Pure
// functions of their input, so that tests check them without a cluster.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/job_types.hpp>
#include <gridvec/core/table_wire.hpp>

namespace gridvec::http {

/// A job's curves, phases and checkpoint marks (events apart).
std::string history_json(const job_history& h);
/// The event lines above sequence `after`, oldest first.
std::string events_json(const job_history& h, uint64_t after);

/// A node's state as the dashboard shows it: "lost" (it does not answer),
/// "recovering" (the job restores one of its shards), "standby" (a spare
/// holding no shard), else "up".
std::string node_state(const node_status& n, const std::vector<shard_status>& shards, const std::string& phase);
/// Every node of the config with its state, memory (current, peak, limit)
/// and training traffic per message kind (`traffic`, by node name; a node
/// missing there sent nothing).
std::string nodes_json(const std::vector<node_status>& nodes, const std::vector<node_traffic>& traffic,
                       const std::vector<shard_status>& shards, const std::string& phase);
std::string shards_json(const std::vector<shard_status>& shards);
std::string learners_json(const std::vector<learner_status>& learners);
/// One entry per table, its shards' rows and memory summed (a table in the
/// columns layout holds a slice of the same rows on every shard: its rows
/// are one shard's), and the table shard nodes that did not answer (their
/// slices are missing from the sums).
std::string tables_json(const std::vector<table_info>& tables, const std::vector<std::string>& unreachable = {});

} // namespace gridvec::http
