#pragma once
// /metrics of a node, in Prometheus text: what the node knows of itself
// (node_status) on every node, on shard nodes their parameter-server
// tables (docs/tables.md), and on the coordinator's node what the
// controller knows of the job (job_status, shard_status, learner_status).
#include <optional>
#include <string>
#include <vector>

#include <gridvec/job_types.hpp>
#include <gridvec/core/table_wire.hpp> // table_info

namespace gridvec::http {

struct metrics_input {
  std::string node;                 // this node's name
  std::optional<node_status> self;  // none: the node did not answer
  std::optional<job_status> job;    // coordinator's node only
  std::vector<shard_status> shards; // of the current or last job
  std::vector<learner_status> learners;
  std::vector<table_info> tables; // of this node's table shard (shard nodes)
};

std::string render_metrics(const metrics_input& in);

} // namespace gridvec::http
