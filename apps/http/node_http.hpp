#pragma once
// A node's HTTP server (docs/http.md): /healthz and /metrics on every node
// that sets http-port in the cluster config, and on the coordinator's node
// the dashboard (/) and the read-only JSON API (/status, /history, /events,
// /nodes, /shards, /learners, /tables, /nearest, /analogy, /vector). The
// routes ask the node's actors with a scoped_actor and a timeout, on the
// server's worker threads.
#include <caf/all.hpp>

#include <memory>
#include <optional>

#include <gridvec/protocol.hpp>
#include "apps/http/http_server.hpp"
#include <gridvec/core/cluster_config.hpp>

namespace gridvec::http {

/// Starts the HTTP server of node `self` (its http-port must be set). The
/// token comes from the cluster's secret, if it has one. The server must be
/// stopped (or destroyed) before the actor system.
expected<std::unique_ptr<server>> start_node_http(caf::actor_system& sys, node_actor node,
                                                  const cluster_config& cluster, const node_spec& self);

/// The handler of those routes, for tests that serve it on their own port.
/// `cluster`: where /tables finds the table shards (none: this node's own).
handler node_routes(caf::actor_system& sys, node_actor node, std::string node_name, bool coordinator,
                    std::optional<cluster_config> cluster = std::nullopt);

} // namespace gridvec::http
