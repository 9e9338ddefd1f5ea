#include "actors/train_job.hpp"

#include "actors/coordinator_actor.hpp"
#include "actors/node_actor.hpp"

namespace gridvec {

std::string error_text(const caf::error& err) {
  const auto& ctx = err.context();
  if (ctx.match_elements<std::string>())
    return ctx.get_as<std::string>(0);
  return to_string(err);
}

expected<job_summary> run_train_job(caf::actor_system& sys, const train_options& options) {
  // One node in this process hosts every role: the same placement as a
  // cluster, without the network.
  auto node = spawn_node(sys, "local", "coordinator vocabulary shard learner exporter");
  job_node local{"local", node, true, true, true, options.threads};
  auto coordinator = spawn_coordinator(sys, options, {local});
  caf::scoped_actor self{sys};
  std::optional<expected<job_summary>> result;
  self->request(coordinator, caf::infinite, run_atom::value)
    .receive([&](const job_summary& s) { result.emplace(s); },
             [&](caf::error& err) { result.emplace(failure{error_text(err)}); });
  self->send_exit(coordinator, caf::exit_reason::user_shutdown);
  self->send_exit(node, caf::exit_reason::user_shutdown);
  return std::move(*result);
}

} // namespace gridvec
