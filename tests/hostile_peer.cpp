// A peer that knows the cluster secret and lies inside its messages, for
// tests/e2e_security.sh: it connects to a node as gridvec's own clients do
// (the handshake, then CAF's protocol) and sends the node actor messages
// that CAF 0.17.6's decoder would have turned into a 4 GB allocation or a
// crash (actors/net/bounded_decoders.hpp):
//
//   hostile_peer PORT SECRET_FILE bigbuffer    a vector<wire_bytes> whose
//                                               element claims 4 GB in 4 bytes
//   hostile_peer PORT SECRET_FILE config_value a "@config_value" with an index
//                                               its variant does not have
//   hostile_peer PORT SECRET_FILE deep         a "@config_value" of lists
//                                               nested 100000 deep
//   hostile_peer PORT SECRET_FILE newcounter   asks the node actor for a
//                                               count worker (an internal
//                                               request); prints "answered"
//                                               or "refused: WHY"
//   hostile_peer PORT SECRET_FILE status       asks it for its status (an
//                                               internal request), likewise
//   hostile_peer PORT SECRET_FILE controller   asks it for the controller
//                                               (a client's request), likewise
//
// A last argument `node` connects as a node of the cluster (the secret
// itself is needed), `client` (the default) as a client.
//
// and, always connected as a node, the node's internal messages, with paths and sizes a coordinator
// would never send; each prints the node's answer in one line ("ok ..."
// or "error: ...") and exits 0 once answered:
//
//   hostile_peer PORT SECRET_FILE count PATH          a count worker counts PATH
//   hostile_peer PORT SECRET_FILE newshard PATH [DIM] a shard of vocabulary PATH
//   hostile_peer PORT SECRET_FILE newexport PATH      an exporter of vocabulary PATH
//   hostile_peer PORT SECRET_FILE link HOST PORT2     the node connects to HOST:PORT2
//
// The lies are told by types registered here under the receiver's names,
// whose inspect() writes what a well-behaved sender never would. Prints
// "sent" once the messages are on their way; exit 1 if it cannot connect.
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <type_traits>

#include <gridvec/cluster.hpp>
#include <gridvec/protocol.hpp>
#include <gridvec/core/vocabulary.hpp>

#include "actors/connect.hpp" // connect_to_node: an internal helper, this test is built in-tree
#include "actors/net/guarded_transport.hpp"
#include <gridvec/protocol.hpp>

namespace {

// Encodes as std::vector<gridvec::wire_bytes> with one element of 4 bytes
// that claims 0xFFFFFFF0.
struct lying_buffers {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lying_buffers&) {
  if constexpr (std::is_base_of_v<caf::serializer, Inspector>) {
    size_t one = 1;
    size_t claimed = 0xFFFFFFF0;
    char bytes[4] = {'a', 'b', 'c', 'd'};
    return caf::error::eval([&] { return f.begin_sequence(one); }, [&] { return f.begin_sequence(claimed); },
                            [&] { return f.apply_raw(sizeof bytes, bytes); });
  } else {
    return f(caf::meta::type_name("lying_buffers"));
  }
}

// Encodes as a config_value whose variant index is out of range.
struct lying_config_value {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lying_config_value&) {
  if constexpr (std::is_base_of_v<caf::serializer, Inspector>) {
    uint8_t bad_index = 200;
    uint64_t filler = 0;
    return f(bad_index, filler);
  } else {
    return f(caf::meta::type_name("lying_config_value"));
  }
}

// Encodes as a config_value of lists nested 100000 deep (two bytes a
// level), which CAF decodes by recursion.
struct deep_config_value {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deep_config_value&) {
  if constexpr (std::is_base_of_v<caf::serializer, Inspector>) {
    for (int level = 0; level < 100000; ++level) {
      uint8_t list = 7; // the variant's index of config_value::list
      size_t one = 1;
      if (auto err = caf::error::eval([&] { return f(list); }, [&] { return f.begin_sequence(one); }))
        return err;
    }
    uint8_t integer = 0;
    int64_t value = 42;
    return f(integer, value);
  } else {
    return f(caf::meta::type_name("deep_config_value"));
  }
}

} // namespace

namespace {

// Sends one internal message and prints the answer.
int ask(caf::actor_system& sys, const caf::actor& node, const std::vector<std::string>& a) {
  using namespace gridvec;
  caf::scoped_actor self{sys};
  const auto timeout = std::chrono::seconds(20);
  auto print_error = [](const caf::error& e) { std::printf("error: %s\n", error_text(e).c_str()); };
  const std::string& what = a.at(0);
  if (what == "count") {
    // A partition of the node's to count into, then a count worker.
    std::vector<vocabulary_partition_actor> parts;
    self->request(node, timeout, new_vocab_atom::value)
      .receive([&](const vocabulary_partition_actor& p) { parts.push_back(p); }, print_error);
    if (parts.empty())
      return 0;
    self->request(node, timeout, new_counter_atom::value)
      .receive(
        [&](const count_worker_actor& counter) {
          self->request(counter, timeout, count_atom::value, a.at(1), uint64_t{0}, uint64_t{1} << 20, uint8_t{0}, parts)
            .receive(
              [](const count_table& t) { std::printf("ok %llu tokens\n", static_cast<unsigned long long>(t.total)); },
              print_error);
        },
        print_error);
  } else if (what == "newshard") {
    shard_spec spec;
    spec.count = 1;
    spec.dim = a.size() > 2 ? static_cast<uint32_t>(std::stoul(a[2])) : 8;
    spec.vocabulary = a.at(1);
    self->request(node, timeout, new_shard_atom::value, spec)
      .receive([](const shard_info& s) { std::printf("ok a shard of %u columns\n", s.width); }, print_error);
  } else if (what == "newexport") {
    shard_info shard;
    shard.width = 8;
    shard.lanes.push_back(caf::actor_cast<shard_actor>(node)); // never asked: the vocabulary comes first
    self->request(node, timeout, new_export_atom::value, a.at(1), std::vector<shard_info>{shard}, uint32_t{8})
      .receive([](const exporter_actor&) { std::printf("ok an exporter\n"); }, print_error);
  } else if (what == "link") {
    self
      ->request(node, timeout, link_atom::value, std::vector<std::string>{a.at(1)},
                std::vector<uint16_t>{static_cast<uint16_t>(std::stoi(a.at(2)))})
      .receive([](uint32_t n) { std::printf("ok %u linked\n", n); }, print_error);
  } else {
    std::fprintf(stderr, "hostile_peer: unknown request %s\n", what.c_str());
    return 2;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: hostile_peer PORT SECRET_FILE bigbuffer|config_value|newcounter|status|controller "
                         "[node|client]\n"
                         "       hostile_peer PORT SECRET_FILE count|newshard|newexport|link ARGS...\n");
    return 2;
  }
  const auto port = static_cast<uint16_t>(std::stoi(argv[1]));
  const std::string mode = argv[3];
  // The internal messages with outside paths and sizes are an insider's:
  // they connect as a node, which needs the cluster secret itself (a
  // client is refused before any of them reaches an actor).
  const bool insider = mode == "count" || mode == "newshard" || mode == "newexport" || mode == "link";
  const bool as_node = insider || (argc == 5 && std::string{argv[4]} == "node");
  caf::actor_system_config cfg;
  if (auto ok = gridvec::configure_cluster_system(cfg, argv[2]); !ok) {
    std::fprintf(stderr, "hostile_peer: %s\n", ok.error().c_str());
    return 1;
  }
  if (as_node) {
    auto settings = gridvec::net::transport_of_config(cfg);
    settings.kind = gridvec::net::peer_kind::node;
    if (!settings.keys || !settings.keys->node) {
      std::fprintf(stderr, "hostile_peer: a node needs the cluster secret itself\n");
      return 1;
    }
    gridvec::net::use_transport(cfg, settings);
  }
  cfg.add_message_type<lying_buffers>("std::vector<gridvec::wire_bytes>");
  // One liar per name: the mode picks which config_value this peer tells.
  if (mode == "deep")
    cfg.add_message_type<deep_config_value>("@config_value");
  else
    cfg.add_message_type<lying_config_value>("@config_value");
  caf::actor_system sys{cfg};
  std::optional<gridvec::expected<caf::strong_actor_ptr>> node;
  {
    auto helper = sys.spawn([&](caf::event_based_actor* self) {
      gridvec::connect_to_node(self, "127.0.0.1", port, std::chrono::seconds(10),
                               [&, self](gridvec::expected<caf::strong_actor_ptr> ptr) {
                                 node.emplace(std::move(ptr));
                                 self->quit();
                               });
    });
    sys.await_all_actors_done();
  }
  if (!node || !*node) {
    std::fprintf(stderr, "hostile_peer: %s\n", node ? node->error().c_str() : "no answer");
    return 1;
  }
  auto target = caf::actor_cast<caf::actor>(**node);
  if (mode == "newcounter" || mode == "status" || mode == "controller") {
    caf::scoped_actor self{sys};
    std::string outcome;
    auto refused = [&](caf::error& err) { outcome = "refused: " + sys.render(err); };
    if (mode == "newcounter")
      self->request(target, std::chrono::seconds(5), gridvec::new_counter_atom::value)
        .receive([&](const gridvec::count_worker_actor&) { outcome = "answered"; }, refused);
    else if (mode == "status")
      self->request(target, std::chrono::seconds(5), gridvec::status_atom::value)
        .receive([&](const gridvec::node_status&) { outcome = "answered"; }, refused);
    else
      self->request(target, std::chrono::seconds(5), gridvec::controller_atom::value)
        .receive([&](const gridvec::controller_actor&) { outcome = "answered"; }, refused);
    std::puts(outcome.c_str());
    return 0;
  }
  if (mode != "bigbuffer" && mode != "config_value" && mode != "deep")
    return ask(sys, target, std::vector<std::string>(argv + 3, argv + argc));
  for (int i = 0; i < 3; ++i) {
    if (mode == "bigbuffer")
      caf::anon_send(target, lying_buffers{});
    else if (mode == "deep")
      caf::anon_send(target, deep_config_value{});
    else
      caf::anon_send(target, lying_config_value{});
  }
  // Long enough for the messages to leave; the node's answer (if any) is not awaited.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::puts("sent");
  return 0;
}
