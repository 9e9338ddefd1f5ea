#pragma once
// Running a job on a cluster, from the coordinator's node: connect to every
// node of the config (each within the config's connect timeout, or the job
// fails naming the node), let learner nodes open direct connections to the
// shard nodes, then run the same coordinator as `gridvec train` over them.
#include <string>

#include <caf/io/middleman.hpp>

#include <functional>
#include <set>

#include "actors/protocol.hpp"
#include "src/cluster_config.hpp"

namespace gridvec {

/// One cluster job: (submit, options, listener) -> the job's summary.
using cluster_job_actor = caf::typed_actor<
  caf::replies_to<submit_atom, train_options, caf::actor>::with<job_summary>>;

/// Answers one submit with the job's summary and then quits. `self_node`
/// is the node this runs on (it is not connected to). With
/// options.stop_cluster, every node is told to stop once it is done.
cluster_job_actor spawn_cluster_job(caf::actor_system& sys, cluster_config config,
                                    std::string self_name, node_actor self_node);

/// Asks this process's middleman to connect to host:port, with a timeout
/// (the blocking remote_actor() has none); calls `then` with the actor
/// published there or an error line.
template <class Self>
void connect_to_node(Self* self, const std::string& host, uint16_t port,
                     std::chrono::milliseconds timeout,
                     std::function<void(expected<caf::strong_actor_ptr>)> then) {
  auto mm = self->home_system().middleman().actor_handle();
  auto where = host + ":" + std::to_string(port);
  self->request(mm, timeout, caf::connect_atom::value, host, port)
    .then(
      [then, where](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
        if (!ptr)
          then(failure{"nothing is published at " + where});
        else
          then(std::move(ptr));
      },
      [then, where](caf::error& err) {
        std::string why = err == caf::sec::request_timeout ? "no answer" : error_text(err);
        then(failure{"cannot reach " + where + ": " + why});
      });
}

} // namespace gridvec
