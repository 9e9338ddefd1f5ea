// Reached by: any peer that can open a BASP connection to a node (every port
// of the cluster config): CAF deserializes the payload of each incoming
// message, its forwarding stack and then the caf::message, looking up every
// element type by the name gridvec::register_message_types gave it
// (caf/io/basp/remote_message_handler.hpp in CAF 0.17.6). The job and
// controller types of actors/job_types.hpp and actors/protocol.hpp are
// decoded by their inspect() overloads there. Actor handles in the input
// resolve against the local registry or fail (no proxy registry here, as
// there is no connection).
//
// Two defects of CAF 0.17.6 itself are kept out of the way here, or every
// run would stop on them (docs/fuzzing.md describes both):
//  - a byte buffer (std::vector<char>, gridvec's wire_bytes) is resized to its
//    length prefix before CAF checks that so many bytes follow, so a short
//    message makes the receiver allocate up to 4 GiB: bounded_deserializer
//    fails a sequence that claims more elements than bytes remain;
//  - a bad variant index of the built-in "@config_value" throws
//    std::runtime_error("invalid type found"), which BASP does not catch.
#include <caf/all.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "actors/message_types.hpp"

namespace {

caf::actor_system& fuzz_system() {
  // Made once and never destroyed: the scheduler's threads outlive any input.
  static caf::actor_system* sys = [] {
    static caf::actor_system_config cfg;
    gridvec::register_message_types(cfg);
    cfg.set("scheduler.max-threads", size_t{1});
    return new caf::actor_system(cfg);
  }();
  return *sys;
}

// CAF's binary_deserializer (final, so wrapped), except that a sequence may
// not claim more elements than there are bytes left: every element of every
// type that gridvec sends takes at least one byte.
class bounded_deserializer final : public caf::deserializer {
public:
  bounded_deserializer(caf::actor_system& sys, const char* data, size_t size)
    : caf::deserializer(sys), inner_(sys, data, size) {}

  caf::error begin_object(uint16_t& nr, std::string& name) override { return inner_.begin_object(nr, name); }
  caf::error end_object() override { return inner_.end_object(); }
  caf::error begin_sequence(size_t& num) override {
    if (auto err = inner_.begin_sequence(num))
      return err;
    if (num > inner_.remaining())
      return caf::sec::end_of_stream;
    return caf::none;
  }
  caf::error end_sequence() override { return inner_.end_sequence(); }
  caf::error apply_raw(size_t num_bytes, void* data) override { return inner_.apply_raw(num_bytes, data); }

protected:
  caf::error apply_impl(int8_t& x) override { return inner_.apply(x); }
  caf::error apply_impl(uint8_t& x) override { return inner_.apply(x); }
  caf::error apply_impl(int16_t& x) override { return inner_.apply(x); }
  caf::error apply_impl(uint16_t& x) override { return inner_.apply(x); }
  caf::error apply_impl(int32_t& x) override { return inner_.apply(x); }
  caf::error apply_impl(uint32_t& x) override { return inner_.apply(x); }
  caf::error apply_impl(int64_t& x) override { return inner_.apply(x); }
  caf::error apply_impl(uint64_t& x) override { return inner_.apply(x); }
  caf::error apply_impl(float& x) override { return inner_.apply(x); }
  caf::error apply_impl(double& x) override { return inner_.apply(x); }
  caf::error apply_impl(long double& x) override { return inner_.apply(x); }
  caf::error apply_impl(std::string& x) override { return inner_.apply(x); }
  caf::error apply_impl(std::u16string& x) override { return inner_.apply(x); }
  caf::error apply_impl(std::u32string& x) override { return inner_.apply(x); }

private:
  caf::binary_deserializer inner_;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto& sys = fuzz_system();
  bounded_deserializer source{sys, reinterpret_cast<const char*>(data), size};
  std::vector<caf::strong_actor_ptr> stages;
  caf::message msg;
  try {
    if (auto err = source(stages, msg))
      return 0;
  } catch (const std::runtime_error& e) {
    // CAF's "@config_value" defect (above); any other exception is a finding.
    if (std::string_view{e.what()} == "invalid type found")
      return 0;
    throw;
  }
  // What the receiving behaviour looks at first: the element types.
  (void)msg.type_token();
  (void)msg.size();
  return 0;
}
