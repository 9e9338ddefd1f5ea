// CAF 0.17.6's decoder, as a peer that knows the cluster secret reaches it
// (a BASP payload: forwarding stack, then the message), with gridvec's
// bounded decoders in place (actors/net/bounded_decoders.hpp): a byte
// buffer that claims 4 GB in a few bytes, alone or inside a vector of
// wire_bytes, costs nothing and fails; a malformed config_value fails
// instead of throwing; values nested 100000 deep fail instead of
// overflowing the stack; real messages still round-trip.
#include "actors/net/bounded_decoders.hpp"

#include <caf/all.hpp>
#include <catch2/catch.hpp>
#include <sys/resource.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/message_types.hpp>
#include <gridvec/protocol.hpp>

using namespace gridvec;

namespace {

struct hardened_system {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  hardened_system() {
    register_message_types(cfg);
    cfg.set("scheduler.max-threads", size_t{1});
    sys = std::make_unique<caf::actor_system>(cfg);
    net::harden_builtin_decoders(*sys);
  }
};

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// A message payload as BASP carries it: no forwarding stages, then the
// message's type list and, as `body` writes them, its elements.
template <class Body>
std::vector<char> payload(caf::actor_system& sys, const std::string& types, Body body) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  std::vector<caf::strong_actor_ptr> no_stages;
  REQUIRE_FALSE(sink(no_stages));
  uint16_t zero = 0;
  std::string name = types;
  REQUIRE_FALSE(sink.begin_object(zero, name));
  body(sink);
  return buf;
}

// As BASP decodes a payload (caf/io/basp/remote_message_handler.hpp).
caf::error decode(caf::actor_system& sys, const std::vector<char>& buf, caf::message& msg) {
  caf::binary_deserializer source{sys, buf};
  std::vector<caf::strong_actor_ptr> stages;
  return source(stages, msg);
}

// A real message as BASP carries it: no forwarding stages, then the message.
std::vector<char> encode(caf::actor_system& sys, const caf::message& original) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  std::vector<caf::strong_actor_ptr> no_stages;
  auto copy = original;
  REQUIRE_FALSE(sink(no_stages, copy));
  return buf;
}

// A message that did not decode: an error, or (CAF 0.17's variadic
// operator() can drop an element's error) nothing in it.
bool refused(const caf::error& err, const caf::message& msg) { return err || msg.empty(); }

// What CAF 0.17.6 threw on: now an error (or an empty message), never an exception.
void check_refused_without_throwing(caf::actor_system& sys, const std::vector<char>& buf) {
  caf::message msg;
  caf::error err;
  REQUIRE_NOTHROW(err = decode(sys, buf, msg));
  CHECK(refused(err, msg));
}

} // namespace

TEST_CASE("bounded decoders: a byte buffer claiming 4 GB fails without allocating it", "[net]") {
  hardened_system h;
  const long before = peak_rss_kb();
  for (const std::string types : {"@<>+@charbuf", "@<>+@atom+@charbuf"}) {
    auto buf = payload(*h.sys, types, [&](caf::binary_serializer& sink) {
      if (types.find("@atom") != std::string::npos) {
        auto atom = dotprod_atom::value;
        REQUIRE_FALSE(sink(atom));
      }
      size_t claimed = 0xFFFFFFF0;
      REQUIRE_FALSE(sink.begin_sequence(claimed));
      REQUIRE_FALSE(sink.apply_raw(4, const_cast<char*>("abcd")));
    });
    CHECK(buf.size() < 64);
    caf::message msg;
    auto err = decode(*h.sys, buf, msg);
    CHECK(refused(err, msg));
  }
  CHECK(peak_rss_kb() - before < 100 * 1024);
}

TEST_CASE("bounded decoders: a vector of wire_bytes whose element claims 4 GB fails without allocating it", "[net]") {
  hardened_system h;
  const long before = peak_rss_kb();
  for (const std::string types :
       {"@<>+std::vector<gridvec::wire_bytes>", "@<>+std::vector<std::vector<gridvec::wire_bytes>>"}) {
    auto buf = payload(*h.sys, types, [&](caf::binary_serializer& sink) {
      size_t one = 1;
      REQUIRE_FALSE(sink.begin_sequence(one));
      if (types.find("std::vector<std::vector") != std::string::npos)
        REQUIRE_FALSE(sink.begin_sequence(one));
      size_t claimed = 0xFFFFFFF0;
      REQUIRE_FALSE(sink.begin_sequence(claimed));
      REQUIRE_FALSE(sink.apply_raw(4, const_cast<char*>("abcd")));
    });
    caf::message msg;
    auto err = decode(*h.sys, buf, msg);
    CHECK(refused(err, msg));
  }
  CHECK(peak_rss_kb() - before < 100 * 1024);
}

TEST_CASE("bounded decoders: a malformed config_value fails instead of throwing", "[net]") {
  hardened_system h;
  auto buf = payload(*h.sys, "@<>+@config_value", [&](caf::binary_serializer& sink) {
    uint8_t bad_index = 200; // the variant has a handful of alternatives
    REQUIRE_FALSE(sink(bad_index));
    uint64_t filler = 0;
    REQUIRE_FALSE(sink(filler));
  });
  check_refused_without_throwing(*h.sys, buf);
}

TEST_CASE("bounded decoders: a config_value whose uri has a bad host kind fails instead of throwing", "[net]") {
  hardened_system h;
  auto buf = payload(*h.sys, "@<>+@config_value", [&](caf::binary_serializer& sink) {
    uint8_t uri_index = 5; // config_value's uri
    std::string scheme = "http", userinfo;
    uint8_t bad_host = 200; // a uri's host is a string or an IPv6 address
    REQUIRE_FALSE(sink(uri_index, scheme, userinfo, bad_host));
    uint64_t filler = 0;
    REQUIRE_FALSE(sink(filler));
  });
  check_refused_without_throwing(*h.sys, buf);
}

TEST_CASE("bounded decoders: real messages with byte buffers still round-trip", "[net]") {
  hardened_system h;
  wire_bytes one(3 << 20, 'x'); // several chunks
  one[12345] = 'y';
  std::vector<wire_bytes> many{wire_bytes(10, 'a'), wire_bytes{}, wire_bytes(70000, 'b')};
  auto original = caf::make_message(step_atom::value, many, std::vector<wire_bytes>{one});
  auto buf = encode(*h.sys, original);
  caf::message msg;
  REQUIRE_FALSE(decode(*h.sys, buf, msg));
  REQUIRE(msg.match_elements<step_atom, std::vector<wire_bytes>, std::vector<wire_bytes>>());
  CHECK(msg.get_as<std::vector<wire_bytes>>(1) == many);
  CHECK(msg.get_as<std::vector<wire_bytes>>(2).at(0) == one);
  auto single = caf::make_message(one);
  REQUIRE_FALSE(decode(*h.sys, encode(*h.sys, single), msg));
  CHECK(msg.get_as<wire_bytes>(0) == one);
}

TEST_CASE("bounded decoders: a config_value nested 100000 lists deep fails instead of overflowing the stack", "[net]") {
  hardened_system h;
  auto buf = payload(*h.sys, "@<>+@config_value", [&](caf::binary_serializer& sink) {
    for (int level = 0; level < 100000; ++level) {
      uint8_t list = 7; // the variant's index of config_value::list
      size_t one = 1;
      REQUIRE_FALSE(sink(list));
      REQUIRE_FALSE(sink.begin_sequence(one));
    }
    uint8_t integer = 0;
    int64_t value = 42;
    REQUIRE_FALSE(sink(integer, value));
  });
  caf::message msg;
  CHECK(refused(decode(*h.sys, buf, msg), msg));
}

TEST_CASE("bounded decoders: a message nested 100000 messages deep is cut instead of overflowing the stack", "[net]") {
  hardened_system h;
  auto buf = payload(*h.sys, "@<>+@message", [&](caf::binary_serializer& sink) {
    for (int level = 0; level < 100000; ++level) {
      uint16_t zero = 0;
      std::string types = "@<>+@message";
      REQUIRE_FALSE(sink.begin_object(zero, types));
    }
    uint16_t zero = 0;
    std::string types = "@<>+@i32";
    REQUIRE_FALSE(sink.begin_object(zero, types));
    int32_t value = 42;
    REQUIRE_FALSE(sink(value));
  });
  caf::message msg;
  auto err = decode(*h.sys, buf, msg);
  // CAF drops the inner error on its way out, so the message may arrive,
  // cut where the levels ran out.
  size_t depth = 0;
  for (const caf::message* level = &msg; level->match_elements<caf::message>(); level = &level->get_as<caf::message>(0))
    ++depth;
  CHECK((refused(err, msg) || depth <= 32));
}

TEST_CASE("bounded decoders: config_values, errors and messages nested a few levels still round-trip", "[net]") {
  hardened_system h;
  caf::config_value::dictionary settings;
  settings.emplace("rate", caf::config_value{0.025});
  settings.emplace("sizes", caf::make_config_value_list(int64_t{1}, caf::make_config_value_list(std::string{"x"})));
  const caf::config_value nested{settings};
  auto job_error = make_job_error(error_code::invalid_argument, "corpus.txt: line 3 is not UTF-8");
  auto original = caf::make_message(nested, job_error,
                                    caf::make_message(std::string{"inner"}, caf::make_message(int32_t{7}, int32_t{8})));
  auto buf = encode(*h.sys, original);
  caf::message msg;
  REQUIRE_FALSE(decode(*h.sys, buf, msg));
  REQUIRE(msg.match_elements<caf::config_value, caf::error, caf::message>());
  CHECK(msg.get_as<caf::config_value>(0) == nested);
  CHECK(error_text(msg.get_as<caf::error>(1)) == error_text(job_error));
  const auto& inner = msg.get_as<caf::message>(2);
  REQUIRE(inner.match_elements<std::string, caf::message>());
  CHECK(inner.get_as<caf::message>(1).get_as<int32_t>(1) == 8);
}
