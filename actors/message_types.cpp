#include <gridvec/message_types.hpp>

#include "actors/net/bounded_decoders.hpp"
#include <gridvec/protocol.hpp>
#include <gridvec/roles/vocabulary.hpp>

namespace gridvec {

void register_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<count_table>("gridvec::count_table");
  cfg.add_message_type<vocabulary_info>("gridvec::vocabulary_info");
  cfg.add_message_type<partition_counts>("gridvec::partition_counts");
  cfg.add_message_type<std::vector<uint64_t>>("std::vector<uint64_t>"); // a vocabulary layout
  cfg.add_message_type<learner_config>("gridvec::learner_config");
  cfg.add_message_type<learner_progress>("gridvec::learner_progress");
  cfg.add_message_type<part_cursor>("gridvec::part_cursor");
  cfg.add_message_type<std::vector<part_cursor>>("std::vector<gridvec::part_cursor>");
  cfg.add_message_type<file_digest>("gridvec::file_digest");
  cfg.add_message_type<shard_spec>("gridvec::shard_spec");
  cfg.add_message_type<shard_info>("gridvec::shard_info");
  cfg.add_message_type<std::vector<shard_info>>("std::vector<gridvec::shard_info>");
  cfg.add_message_type<shard_counters>("gridvec::shard_counters");
  cfg.add_message_type<shard_status>("gridvec::shard_status");
  cfg.add_message_type<std::vector<shard_status>>("std::vector<gridvec::shard_status>");
  cfg.add_message_type<learner_status>("gridvec::learner_status");
  cfg.add_message_type<std::vector<learner_status>>("std::vector<gridvec::learner_status>");
  cfg.add_message_type<node_status>("gridvec::node_status");
  cfg.add_message_type<std::vector<node_status>>("std::vector<gridvec::node_status>");
  cfg.add_message_type<job_status>("gridvec::job_status");
  cfg.add_message_type<job_summary>("gridvec::job_summary");
  cfg.add_message_type<job_history>("gridvec::job_history");
  cfg.add_message_type<neighbour>("gridvec::neighbour");
  cfg.add_message_type<std::vector<neighbour>>("std::vector<gridvec::neighbour>");
  cfg.add_message_type<checkpoint_info>("gridvec::checkpoint_info");
  cfg.add_message_type<train_options>("gridvec::train_options");
  cfg.add_message_type<shard_actor>("gridvec::shard_actor");
  cfg.add_message_type<std::vector<shard_actor>>("std::vector<gridvec::shard_actor>");
  cfg.add_message_type<learner_actor>("gridvec::learner_actor");
  cfg.add_message_type<count_worker_actor>("gridvec::count_worker_actor");
  cfg.add_message_type<vocabulary_partition_actor>("gridvec::vocabulary_partition_actor");
  cfg.add_message_type<std::vector<vocabulary_partition_actor>>("std::vector<gridvec::vocabulary_partition_actor>");
  cfg.add_message_type<vocabulary_build>("gridvec::vocabulary_build");
  cfg.add_message_type<vocabulary_builder_actor>("gridvec::vocabulary_builder_actor");
  cfg.add_message_type<exporter_actor>("gridvec::exporter_actor");
  cfg.add_message_type<coordinator_actor>("gridvec::coordinator_actor");
  cfg.add_message_type<controller_actor>("gridvec::controller_actor");
  cfg.add_message_type<node_actor>("gridvec::node_actor");
  cfg.add_message_type<table_shard_actor>("gridvec::table_shard_actor");
  cfg.add_message_type<lbfgs_learner_actor>("gridvec::lbfgs_learner_actor");
  cfg.add_message_type<std::vector<double>>("std::vector<double>");
  cfg.add_message_type<std::vector<uint16_t>>("std::vector<uint16_t>");
  cfg.add_message_type<std::vector<uint32_t>>("std::vector<uint32_t>");
  cfg.add_message_type<std::vector<wire_bytes>>("std::vector<gridvec::wire_bytes>");
  // A peer's byte buffers are read no larger than they are (bounded_decoders.hpp).
  net::use_bounded_decoders(cfg);
}

} // namespace gridvec
