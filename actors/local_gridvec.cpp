// gridvec/local.hpp: a local gridvec in the host's actor system.
#include <gridvec/local.hpp>

#include <spdlog/spdlog.h>

#include <limits>
#include <optional>

namespace gridvec {

expected<local_gridvec> start_local_gridvec(caf::actor_system& sys, std::chrono::milliseconds timeout) {
  // With CAF's defaults (work stealing, no max-throughput) busy learners and
  // shard lanes keep the workers, and the coordinator's ticks, pauses and
  // queries wait seconds: say so once, the host may not know.
  const auto& cfg = sys.config();
  if (caf::get_or(cfg, "scheduler.policy", caf::atom("stealing")) != caf::atom("sharing") ||
      caf::get_or(cfg, "scheduler.max-throughput", std::numeric_limits<size_t>::max()) > 1000)
    spdlog::warn("gridvec: this actor system keeps CAF's default scheduler; call "
                 "gridvec::configure_scheduler(cfg, threads) on its config for responsive jobs");
  local_gridvec gv;
  gv.node = spawn_local_gridvec(sys);
  std::optional<expected<local_gridvec>> out;
  caf::scoped_actor self{sys};
  self->request(gv.node, timeout, controller_atom::value)
    .receive(
      [&](const controller_actor& controller) {
        gv.controller = controller;
        out.emplace(gv);
      },
      [&](caf::error& err) { out.emplace(failure{"the local gridvec did not start: " + error_text(err)}); });
  if (!*out)
    stop_local_gridvec(gv); // the node was spawned; do not leave it behind
  return std::move(*out);
}

void stop_local_gridvec(const local_gridvec& gv) {
  // The node stops what it hosts and its controller, which stops the job.
  if (gv.node)
    caf::anon_send(gv.node, stop_atom::value);
}

} // namespace gridvec
