#pragma once
// gridvec as a library, for CAF applications that want its roles inside
// their own actor system. One include gives:
//
//   - the typed actor interface of every role (shard_actor, learner_actor,
//     vocabulary_partition_actor, count_worker_actor, exporter_actor,
//     coordinator_actor, supervisor_actor, controller_actor, node_actor),
//     their atoms and the data types they exchange (include/gridvec/protocol.hpp,
//     include/gridvec/job_types.hpp); docs/actors.md describes every message, its
//     reply and its errors;
//   - gridvec/local.hpp:   a whole gridvec (every role + a controller) in
//     the host's actor system, as `gridvec train` runs it;
//   - gridvec/cluster.hpp: an actor system set up to talk to a running
//     cluster (`gridvec node` processes), and its controller;
//   - gridvec/roles.hpp:   the functions that spawn one role (a node, a
//     shard, a learner, ...) on its own;
//   - gridvec/tables.hpp:  the parameter server: named tables on the shards
//     with a map and a matrix API, optimizer slots and user operations
//     (docs/tables.md; examples/sparse-logreg trains a model with it);
//   - gridvec/logging.hpp: where gridvec's own log lines go.
//
// With CMake:
//
//   find_package(gridvec CONFIG REQUIRED)
//   target_link_libraries(app PRIVATE gridvec::gridvec)
//
// Errors are values: functions return gridvec::expected<T> (include/gridvec/core/expected.hpp:
// the value, or one human-readable line in error()), and every actor answers
// a failed request with a caf::error whose text error_text() extracts.
// examples/embedded-train and examples/drive-cluster are complete programs.
#include <gridvec/cluster.hpp>
#include <gridvec/local.hpp>
#include <gridvec/logging.hpp>
#include <gridvec/tables.hpp>
#include <gridvec/roles.hpp>

#include <gridvec/job_types.hpp>
#include <gridvec/message_types.hpp>
#include <gridvec/protocol.hpp>
#include <gridvec/core/expected.hpp>
#include <gridvec/core/options.hpp>
