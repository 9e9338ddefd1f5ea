// Errors carry a code beside their line, and callers branch on the code: it
// must survive every way an error travels (a status passed on, a CAF error
// serialized between processes, a table shard's Cap'n Proto reply).
// GCC 12 sees CAF's one-byte copy of a bool as out of bounds (false
// -Warray-bounds/-Wstringop-* in caf/serializer_impl.hpp, inlined only here).
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <caf/all.hpp>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/table_wire.hpp>
#include <gridvec/message_types.hpp>
#include <gridvec/protocol.hpp>
#include "src/table/table_service.hpp"
#include "tests/table_test_util.hpp"

using namespace gridvec;

namespace {

status refuse(error_code code) { return failure{"refused", code}; }

// An error as a node's CAF sends it to another node (its context, the
// line, is a message of the types every node registers), read back there.
caf::error across_the_wire(caf::actor_system& sys, const caf::error& err) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  REQUIRE_FALSE(sink(const_cast<caf::error&>(err)));
  caf::error received;
  caf::binary_deserializer source{sys, buf};
  REQUIRE_FALSE(source(received));
  return received;
}

} // namespace

TEST_CASE("a failure has a code, failed unless it says otherwise, and keeps it when passed on", "[errors]") {
  status plain = failure{"no"};
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.code() == error_code::failed);
  status busy = refuse(error_code::busy);
  CHECK_FALSE(busy);
  CHECK(busy.code() == error_code::busy);
  CHECK(busy.error() == "refused");
  expected<int> passed = busy.why();
  REQUIRE_FALSE(passed.ok());
  CHECK(passed.code() == error_code::busy);
  CHECK(passed.error() == "refused");
  CHECK(status{}.ok());
  CHECK(expected<int>{3}.ok());
  CHECK(to_string(error_code::not_found) == "not_found");
  CHECK(to_string(error_code::unauthorised) == "unauthorised");
  CHECK(error_code_from_number(200) == error_code::failed);
  for (uint8_t n = 0; n < error_code_count; ++n)
    CHECK(static_cast<uint8_t>(error_code_from_number(n)) == n);
}

TEST_CASE("a job error's code and line survive CAF's serialization", "[errors]") {
  caf::actor_system_config cfg;
  register_message_types(cfg);
  cfg.set("scheduler.max-threads", size_t{1});
  caf::actor_system sys{cfg};
  for (uint8_t n = 0; n < error_code_count; ++n) {
    const auto code = static_cast<error_code>(n);
    const caf::error sent = make_job_error(code, "line " + std::to_string(n));
    const caf::error got = across_the_wire(sys, sent);
    CHECK(got == sent);
    CHECK(is_job_error(got));
    CHECK(error_code_of(got) == code);
    CHECK(error_text(got) == "line " + std::to_string(n));
    const failure f = failure_of(got);
    CHECK(f.code == code);
    CHECK(f.message == "line " + std::to_string(n));
  }
  // A line without a code is the job error it always was.
  CHECK(make_job_error("plain") == caf::sec::runtime_error);
  CHECK(error_code_of(make_job_error("plain")) == error_code::failed);
  // CAF's own errors are not job errors; their codes say what happened.
  CHECK_FALSE(is_job_error(caf::make_error(caf::sec::request_timeout)));
  CHECK(error_code_of(caf::make_error(caf::sec::request_timeout)) == error_code::timeout);
  CHECK(error_code_of(caf::make_error(caf::sec::request_receiver_down)) == error_code::unavailable);
  CHECK(error_code_of(caf::error{}) == error_code::failed);
}

TEST_CASE("a table shard's error reply carries its code in the Cap'n Proto bytes", "[errors][tables]") {
  table_service service{0, 1, ""};
  auto missing = test::ask(service, encode_table_keys(table_op::get, "nowhere", std::vector<uint64_t>{1}));
  REQUIRE(missing.what == table_reply::kind::error);
  CHECK(missing.code == error_code::not_found);
  CHECK(missing.error == "no table 'nowhere' on shard 0");
  auto garbage = test::ask(service, wire_bytes(12, 'x'));
  REQUIRE(garbage.what == table_reply::kind::error);
  CHECK(garbage.code == error_code::failed);
}
