#pragma once
// One connection of the Python module to a cluster: the actor system set
// up from its config and the controller's client. Shared (shared_ptr) by
// the Cluster object and the table clients opened through it, so that the
// actor system outlives every client that uses it.
#include "python/src/bindings.hpp"

#include <caf/all.hpp>

#include <atomic>
#include <memory>
#include <optional>
#include <mutex>

#include <gridvec/cluster.hpp>
#include <gridvec/core/cluster_config.hpp>

namespace gridvec::python {

struct cluster_session {
  cluster_config config;
  std::unique_ptr<caf::actor_system_config> cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::unique_ptr<controller_client> client;
  // The client waits for one reply at a time; Python threads take turns.
  std::mutex client_mutex;
  // Set on Ctrl-C: the client's long waits (submit, wait, ...) end.
  std::atomic<bool> interrupt{false};

  /// The client's lock, taken without the GIL (a thread holding the lock
  /// needs the GIL back to return, so the wait for it must not hold it).
  std::unique_lock<std::mutex> lock_client() {
    std::unique_lock<std::mutex> lock{client_mutex, std::defer_lock};
    py::gil_scoped_release unlocked;
    lock.lock();
    return lock;
  }

  ~cluster_session() {
    // The actor system's end waits for its actors, one of which may be
    // waiting for the GIL (a progress callback's last reference).
    std::optional<py::gil_scoped_release> unlocked;
    if (PyGILState_Check())
      unlocked.emplace();
    client.reset(); // before the actor system it lives in
    sys.reset();
  }
};

/// A client of the cluster's tables (the shard nodes'), as a Python object.
py::object open_tables(const std::shared_ptr<cluster_session>& session, double timeout);

} // namespace gridvec::python
