// Reached by: any peer that holds the cluster secret and sends a node's
// internal actors a message directly (a node's port is open to every
// process of the cluster). The input is a BASP payload, decoded as
// fuzz_caf_message does; the message is then delivered to the real actor
// its first atom is for, hosted by a real node whose cluster config limits
// its paths to one empty directory: the node actor (newshard, newlearner,
// newexport, newcounter, newvocab, link, echo, status, ...), a count worker
// (count, load), a vocabulary partition (merge, collect, earlier,
// assignids, page, lookup), a shard lane (save,
// load, rows, norms, similar, dotprod, adjust, step, reset, stats, ...), a
// learner (preprocess, assign, pause, ...) and an exporter (export,
// savemodel). Then the node actor is asked for its status, which it
// answers after the message (messages between two actors stay in order).
//
// A finding: a crash, an exception out of a handler, an allocation over
// libFuzzer's -rss_limit_mb (every size a peer sets is bounded before it
// is allocated, actors/peer_bounds.hpp), or a node actor that no longer
// answers. (That no path leads out of the node's directory is what
// tests/path_policy.test.cpp checks, message by message.)
#include <caf/all.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gridvec/message_types.hpp>
#include <gridvec/core/vocabulary.hpp>
#include <gridvec/roles/node.hpp>
#include "actors/net/bounded_decoders.hpp"
#include "src/corpus/vocabulary_counts.hpp"

namespace {

using namespace gridvec;

struct internals {
  caf::actor node, counter, vocab, lane, learner, exporter;
  std::string dir;
};

caf::actor_system& fuzz_system() {
  static caf::actor_system* sys = [] {
    static caf::actor_system_config cfg;
    register_message_types(cfg);
    cfg.set("scheduler.max-threads", size_t{2});
    auto* system = new caf::actor_system(cfg);
    net::harden_builtin_decoders(*system);
    return system;
  }();
  return *sys;
}

template <class T>
T ask(caf::scoped_actor& self, const caf::actor& to, caf::message msg) {
  T out{};
  self->request(to, std::chrono::seconds(10), std::move(msg))
    .receive([&](T& x) { out = std::move(x); },
             [&](caf::error& e) {
               std::fprintf(stderr, "fuzz_node_request: setup failed: %s\n", error_text(e).c_str());
               std::abort();
             });
  return out;
}

// A node limited to one directory holding a corpus and its vocabulary, and
// one actor of each internal kind, made the way a coordinator makes them.
internals& node_internals() {
  static internals* in = [] {
    auto* x = new internals;
    auto& sys = fuzz_system();
    char tmpl[] = "/tmp/gridvec-fuzz-node-XXXXXX";
    x->dir = ::mkdtemp(tmpl);
    std::ofstream(x->dir + "/corpus.txt") << "a b c a b a\nc b a\n";
    cluster_config cluster;
    cluster.allow_read = {x->dir};
    cluster.allow_write = {x->dir};
    node_setup setup;
    setup.name = "fuzzed";
    setup.cluster = cluster;
    x->node = caf::actor_cast<caf::actor>(spawn_node(sys, setup));
    // The node stops what an asker leaves behind: this one stays.
    auto& self = *new caf::scoped_actor{sys};
    x->counter =
      caf::actor_cast<caf::actor>(ask<count_worker_actor>(self, x->node, caf::make_message(new_counter_atom::value)));
    x->vocab = caf::actor_cast<caf::actor>(
      ask<vocabulary_partition_actor>(self, x->node, caf::make_message(new_vocab_atom::value)));
    // The vocabulary the shard, exporter and learner load: written here,
    // not built by the partition (which stays open to counts).
    vocabulary v;
    v.add_word("the", 3);
    v.add_word("cat", 2);
    const std::string vocab_file = x->dir + "/vocabulary.txt";
    if (!v.save(vocab_file))
      std::abort();
    // Shards and learners load the counts beside it (the builder's file).
    if (!write_vocabulary_counts(vocabulary_counts::of(v), vocabulary_counts_path(vocab_file)))
      std::abort();
    shard_spec spec;
    spec.count = 1;
    spec.dim = 4;
    spec.vocabulary = vocab_file;
    auto shard = ask<shard_info>(self, x->node, caf::make_message(new_shard_atom::value, spec));
    x->lane = caf::actor_cast<caf::actor>(shard.lanes.front());
    x->exporter = caf::actor_cast<caf::actor>(ask<exporter_actor>(
      self, x->node,
      caf::make_message(new_export_atom::value, vocab_file, std::vector<shard_info>{shard}, uint32_t{4})));
    learner_config lc;
    lc.size = 4;
    // (An argument: CAF 0.17.6 applies an empty argument tuple through a
    // null pointer, which UBSan reports.)
    auto sink = sys.spawn([](int) -> caf::behavior { return {[](caf::message&) {}}; }, 0);
    x->learner = caf::actor_cast<caf::actor>(
      ask<learner_actor>(self, x->node,
                         caf::make_message(new_learner_atom::value, lc, vocab_file, shard.lanes,
                                           caf::actor_cast<coordinator_actor>(sink))));
    return x;
  }();
  return *in;
}

// The actor a message's first atom is for.
caf::actor recipient(internals& in, caf::atom_value a) {
  using caf::atom;
  switch (static_cast<uint64_t>(a)) {
    case static_cast<uint64_t>(atom("count")): return in.counter;
    case static_cast<uint64_t>(atom("merge")):
    case static_cast<uint64_t>(atom("collect")):
    case static_cast<uint64_t>(atom("earlier")):
    case static_cast<uint64_t>(atom("assignids")):
    case static_cast<uint64_t>(atom("page")):
    case static_cast<uint64_t>(atom("lookup")): return in.vocab;
    case static_cast<uint64_t>(atom("save")):
    case static_cast<uint64_t>(atom("rows")):
    case static_cast<uint64_t>(atom("norms")):
    case static_cast<uint64_t>(atom("similar")):
    case static_cast<uint64_t>(atom("dotprod")):
    case static_cast<uint64_t>(atom("adjust")):
    case static_cast<uint64_t>(atom("step")):
    case static_cast<uint64_t>(atom("reset")):
    case static_cast<uint64_t>(atom("stats")):
    case static_cast<uint64_t>(atom("sync")):
    case static_cast<uint64_t>(atom("storerows")):
    case static_cast<uint64_t>(atom("splittrain")):
    case static_cast<uint64_t>(atom("visit")): return in.lane;
    case static_cast<uint64_t>(atom("preproc")):
    case static_cast<uint64_t>(atom("assign")):
    case static_cast<uint64_t>(atom("pause")):
    case static_cast<uint64_t>(atom("resume")):
    case static_cast<uint64_t>(atom("halt")):
    case static_cast<uint64_t>(atom("rollback")): return in.learner;
    case static_cast<uint64_t>(atom("export")):
    case static_cast<uint64_t>(atom("savemodel")): return in.exporter;
    case static_cast<uint64_t>(atom("stop")): return {}; // a node's stop ends it: what the secret allows, not a finding
    default: return in.node;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto& sys = fuzz_system();
  auto& in = node_internals();
  caf::binary_deserializer source{sys, reinterpret_cast<const char*>(data), size};
  std::vector<caf::strong_actor_ptr> stages;
  caf::message msg;
  if (auto err = source(stages, msg))
    return 0;
  if (msg.empty() || !msg.match_element<caf::atom_value>(0))
    return 0;
  auto a = msg.get_as<caf::atom_value>(0);
  // load is a count worker's with a string and the partitions, a shard
  // lane's with a string and a number.
  caf::actor to = a == caf::atom("load") ? (msg.size() > 2 && msg.match_element<uint64_t>(2) ? in.lane : in.counter)
                                         : recipient(in, a);
  if (!to)
    return 0;
  caf::scoped_actor self{sys};
  self->send(to, std::move(msg));
  bool alive = false;
  self->request(in.node, std::chrono::seconds(10), status_atom::value)
    .receive([&](node_status&) { alive = true; }, [](caf::error&) {});
  if (!alive) {
    std::fprintf(stderr, "fuzz_node_request: the node actor no longer answers\n");
    std::abort();
  }
  return 0;
}
