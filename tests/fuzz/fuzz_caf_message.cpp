// Reached by: any peer that can open a BASP connection to a node (every port
// of the cluster config): CAF deserializes the payload of each incoming
// message, its forwarding stack and then the caf::message, looking up every
// element type by the name gridvec::register_message_types gave it
// (caf/io/basp/remote_message_handler.hpp in CAF 0.17.6). The job and
// controller types of include/gridvec/job_types.hpp and include/gridvec/protocol.hpp are
// decoded by their inspect() overloads there. Actor handles in the input
// resolve against the local registry or fail (no proxy registry here, as
// there is no connection).
//
// Two defects of CAF 0.17.6 itself are fixed by gridvec's bounded decoders
// (actors/net/bounded_decoders.hpp), which this target runs with, as every
// node does: a byte buffer resized to its length prefix before the bytes
// are checked (up to 4 GiB for a short message), and a bad variant index of
// "@config_value" that threw where BASP does not catch. An allocation over
// libFuzzer's -rss_limit_mb or any exception is now a finding.
#include <caf/all.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/message_types.hpp>
#include "actors/net/bounded_decoders.hpp"

namespace {

caf::actor_system& fuzz_system() {
  // Made once and never destroyed: the scheduler's threads outlive any input.
  static caf::actor_system* sys = [] {
    static caf::actor_system_config cfg;
    gridvec::register_message_types(cfg);
    cfg.set("scheduler.max-threads", size_t{1});
    auto* system = new caf::actor_system(cfg);
    gridvec::net::harden_builtin_decoders(*system);
    return system;
  }();
  return *sys;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto& sys = fuzz_system();
  caf::binary_deserializer source{sys, reinterpret_cast<const char*>(data), size};
  std::vector<caf::strong_actor_ptr> stages;
  caf::message msg;
  if (auto err = source(stages, msg))
    return 0;
  // What the receiving behaviour looks at first: the element types.
  (void)msg.type_token();
  (void)msg.size();
  return 0;
}
