#pragma once
// A local gridvec: a node hosting every role (vocabulary, shards, learners,
// exporter, one coordinator per job) and a controller, spawned in the host
// application's own caf::actor_system. Jobs run as in `gridvec train`: this
// process reads the corpus and writes the vectors, with the same actors and
// messages as a cluster, minus the network.
//
// From plain code (main, a thread; not from inside an actor):
//
//   caf::actor_system_config cfg;
//   caf::actor_system sys{cfg};
//   auto gv = gridvec::start_local_gridvec(sys);     // expected<local_gridvec>
//   if (!gv) { std::fprintf(stderr, "%s\n", gv.error().c_str()); return 1; }
//   auto opt = gridvec::parse_train_options({"-train", "corpus.txt", "-output", "vectors.txt"});
//   caf::scoped_actor self{sys};
//   self->request(gv->controller, std::chrono::minutes(30), gridvec::submit_atom::value, *opt,
//                 listener)                          // gets (line_atom, std::string) progress lines
//     .receive([](const gridvec::job_summary& s) { /* vectors written */ },
//              [](caf::error& e) { /* gridvec::error_text(e): one line */ });
//   self->request(gv->controller, std::chrono::seconds(60), gridvec::nearest_atom::value,
//                 std::string{"king"}, uint32_t{10})
//     .receive([](const std::vector<gridvec::neighbour>& ns) { ... }, [](caf::error& e) { ... });
//   gridvec::stop_local_gridvec(*gv);                // before `sys` goes out of scope
//
// From inside an actor, spawn_local_gridvec(sys) and ask the node for its
// controller with request(node, timeout, controller_atom::value).then(...).
// The controller runs one job at a time; the last job's vectors stay
// queryable (nearest, analogy, export) until the next job starts or the
// gridvec is stopped. docs/actors.md lists every message it answers.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>

#include <chrono>

#include <gridvec/protocol.hpp>
#include <gridvec/core/expected.hpp>
#include <gridvec/core/options.hpp> // train_options, parse_train_options
#include <gridvec/core/report.hpp>

namespace gridvec {

/// How gridvec runs CAF's scheduler, in `gridvec train`, on cluster nodes
/// and in embedding applications that ask for it: `threads` workers sharing
/// one queue. CAF's default work-stealing policy puts an actor woken from
/// outside the workers (a timer, the network) at the back of a worker's
/// queue, behind actors that always have mail while training (shard lanes,
/// learners): the coordinator's ticks, pause and checkpoint requests then
/// waited seconds. One shared FIFO queue, and at most 64 messages per turn,
/// keep every actor's turn within milliseconds; with few workers the shared
/// queue's lock costs nothing measurable.
inline void configure_scheduler(caf::actor_system_config& cfg, size_t threads) {
  cfg.set("scheduler.max-threads", threads);
  cfg.set("scheduler.policy", caf::atom("sharing"));
  cfg.set("scheduler.max-throughput", size_t{64});
}

/// A node hosting every role and a controller, in this actor system: ask it
/// for its controller (controller_atom) and submit jobs there. Send it
/// stop_atom when done; it stops the controller and the last job with it.
node_actor spawn_local_gridvec(caf::actor_system& sys);

/// Runs one job on a local gridvec and waits until the vectors are written
/// (or the job fails): the job's summary or one error line. Blocks; do not
/// call it from inside an actor. (`gridvec train` is this.)
expected<job_summary> run_train_job(caf::actor_system& sys, const train_options& options);

/// A gridvec running inside the host's actor system.
struct local_gridvec {
  node_actor node;             // hosts every role; stopping it stops everything
  controller_actor controller; // where jobs are submitted and queried
};

/// Spawns a local gridvec in `sys` and returns its node and controller, or
/// one error line if the node does not answer within `timeout`. Blocks for
/// one round trip (a scoped_actor): call it from plain code, not from inside
/// an actor. The host's scheduler runs gridvec's actors; a job's options say
/// how many learners (-threads, default: one per core) and shards it uses.
/// Configure the host's actor_system_config with configure_scheduler(cfg,
/// threads) first (one shared queue, bounded turns): with CAF's defaults the
/// busy learners keep the workers and pause, checkpoint and queries answer
/// late; a warning is logged then.
expected<local_gridvec> start_local_gridvec(caf::actor_system& sys,
                                            std::chrono::milliseconds timeout = std::chrono::seconds(10));

/// Stops a local gridvec: the job that is running (it fails with "the job
/// was stopped"; no vectors are written), the last job's shards, the
/// controller and the node. Returns at once; the actors are gone shortly
/// after, so the actor system's destructor does not wait on them. Without
/// it the actor system never finishes shutting down.
void stop_local_gridvec(const local_gridvec& gv);

} // namespace gridvec
