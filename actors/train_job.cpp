#include <gridvec/local.hpp>

#include <gridvec/roles/node.hpp>
#include <gridvec/protocol.hpp>

namespace gridvec {

bool is_job_error(const caf::error& err) {
  return err == caf::sec::runtime_error || (err && err.category() == job_error_category());
}

error_code error_code_of(const caf::error& err) {
  if (!err)
    return error_code::failed;
  if (err.category() == job_error_category())
    return error_code_from_number(err.code() - 1u);
  if (err == caf::sec::request_timeout)
    return error_code::timeout;
  if (err == caf::sec::request_receiver_down || err == caf::sec::remote_linking_failed ||
      err == caf::sec::cannot_connect_to_node)
    return error_code::unavailable;
  return error_code::failed;
}

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
                   [&](caf::error& err) { result.emplace(failure_of(err)); });
      },
      [&](caf::error& err) { result.emplace(failure_of(err)); });
  self->send(node, stop_atom::value);
  return std::move(*result);
}

} // namespace gridvec
