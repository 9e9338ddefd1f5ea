// The path policy (src/access/path_policy.hpp), its race-free opens
// (src/access/guarded_open.hpp), and every message of a node's actors that
// opens a file, sent to a real node actor whose cluster config limits its
// paths: each refuses a path outside the lists, named absolutely, through
// "..", or through a link. (The same on node processes over loopback:
// tests/e2e_security.sh with tests/hostile_peer.cpp.)
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <type_traits>

#include <gridvec/core/cluster_config.hpp>
#include <gridvec/core/options.hpp>
#include <gridvec/message_types.hpp>
#include <gridvec/roles/node.hpp>
#include <gridvec/roles/vocabulary.hpp>
#include "src/access/guarded_open.hpp"
#include "src/access/path_policy.hpp"
#include "src/access/private_file.hpp"
#include "src/net/transport_settings.hpp"
#include "src/util/atomic_file.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using namespace gridvec::access;
using Catch::Matchers::Contains;
using gridvec::test::temp_dir;

namespace fs = std::filesystem;

namespace {

// A directory with in/ (allow-read), out/ (allow-write) and, outside both,
// secret.txt; links in in/ and out/ that lead out.
struct layout {
  temp_dir dir;
  cluster_config cluster;
  layout() {
    fs::create_directories(dir.file("in"));
    fs::create_directories(dir.file("in2"));
    fs::create_directories(dir.file("out"));
    dir.write("in/corpus.txt", "a b c a b a\n");
    dir.write("secret.txt", "the nodes' secret\n");
    fs::create_symlink(dir.file("secret.txt"), dir.file("in/abs-link.txt"));
    fs::create_symlink("../secret.txt", dir.file("in/rel-link.txt"));
    fs::create_symlink("..", dir.file("out/up"));
    cluster.allow_read = {dir.file("in")};
    cluster.allow_write = {dir.file("out")};
  }
  std::string secret_text() const {
    std::ifstream in(dir.file("secret.txt"));
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

} // namespace

TEST_CASE("path policy: under the listed directories, links and .. resolved", "[access]") {
  layout l;
  path_policy allowed{l.cluster};
  auto& dir = l.dir;
  CHECK(allowed.may_read(dir.file("in/corpus.txt"), "the corpus"));
  CHECK_FALSE(allowed.may_read(dir.file("secret.txt"), "the corpus"));
  CHECK_FALSE(allowed.may_read(dir.file("in/abs-link.txt"), "the corpus"));
  CHECK_FALSE(allowed.may_read(dir.file("in/rel-link.txt"), "the corpus"));
  CHECK_FALSE(allowed.may_read(dir.file("in/../secret.txt"), "the corpus"));
  CHECK_FALSE(allowed.may_read(dir.file("in2/x.txt"), "the corpus")); // not a prefix match
  CHECK(allowed.may_read(dir.file("out/v.txt"), "the vectors"));      // a node reads back what it writes
  CHECK(allowed.may_write(dir.file("out/new/vectors.txt"), "the output"));
  CHECK_THAT(allowed.may_write(dir.file("in/v.txt"), "the output").error(),
             Contains("is outside the directories this cluster may write (allow-write"));
  // The same line whether or not the file exists.
  CHECK(allowed.may_read(dir.file("secret.txt"), "the corpus").error() ==
        allowed.refusal(dir.file("secret.txt"), intent::read, "the corpus"));
  CHECK(allowed.may_read("/etc/gridvec-no-such-file", "the corpus").error() ==
        allowed.refusal("/etc/gridvec-no-such-file", intent::read, "the corpus"));
  CHECK_FALSE(allowed.may_read(dir.file("in/x\nfake line"), "the corpus"));
  train_options job;
  job.train = dir.file("in/corpus.txt");
  job.output = dir.file("out/v.txt");
  CHECK(allowed.check_job(job));
  job.save_model = dir.file("in/model");
  CHECK_THAT(allowed.check_job(job).error(), Contains("--save-model"));
  job.save_model.clear();
  job.init = dir.file("secret.txt");
  CHECK_THAT(allowed.check_job(job).error(), Contains("--init"));
  job.init.clear();
  job.checkpoint_dir = "/etc/gridvec-ck";
  CHECK_THAT(allowed.check_job(job).error(), Contains("the checkpoint directory /etc/gridvec-ck"));
  // A cluster with a secret but no lists allows nothing; an insecure one without lists, anything.
  CHECK_FALSE(path_policy{cluster_config{}}.may_read(dir.file("in/corpus.txt"), "the corpus"));
  cluster_config insecure;
  insecure.insecure = true;
  CHECK(path_policy{insecure}.may_read("/etc/passwd", "the corpus"));
}

TEST_CASE("guarded opens stay below the allowed directory, links swapped in included", "[access]") {
  layout l;
  scoped_policy guard{path_policy{l.cluster}};
  auto& dir = l.dir;
  CHECK(open_read(dir.file("in/corpus.txt"), "the corpus"));
  for (auto p : {"secret.txt", "in/abs-link.txt", "in/rel-link.txt", "in/../secret.txt", "out/up/secret.txt"}) {
    auto r = open_read(dir.file(p), "the corpus");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error(), Contains("is outside the directories"));
  }
  // A link put in place after the check (what a race would do): the walk
  // under the directory's descriptor refuses it with the policy's line.
  fs::create_directories(dir.file("in/sub"));
  auto placed = process_policy()->place(dir.file("in/sub/corpus.txt"), intent::read, "the corpus");
  REQUIRE(placed);
  fs::remove_all(dir.file("in/sub"));
  fs::create_symlink(dir.path(), dir.file("in/sub")); // in/sub -> the parent of in/
  fs::create_symlink("../../secret.txt", dir.file("in/sub2"));
  for (auto p : {"in/sub/secret.txt", "in/sub2"}) {
    auto r = open_read(dir.file(p), "the corpus");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error(), Contains("is outside the directories"));
  }
  // Writing: atomic files appear in place, never through a link out.
  auto f = atomic_file::create(dir.file("out/v.txt"), "the output");
  REQUIRE(f);
  std::fputs("x\n", f->stream());
  REQUIRE(f->commit());
  CHECK(fs::exists(dir.file("out/v.txt")));
  for (auto p : {"secret.txt", "out/up/secret.txt", "out/../secret.txt", "in/v.txt"}) {
    auto w = atomic_file::create(dir.file(p), "the output");
    REQUIRE_FALSE(w);
    CHECK_THAT(w.error(), Contains("is outside the directories"));
  }
  CHECK(make_directories(dir.file("out/a/b/c"), "the work directory"));
  CHECK(fs::is_directory(dir.file("out/a/b/c")));
  CHECK_FALSE(make_directories(dir.file("out/up/escaped"), "the work directory"));
  CHECK_FALSE(fs::exists(dir.file("escaped")));
  CHECK(l.secret_text() == "the nodes' secret\n");
}

// --- every file-opening message of a node's actors ---------------------------

namespace {

// Whether a message's inputs carry a path (a string, or a shard_spec with
// its files).
template <class T>
struct carries_path : std::false_type {};
template <>
struct carries_path<std::string> : std::true_type {};
template <>
struct carries_path<shard_spec> : std::true_type {};
template <>
struct carries_path<vocabulary_build> : std::true_type {};

template <class Signature>
struct signature_carries_path : std::false_type {};
template <class... Ins, class Out>
struct signature_carries_path<caf::typed_mpi<caf::detail::type_list<Ins...>, Out>>
  : std::bool_constant<(carries_path<Ins>::value || ...)> {};

template <class List>
struct count_path_messages;
template <class... Signatures>
struct count_path_messages<caf::detail::type_list<Signatures...>> {
  static constexpr size_t value = (size_t{signature_carries_path<Signatures>::value} + ... + 0);
};

template <class Actor>
constexpr size_t path_messages = count_path_messages<typename Actor::signatures>::value;

// Every message of a node's internal actors that carries a path. A new
// one makes the count below differ from the table: add it to the table.
constexpr size_t path_messages_of_nodes = path_messages<node_actor> + path_messages<shard_actor> +
                                          path_messages<count_worker_actor> + path_messages<vocabulary_builder_actor> +
                                          path_messages<learner_actor> + path_messages<exporter_actor> +
                                          // (a partition's lookup carries words in its string, not a path)
                                          path_messages<vocabulary_partition_actor> - 1;

template <class T>
std::string error_of(caf::scoped_actor& self, const caf::actor& to, caf::message msg) {
  std::string error;
  self->request(to, std::chrono::seconds(20), std::move(msg))
    .receive([&](T&) { error = "(answered without an error)"; }, [&](caf::error& e) { error = error_text(e); });
  return error;
}

} // namespace

TEST_CASE("every file-opening message of a node refuses paths outside its lists", "[access][actors]") {
  layout l;
  auto& dir = l.dir;
  scoped_policy restore{path_policy{}}; // the node installs its own; put back afterwards
  caf::actor_system_config cfg;
  register_message_types(cfg);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  node_setup setup;
  setup.name = "guarded";
  setup.cluster = l.cluster;
  // A model of the shards' dimension, for --init's row map to be asked of.
  fs::create_directories(dir.file("in/model4"));
  dir.write("in/model4/MODEL", "gridvec-model 1\ndim 4\nwords 1\noptions\n");
  auto node = caf::actor_cast<caf::actor>(spawn_node(sys, setup));

  // What the messages need, made from allowed files.
  const std::string corpus = dir.file("in/corpus.txt");
  count_worker_actor counter;
  self->request(node, std::chrono::seconds(10), new_counter_atom::value)
    .receive([&](count_worker_actor& c) { counter = c; }, [&](caf::error& e) { FAIL(error_text(e)); });
  // A partition of the node's with the corpus's counts: each build takes one.
  auto counted_partition = [&] {
    std::vector<vocabulary_partition_actor> parts(1);
    self->request(node, std::chrono::seconds(10), new_vocab_atom::value)
      .receive([&](vocabulary_partition_actor& v) { parts[0] = v; }, [&](caf::error& e) { FAIL(error_text(e)); });
    self
      ->request(counter, std::chrono::seconds(10), count_atom::value, corpus, uint64_t{0}, uint64_t{12}, uint8_t{0},
                parts)
      .receive([&](count_table&) {}, [&](caf::error& e) { FAIL(error_text(e)); });
    return parts;
  };
  auto builder = spawn_vocabulary_builder(sys);
  auto build = [&](const std::string& path, const std::string& word2vec_path) {
    vocabulary_build what;
    what.partitions = counted_partition();
    what.min_count = 1;
    what.path = path;
    what.word2vec_path = word2vec_path;
    return error_of<vocabulary_info>(self, caf::actor_cast<caf::actor>(builder),
                                     caf::make_message(build_atom::value, what));
  };
  const std::string vocab_file = dir.file("out/vocabulary.txt");
  REQUIRE(build(vocab_file, "") == "(answered without an error)");
  shard_spec spec;
  spec.count = 1;
  spec.dim = 4;
  spec.vocabulary = vocab_file;
  shard_info shard;
  self->request(node, std::chrono::seconds(10), new_shard_atom::value, spec)
    .receive([&](shard_info& s) { shard = s; }, [&](caf::error& e) { FAIL(error_text(e)); });
  REQUIRE(!shard.lanes.empty());
  auto lane = caf::actor_cast<caf::actor>(shard.lanes.front());
  exporter_actor exporter;
  self
    ->request(node, std::chrono::seconds(10), new_export_atom::value, vocab_file, std::vector<shard_info>{shard},
              uint32_t{4})
    .receive([&](exporter_actor& e) { exporter = e; }, [&](caf::error& e) { FAIL(error_text(e)); });
  auto sink = sys.spawn([]() -> caf::behavior { return {[](caf::message&) {}}; });
  learner_actor learner;
  learner_config lc;
  lc.size = 4;
  self
    ->request(node, std::chrono::seconds(10), new_learner_atom::value, lc, vocab_file, shard.lanes,
              caf::actor_cast<coordinator_actor>(sink))
    .receive([&](learner_actor& a) { learner = a; }, [&](caf::error& e) { FAIL(error_text(e)); });

  // The table: each message that opens a file, with the path in question.
  struct entry {
    const char* message;
    std::function<std::string(const std::string& path)> send;
  };
  auto with_spec = [&](auto set) {
    return [&, set](const std::string& p) {
      shard_spec s = spec;
      set(s, p);
      return error_of<shard_info>(self, node, caf::make_message(new_shard_atom::value, s));
    };
  };
  const std::vector<entry> table = {
    {"node newshard (vocabulary)", with_spec([](shard_spec& s, const std::string& p) { s.vocabulary = p; })},
    {"node newshard (checkpoint)", with_spec([](shard_spec& s, const std::string& p) { s.checkpoint = p; })},
    {"node newshard (--init)", with_spec([](shard_spec& s, const std::string& p) { s.init_model = p; })},
    {"node newshard (--init row map)", with_spec([&](shard_spec& s, const std::string& p) {
       s.init_model = dir.file("in/model4");
       s.init_rows = p;
     })},
    {"node newlearner (vocabulary)",
     [&](const std::string& p) {
       return error_of<learner_actor>(
         self, node,
         caf::make_message(new_learner_atom::value, lc, p, shard.lanes, caf::actor_cast<coordinator_actor>(sink)));
     }},
    {"node newexport (vocabulary)",
     [&](const std::string& p) {
       return error_of<exporter_actor>(
         self, node, caf::make_message(new_export_atom::value, p, std::vector<shard_info>{shard}, uint32_t{4}));
     }},
    {"shard save",
     [&](const std::string& p) {
       return error_of<file_digest>(self, lane, caf::make_message(save_atom::value, p, uint64_t{0}));
     }},
    {"shard load",
     [&](const std::string& p) {
       return error_of<bool>(self, lane, caf::make_message(load_atom::value, p, uint64_t{0}));
     }},
    {"counter count",
     [&](const std::string& p) {
       return error_of<count_table>(
         self, caf::actor_cast<caf::actor>(counter),
         caf::make_message(count_atom::value, p, uint64_t{0}, uint64_t{12}, uint8_t{0}, counted_partition()));
     }},
    {"counter load",
     [&](const std::string& p) {
       return error_of<count_table>(self, caf::actor_cast<caf::actor>(counter),
                                    caf::make_message(load_atom::value, p, counted_partition()));
     }},
    {"counter rowmap (model vocabulary)",
     [&](const std::string& p) {
       return error_of<uint64_t>(self, caf::actor_cast<caf::actor>(counter),
                                 caf::make_message(row_map_atom::value, p, dir.file("out/rows.map"), uint64_t{3},
                                                   uint64_t{0}, counted_partition()));
     }},
    {"counter rowmap (row map)",
     [&](const std::string& p) {
       return error_of<uint64_t>(
         self, caf::actor_cast<caf::actor>(counter),
         caf::make_message(row_map_atom::value, corpus, p, uint64_t{3}, uint64_t{0}, counted_partition()));
     }},
    {"builder build (file)", [&](const std::string& p) { return build(p, ""); }},
    {"builder build (-save-vocab)", [&](const std::string& p) { return build(dir.file("out/v2.txt"), p); }},
    // Through a partition (the join; a learner never loads the words).
    {"learner preprocess (corpus, joined)",
     [&](const std::string& p) {
       return error_of<uint64_t>(self, caf::actor_cast<caf::actor>(learner),
                                 caf::make_message(preprocess_atom::value, p, uint64_t{0}, uint64_t{12},
                                                   dir.file("out/part-0.ids"), counted_partition()));
     }},
    {"learner preprocess (ids file, joined)",
     [&](const std::string& p) {
       return error_of<uint64_t>(
         self, caf::actor_cast<caf::actor>(learner),
         caf::make_message(preprocess_atom::value, corpus, uint64_t{0}, uint64_t{12}, p, counted_partition()));
     }},
    // A partition reading its words back from a vocabulary file (--resume).
    {"vocabulary partition load (read back)",
     [&](const std::string& p) {
       vocabulary_partition_actor part;
       self->request(node, std::chrono::seconds(10), new_vocab_atom::value)
         .receive([&](vocabulary_partition_actor& v) { part = v; }, [&](caf::error& e) { FAIL(error_text(e)); });
       return error_of<uint64_t>(
         self, caf::actor_cast<caf::actor>(part),
         caf::make_message(load_atom::value, p, uint32_t{0}, uint32_t{1}, uint64_t{3}, uint32_t{0}));
     }},
    {"exporter export",
     [&](const std::string& p) {
       return error_of<uint64_t>(self, caf::actor_cast<caf::actor>(exporter),
                                 caf::make_message(export_atom::value, p, false, uint32_t{0}));
     }},
    {"exporter exportpart",
     [&](const std::string& p) {
       return error_of<uint64_t>(self, caf::actor_cast<caf::actor>(exporter),
                                 caf::make_message(export_part_atom::value, p, uint32_t{0}, uint32_t{1}, false));
     }},
    {"exporter savemodel",
     [&](const std::string& p) {
       return error_of<uint64_t>(self, caf::actor_cast<caf::actor>(exporter),
                                 caf::make_message(save_model_atom::value, p, uint64_t{0}, std::vector<std::string>{}));
     }},
  };
  // One message of the interfaces may open several paths (newshard: four;
  // build, rowmap and preprocess: two); every message is in the table.
  std::set<std::string> messages;
  for (const auto& e : table)
    messages.insert(std::string(e.message).substr(0, std::string(e.message).find(" (")));
  CHECK(messages.size() == path_messages_of_nodes);

  const std::vector<std::pair<const char*, std::string>> outside = {
    {"absolute, outside", dir.file("secret.txt")},
    {"absolute, missing and outside", "/etc/gridvec-no-such-dir/file"},
    {"..", dir.file("out/../secret.txt")},
    {"link (absolute target)", dir.file("in/abs-link.txt")},
    {"link (relative target)", dir.file("in/rel-link.txt")},
    {"link to a parent directory", dir.file("out/up/secret.txt")},
  };
  for (const auto& e : table)
    for (const auto& [kind, path] : outside) {
      INFO(e.message << " with a path " << kind << ": " << path);
      CHECK_THAT(e.send(path), Contains("is outside the directories this cluster may"));
    }
  CHECK(l.secret_text() == "the nodes' secret\n");
  CHECK_FALSE(fs::exists("/etc/gridvec-no-such-dir"));

  // Sizes a peer sets are bounded before anything is allocated.
  shard_spec huge = spec;
  huge.dim = 2000000000;
  CHECK_THAT(error_of<shard_info>(self, node, caf::make_message(new_shard_atom::value, huge)),
             Contains("dimension 2000000000 is out of bounds"));
  // link reaches only the cluster's nodes (here: none), never probes a port.
  CHECK_THAT(error_of<uint32_t>(
               self, node,
               caf::make_message(link_atom::value, std::vector<std::string>{"127.0.0.1"}, std::vector<uint16_t>{22})),
             Contains("is not a node of this cluster"));
  for (auto a : {caf::actor_cast<caf::actor>(learner), caf::actor_cast<caf::actor>(exporter), sink,
                 caf::actor_cast<caf::actor>(builder)})
    self->send_exit(a, caf::exit_reason::user_shutdown);
  self->send(node, stop_atom::value);
}

TEST_CASE("a TLS key that others can read is refused like the secret", "[access]") {
  temp_dir dir;
  const auto key = dir.write("node.key", "not a key yet\n");
  dir.write("node.pem", "not a certificate\n");
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  cluster_config cluster;
  cluster.source = dir.file("c.conf");
  cluster.tls_certificate = dir.file("node.pem");
  cluster.tls_key = key;
  cluster.tls_ca = dir.file("node.pem");
  auto s = net::load_transport_settings(cluster);
  REQUIRE_FALSE(s);
  CHECK(s.error() ==
        "the TLS key " + key + " can be read or written by other users (mode 0644); run: chmod 600 " + key);
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write);
  CHECK(check_private_file(key, "the TLS key"));
  s = net::load_transport_settings(cluster);
  REQUIRE_FALSE(s); // now it gets as far as reading the files as PEM
  CHECK_THAT(s.error(), !Contains("other users"));
  fs::create_symlink(key, dir.file("link.key"));
  CHECK_THAT(check_private_file(dir.file("link.key"), "the TLS key").error(), Contains("symbolic link"));
}
