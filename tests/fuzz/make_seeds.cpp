// Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/TARGET/)
// with gridvec's own encoders and writers, so that every seed is a real
// message or file:
//   gridvec_fuzz_seeds OUT_DIR SOURCE_DIR
// (SOURCE_DIR: the repository, whose examples/*.conf seed the config parser).
// Built with the fuzz targets; scripts/fuzz --write-seeds runs it.
#include <caf/all.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <gridvec/message_types.hpp>
#include <gridvec/protocol.hpp>
#include "src/formats/checkpoint.hpp"
#include "src/net/auth_handshake.hpp"
#include <gridvec/core/vocabulary.hpp>
#include "src/formats/split_wire.hpp"
#include "src/formats/wire.hpp"
#include "src/replicated/row_block.hpp"
#include <gridvec/core/table_wire.hpp>

using namespace gridvec;
namespace fs = std::filesystem;

namespace {

fs::path out_dir;
std::vector<std::string> caf_payloads; // for BASP frame seeds

void write(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(out_dir / target);
  std::ofstream out(out_dir / target / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::cerr << "cannot write " << (out_dir / target / name) << "\n";
    std::exit(1);
  }
}

void write(const std::string& target, const std::string& name, const wire_bytes& bytes) {
  write(target, name, std::string(bytes.begin(), bytes.end()));
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void check(const status& s) {
  if (!s) {
    std::cerr << s.error() << "\n";
    std::exit(1);
  }
}

// Word ids below 64: the fuzz targets' small shard accepts them.
minibatch skipgram() {
  minibatch mb;
  mb.seed = 42;
  mb.negatives = 3;
  mb.inputs = {5, 9, 17};
  mb.outputs = {1, 2, 3, 4, 5, 6};
  mb.output_counts = {2, 3, 1};
  return mb;
}

minibatch cbow() {
  minibatch mb;
  mb.seed = 7;
  mb.negatives = 2;
  mb.mean_inputs = true;
  mb.inputs = {1, 2, 3, 4, 60, 61};
  mb.input_counts = {4, 2};
  mb.outputs = {9, 10};
  return mb;
}

// Skip-gram windows with shared negatives (HogBatch): targets x contexts.
minibatch windows() {
  minibatch mb = skipgram();
  mb.shared_negatives = true;
  return mb;
}

minibatch one_each() {
  minibatch mb;
  mb.seed = 1;
  mb.negatives = 1;
  mb.inputs = {3, 4};
  mb.outputs = {8, 0};
  return mb;
}

void wire_seeds() {
  const minibatch batches[] = {skipgram(), cbow(), one_each(), minibatch{}, windows()};
  const char* names[] = {"skipgram", "cbow", "one-each", "empty", "windows"};
  for (int i = 0; i < 5; ++i) {
    minibatch mb = batches[i];
    write("dotprod_request", names[i], encode_dotprod_request(mb));
    std::vector<float> weights(mb.dot_count());
    for (size_t j = 0; j < weights.size(); ++j)
      weights[j] = 0.01f * static_cast<float>(j % 7) - 0.03f;
    mb.alpha = 0.025f;
    mb.staleness = i == 0 ? 0 : 3; // refresh of stale weights off, and on
    write("adjust_request", names[i], encode_adjust_request(mb, weights.data(), weights.size()));
    write("dotprod_reply", names[i], encode_dotprod_reply(static_cast<uint32_t>(i), weights.data(), weights.size()));
  }
  write("adjust_reply", "pairs", encode_adjust_reply(1, 6));
  write("adjust_reply", "zero", encode_adjust_reply(0, 0));
  row_block b;
  b.round = 3;
  b.host = 1;
  b.width = 4;
  b.inputs = {0, 5};
  b.outputs = {2};
  b.values.assign(3 * 4, 0.25f);
  write("row_block", "rows", encode_row_block(b));
  b.width = 0;
  b.values.clear();
  write("row_block", "no-columns", encode_row_block(b));
  write("row_block", "empty", encode_row_block(row_block{}));
  // --partition words: a share of shard 0 of 2 (even input words), and a
  // visit batch to it.
  minibatch share = skipgram();
  share.inputs = {2, 4};
  share.outputs = {1, 3, 5, 7};
  share.output_counts = {2, 2};
  share.negatives = 3;
  write("split_train_request", "example", encode_split_train_request(share, 0.025f, visit_grouping::example));
  write("split_train_request", "skipgram", encode_split_train_request(share, 0.025f, visit_grouping::skipgram));
  visit_batch v;
  v.input_words = {3, 9};
  v.visit_input = {0, 1};
  v.visit_positive = {2, visit_batch::no_positive};
  v.visit_noise = {3, 1};
  const std::vector<float> vectors(2 * 4, 0.1f);
  write("visit_batch", "two", encode_visit_batch(v, 5, 0.025f, 1, vectors.data(), 4));
  write("visit_batch", "empty", encode_visit_batch(visit_batch{}, 5, 0.025f, 1, nullptr, 4));
}

void table_seeds() {
  // One request of each kind, against the tables fuzz_table_request creates.
  table_spec spec;
  spec.name = "rows";
  spec.dim = 3;
  spec.optimizer = table_optimizer::adam;
  const std::vector<uint64_t> keys{1, 2, 7};
  const std::vector<float> values(9, 0.5f);
  write("table_request", "create", encode_table_create(spec));
  write("table_request", "get", encode_table_keys(table_op::get, "rows", keys));
  write("table_request", "fetch", encode_table_keys(table_op::fetch, "rows", keys));
  write("table_request", "remove", encode_table_keys(table_op::remove, "rows", keys));
  write("table_request", "put", encode_table_values(table_op::put, "rows", keys, values));
  write("table_request", "push", encode_table_values(table_op::push, "rows", keys, values));
  write("table_request", "set-if-absent", encode_table_values(table_op::set_if_absent, "rows", keys, values));
  write("table_request", "dot", encode_table_pairs(table_op::dot, "columns", keys, keys));
  write("table_request", "axpy", encode_table_pairs(table_op::axpy, "columns", keys, keys, 0.5f));
  write("table_request", "scal", encode_table_scal("columns", 2.0f, keys));
  write("table_request", "reduce", encode_table_reduce("columns", "sum"));
  write("table_request", "call", encode_table_call("rows", "nothing", wire_bytes(4, 'x')));
  write("table_request", "list", encode_table_simple(table_op::list, ""));
  write("table_request", "save", encode_table_simple(table_op::save, "rows"));
  write("table_request", "load", encode_table_simple(table_op::load, "rows"));
  write("table_request", "take-over", encode_table_take_over(1, 2));
  write("table_request", "scan", encode_table_scan("rows", 0, 10));
  const std::vector<uint64_t> vector_rows{0, 3};
  const std::vector<uint32_t> columns{50000, 99999, 50000};
  const std::vector<float> deltas{1.0f, -2.0f, 0.5f};
  write("table_request", "sparse-get", encode_table_sparse_get("vectors", vector_rows, columns));
  write("table_request", "sparse-add", encode_table_sparse_add("vectors", 3, columns, deltas));
  write("table_request", "sparse-add-writer", encode_table_sparse_add("vectors", 3, columns, deltas, 7));
  write("table_request", "fence", encode_table_fence("vectors", 8));
  write("table_request", "lookup",
        encode_table_lookup("rows", table_combiner::sqrtn, keys, std::vector<uint32_t>{0, 2, 4},
                            std::vector<uint32_t>{0, 1, 1, 2}, std::vector<uint32_t>{2, 2}));
  write("table_request", "sparse-get-columns", encode_table_sparse_get("columns", keys, std::vector<uint32_t>{1, 2}));
}

void checkpoint_seeds(const fs::path& tmp) {
  // A vocabulary, a slice and a manifest as a checkpoint holds them.
  word_counts counts;
  for (const char* w : {"the", "the", "the", "cat", "cat", "sat", "on", "mat", "the", "on"})
    counts.add(w);
  auto vocab = vocabulary::build(counts, 1, 0);
  check(vocab ? status{} : status{failure{vocab.error()}});
  const auto vocab_path = (tmp / "vocabulary.txt").string();
  check(vocab->save(vocab_path));
  write("vocabulary", "five-words", read(vocab_path));
  auto one = vocabulary::build(counts, 4, 0);
  check(one->save(vocab_path));
  write("vocabulary", "one-word", read(vocab_path));

  auto crc = file_crc32(vocab_path);
  // Matches the fixed header of fuzz_slice_file (3 words, 4 columns).
  slice_header h{0, 1, 4, 0, 4, 3, *crc};
  std::vector<float> u(12), v(12);
  for (size_t i = 0; i < u.size(); ++i) {
    u[i] = 0.1f * static_cast<float>(i);
    v[i] = -0.05f * static_cast<float>(i);
  }
  const auto slice_path = (tmp / "shard-0.bin").string();
  auto digest = write_slice_file(slice_path, h, u.data(), v.data());
  check(digest ? status{} : status{failure{digest.error()}});
  write("slice_file", "shard-0-of-1", read(slice_path));
  slice_header h2{1, 2, 4, 2, 2, 3, *crc};
  check(write_slice_file(slice_path, h2, u.data(), v.data()) ? status{} : status{failure{"slice"}});
  write("slice_file", "shard-1-of-2", read(slice_path));

  checkpoint_manifest m;
  m.sequence = 7;
  m.options = {"-size", "4", "-window", "3", "-train", "/data/corpus one.txt"};
  m.vocabulary_file = "vocabulary.txt";
  m.vocab_size = 5;
  m.vocab_crc = *crc;
  m.raw_words = 10;
  m.trained_words = 9;
  m.pairs = 40;
  m.training_seconds = 1.5;
  m.alpha = 0.0123f;
  m.parts = {part_cursor{0, "/ck/work/part-0.ids", 6, 1, 20, 10}, part_cursor{1, "/ck/work/part 1.ids", 4, 0, 8, 0}};
  m.ranges = {byte_range{0, 30}, byte_range{30, 52}};
  m.shards = {shard_file{0, "ckpt-000007/shard-0.bin", *digest}};
  m.loss_history = {{100, 4.1}, {200, 3.25}};
  const auto manifest_path = (tmp / "MANIFEST").string();
  check(write_manifest(manifest_path, m));
  std::string text = read(manifest_path);
  write("manifest", "real", text);
  // The same with the checksum left for fuzz_manifest to fill in.
  text.resize(text.rfind("\nend ") + 1);
  write("manifest", "wildcard-crc", text + "end *\n");
}

// A message as a remote peer's CAF sends it (no forwarding stages).
std::string serialized(caf::actor_system& sys, const std::string& name, const caf::message& msg) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  std::vector<caf::strong_actor_ptr> stages;
  if (auto err = sink(stages, msg)) {
    std::cerr << "cannot serialize " << name << ": " << sys.render(err) << "\n";
    std::exit(1);
  }
  return std::string(buf.begin(), buf.end());
}

void caf_seeds() {
  caf::actor_system_config cfg;
  register_message_types(cfg);
  cfg.set("scheduler.max-threads", size_t{1});
  caf::actor_system sys{cfg};
  auto put = [&](const std::string& name, const caf::message& msg) {
    const std::string bytes = serialized(sys, name, msg);
    write("caf_message", name, bytes);
    caf_payloads.push_back(bytes);
  };
  minibatch mb = skipgram();
  put("dotprod", caf::make_message(dotprod_atom::value, encode_dotprod_request(mb)));
  put("step", caf::make_message(step_atom::value, std::vector<wire_bytes>{encode_adjust_reply(0, 1)},
                                std::vector<wire_bytes>{encode_dotprod_request(cbow())}));
  learner_progress p;
  p.trained_words = 100;
  p.loss_sum = 3.5;
  p.alpha = 0.02f;
  p.cursors = {part_cursor{0, "/w/part-0.ids", 6, 1, 20, 10}};
  put("progress", caf::make_message(progress_atom::value, uint32_t{2}, p));
  train_options o;
  o.train = "corpus.txt";
  o.output = "vectors.txt";
  put("start", caf::make_message(start_atom::value, o));
  shard_spec spec{1, 2, 100, "/ck/vocabulary.txt", 1, 2, "/ck/ckpt-000001/shard-1.bin", 0x1234};
  put("newshard", caf::make_message(new_shard_atom::value, spec));
  count_table t;
  t.add("the", 3, 0);
  t.add("cat", 2, 1);
  t.total = 5;
  put("merge", caf::make_message(merge_atom::value, t));
  put("assign", caf::make_message(assign_atom::value, p.cursors));
  learner_config lc;
  put("newlearner", caf::make_message(new_learner_atom::value, lc, std::string{"/ck/vocabulary.txt"},
                                      std::vector<shard_actor>{}, coordinator_actor{}));
  put("link", caf::make_message(link_atom::value, std::vector<std::string>{"10.0.0.2"}, std::vector<uint16_t>{7701}));
  job_status js;
  js.phase = "training";
  put("job-status", caf::make_message(js));
  put("nodes", caf::make_message(std::vector<node_status>{node_status{"coord", "127.0.0.1:7700", "coordinator"}}));
  put("error", caf::make_message(make_job_error("word id 99 is outside the vocabulary")));
  put("empty", caf::message{});
}

// One message for each of a node's internal actors (fuzz_node_request):
// what a coordinator sends them, with the paths a peer might try.
void node_request_seeds() {
  caf::actor_system_config cfg;
  register_message_types(cfg);
  cfg.set("scheduler.max-threads", size_t{1});
  caf::actor_system sys{cfg};
  auto put = [&](const std::string& name, const caf::message& msg) {
    write("node_request", name, serialized(sys, name, msg));
  };
  shard_spec spec{0, 1, 100, "vocabulary.txt", 1, 2, "", 0};
  put("newshard", caf::make_message(new_shard_atom::value, spec));
  spec.dim = 2000000000;
  put("newshard-huge", caf::make_message(new_shard_atom::value, spec));
  spec.dim = 8;
  spec.checkpoint = "../../etc/passwd";
  put("newshard-checkpoint", caf::make_message(new_shard_atom::value, spec));
  learner_config lc;
  put("newlearner", caf::make_message(new_learner_atom::value, lc, std::string{"vocabulary.txt"},
                                      std::vector<shard_actor>{}, coordinator_actor{}));
  shard_info si;
  si.width = 8;
  put("newexport", caf::make_message(new_export_atom::value, std::string{"vocabulary.txt"}, std::vector<shard_info>{si},
                                     uint32_t{8}));
  put("newcounter", caf::make_message(new_counter_atom::value));
  put("newvocab", caf::make_message(new_vocab_atom::value));
  put("status", caf::make_message(status_atom::value));
  put("link", caf::make_message(link_atom::value, std::vector<std::string>{"127.0.0.1"}, std::vector<uint16_t>{22}));
  put("echo", caf::make_message(echo_atom::value, wire_bytes(64, 'e')));
  put("controller", caf::make_message(controller_atom::value));
  put("tables", caf::make_message(tables_atom::value));
  put("lbfgs", caf::make_message(lbfgs_atom::value));
  put("lbfgs-load", caf::make_message(load_atom::value, uint64_t{1}, uint32_t{0}, std::string{"/etc/passwd"},
                                      uint32_t{16}, uint64_t{0}, uint64_t{4}));
  put("lbfgs-pass",
      caf::make_message(lbfgs_atom::value, uint64_t{2}, uint8_t{0}, uint32_t{0}, std::vector<double>{1.0, 0.5}));
  put("count", caf::make_message(count_atom::value, std::string{"/etc/passwd"}, uint64_t{0}, uint64_t{1} << 20,
                                 uint8_t{0}, std::vector<vocabulary_partition_actor>{}));
  count_table t;
  t.add("the", 3, 0);
  t.add("cat", 2, 1);
  t.total = 5;
  put("merge", caf::make_message(merge_atom::value, t));
  put("collect", caf::make_message(collect_atom::value, uint64_t{1}));
  put("earlier", caf::make_message(earlier_atom::value, uint64_t{3}, uint64_t{1}));
  put("assignids", caf::make_message(assign_ids_atom::value, std::vector<uint64_t>{1, 2, 5, 1, 3, 0, 0, 1, 2, 2, 0, 1},
                                     uint32_t{0}));
  put("page", caf::make_message(page_atom::value, uint64_t{100}, count_table{}));
  put("counter-load",
      caf::make_message(load_atom::value, std::string{"w2v-vocab.txt"}, std::vector<vocabulary_partition_actor>{}));
  put("save", caf::make_message(save_atom::value, std::string{"shard-0.bin"}, uint64_t{0}));
  put("load", caf::make_message(load_atom::value, std::string{"shard-0.bin"}, uint64_t{0}));
  put("rows", caf::make_message(rows_atom::value, uint32_t{0}, uint32_t{4}));
  put("rows-output", caf::make_message(rows_atom::value, uint32_t{0}, uint32_t{0xFFFFFFFF}, true));
  put("norms", caf::make_message(norms_atom::value, std::vector<uint32_t>{0, 1, 2}));
  put("similar", caf::make_message(similar_atom::value, std::vector<uint32_t>{0, 1}, wire_bytes(8, '\0')));
  put("reset", caf::make_message(reset_atom::value));
  put("stats", caf::make_message(stats_atom::value));
  put("sync", caf::make_message(sync_atom::value));
  put("preprocess", caf::make_message(preprocess_atom::value, std::string{"corpus.txt"}, uint64_t{0}, uint64_t{18},
                                      std::string{"part-0.ids"}, std::vector<vocabulary_partition_actor>{}));
  put("lookup", caf::make_message(lookup_atom::value, std::string{"thecat"}, std::vector<uint32_t>{3, 3}));
  put("lookup-lengths",
      caf::make_message(lookup_atom::value, std::string{"the"}, std::vector<uint32_t>{0xFFFFFFFF, 4}));
  put("assign",
      caf::make_message(assign_atom::value, std::vector<part_cursor>{part_cursor{0, "part-0.ids", 0, 0, 0, 0}}));
  put("pause", caf::make_message(pause_atom::value));
  put("export", caf::make_message(export_atom::value, std::string{"vectors.txt"}, false, uint32_t{0}));
  put("exportpart",
      caf::make_message(export_part_atom::value, std::string{"vectors-parts"}, uint32_t{0}, uint32_t{2}, false));
  put("savemodel",
      caf::make_message(save_model_atom::value, std::string{"model"}, uint64_t{0}, std::vector<std::string>{}));
}

// A BASP header (src/net/frame_guard.hpp): operation, padding, flags,
// big-endian payload length, operation data, source and destination actor.
std::string basp_header(uint8_t operation, uint32_t payload, uint64_t dest) {
  std::string h(32, '\0');
  h[0] = static_cast<char>(operation);
  for (int i = 0; i < 4; ++i)
    h[4 + i] = static_cast<char>(payload >> (8 * (3 - i)));
  for (int i = 0; i < 8; ++i)
    h[24 + i] = static_cast<char>(dest >> (8 * (7 - i)));
  return h;
}

void net_seeds() {
  net::cluster_keys keys;
  keys.node = net::secret_bytes{};
  net::auth_handshake connector(net::auth_handshake::role::connector, keys, net::peer_kind::node, "127.0.0.1:40000",
                                "127.0.0.1:7700");
  const auto& hello = connector.hello();
  const std::string hello_bytes(hello.begin(), hello.end());
  write("auth_handshake", "hello", hello_bytes);
  write("auth_handshake", "hello-proof", hello_bytes + std::string(32, '\x5a'));
  write("auth_handshake", "hello-proof-then-basp", hello_bytes + std::string(32, '\x5a') + basp_header(0, 0, 0));
  write("auth_handshake", "basp-without-handshake", basp_header(0, 17, 0));
  // Frames as CAF sends them: a server handshake, messages, a heartbeat.
  std::string stream = basp_header(0, 8, 0) + std::string(8, '\1');
  for (size_t i = 0; i < caf_payloads.size() && i < 3; ++i)
    stream += basp_header(2, static_cast<uint32_t>(caf_payloads[i].size()), 5 + i) + caf_payloads[i];
  stream += basp_header(6, 0, 0);
  write("frame_guard", "messages", stream);
  write("frame_guard", "over-limit", basp_header(2, 0xFFFFFFF0u, 5));
  write("frame_guard", "partial-header", basp_header(2, 4, 5).substr(0, 20));
}

void config_seeds(const fs::path& source) {
  for (const auto& entry : fs::directory_iterator(source / "examples"))
    if (entry.path().extension() == ".conf")
      write("cluster_config", entry.path().filename().string(), read(entry.path()));
  write("cluster_config", "standby-crlf.conf",
        "[cluster]\r\nheartbeat-ms = 500\r\ninsecure = true\r\n[node c]\r\nhost = ::1\r\nport = 1\r\n"
        "roles = coordinator vocabulary exporter learner\r\nlearners = 1\r\nthreads = 3\r\n"
        "[node s]\r\nhost = h\r\nport = 65535\r\nroles = shard\r\nshards = 2\r\n"
        "[node spare]\r\nhost = h\r\nport = 2\r\nroles = shard\r\nshards = 1\r\nstandby = true # spare\r\n");
  write("cluster_config", "tls-bounds.conf",
        "[cluster]\nsecret = k.key\ntls-certificate = n.pem\ntls-key = n.key\ntls-ca = ca.pem\n"
        "allow-read = /data/a, /data/b\nallow-write = /out\nmax-message-mb = 128\nmax-connections = 10\n"
        "max-connections-per-address = 2\n[node a]\nhost = 10.0.0.1\nport = 7700\n"
        "roles = coordinator, vocabulary, exporter, shard, learner\nshards = 1\nlearners = 1\n");
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gridvec_fuzz_seeds OUT_DIR SOURCE_DIR\n";
    return 2;
  }
  out_dir = argv[1];
  const fs::path tmp = fs::temp_directory_path() / ("gridvec-fuzz-seeds-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  wire_seeds();
  table_seeds();
  checkpoint_seeds(tmp);
  caf_seeds();
  node_request_seeds();
  net_seeds();
  config_seeds(argv[2]);
  fs::remove_all(tmp);
  return 0;
}
