#include <gridvec/local.hpp>

#include <gridvec/roles/node.hpp>
#include <gridvec/protocol.hpp>

namespace gridvec {

std::string error_text(const caf::error& err) {
  const auto& ctx = err.context();
  if (ctx.match_elements<std::string>())
    return ctx.get_as<std::string>(0);
  return to_string(err);
}

node_actor spawn_local_gridvec(caf::actor_system& sys) {
  node_setup setup;
  setup.name = "local";
  setup.roles = "coordinator vocabulary shard learner exporter";
  setup.address = "in-process";
  setup.controller = true;
  return spawn_node(sys, std::move(setup));
}

expected<job_summary> run_train_job(caf::actor_system& sys, const train_options& options) {
  // One node in this process hosts every role: the same placement as a
  // cluster, without the network.
  auto node = spawn_local_gridvec(sys);
  caf::scoped_actor self{sys};
  std::optional<expected<job_summary>> result;
  self->request(node, caf::infinite, controller_atom::value)
    .receive(
      [&](const controller_actor& controller) {
        self->request(controller, caf::infinite, submit_atom::value, options, caf::actor{})
          .receive([&](const job_summary& s) { result.emplace(s); },
                   [&](caf::error& err) { result.emplace(failure{error_text(err)}); });
      },
      [&](caf::error& err) { result.emplace(failure{error_text(err)}); });
  self->send(node, stop_atom::value);
  return std::move(*result);
}

} // namespace gridvec
