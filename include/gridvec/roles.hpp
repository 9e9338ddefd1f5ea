#pragma once
// Spawning one of gridvec's roles on its own, in the host's actor system.
// Each function returns the role's typed handle (include/gridvec/protocol.hpp); the
// messages it answers are in docs/actors.md.
//
// Most applications need none of these: a local gridvec (gridvec/local.hpp)
// or a cluster's controller (gridvec/cluster.hpp) places every role for a
// job. They are for applications that assemble roles themselves, e.g. a
// node that hosts shards for a coordinator elsewhere:
//
//   gridvec::node_setup setup;
//   setup.name = "shard-a";
//   setup.roles = "shard";
//   auto node = gridvec::spawn_node(sys, setup);   // answers new_shard_atom, new_learner_atom, ...
//   sys.middleman().publish(node, port, host, true);  // a cluster's coordinator can now place roles here
//
// or a shard served in-process to a learner of their own:
//
//   auto vocab = gridvec::load_shared_vocabulary("vocabulary.txt");       // expected<vocabulary_ptr>
//   gridvec::shard_spec spec{0, 1, 100, "vocabulary.txt", 1, 2};          // shard 0 of 1, d = 100, seed 1, 2 lanes
//   auto shard = gridvec::spawn_shard(sys, spec, *vocab);                 // expected<shard_info>: its lanes
//
// Every actor spawned here keeps the actor system alive until it is told to
// stop (a node: stop_atom; the others: an exit message, e.g.
// caf::anon_send_exit(handle, caf::exit_reason::user_shutdown)).
#include <gridvec/roles/controller.hpp>  // spawn_controller, controller_setup
#include <gridvec/roles/coordinator.hpp> // spawn_coordinator, job_node, progress_sink
#include <gridvec/roles/exporter.hpp>    // spawn_exporter
#include <gridvec/roles/learner.hpp>     // spawn_learner
#include <gridvec/roles/node.hpp>        // spawn_node, node_setup
#include <gridvec/roles/shard.hpp>       // spawn_shard
#include <gridvec/roles/supervisor.hpp>  // spawn_supervisor
#include <gridvec/roles/vocabulary.hpp>  // spawn_vocabulary_partition, spawn_count_worker, spawn_vocabulary_builder
