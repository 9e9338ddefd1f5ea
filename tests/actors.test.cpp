// Actor-protocol tests: real actors in a real actor system, talking with
// real Cap'n Proto bytes; and the whole train job end to end in-process.
#include <catch2/catch.hpp>

#include <caf/all.hpp>
#include <caf/io/abstract_broker.hpp>
#include <caf/io/middleman.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gridvec/roles/shard.hpp>
#include <gridvec/local.hpp>
#include "src/formats/vectors_file.hpp"
#include "src/formats/split_wire.hpp"
#include "src/formats/wire.hpp"
#include "src/model/shard_store.hpp"
#include "src/replicated/row_block.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::temp_dir;
using gridvec::test::write_topic_corpus;
namespace fs = std::filesystem;

namespace {

vocabulary small_vocab(uint32_t n) {
  word_counts c;
  for (uint32_t w = 0; w < n; ++w)
    for (uint32_t k = 0; k <= n - w; ++k)
      c.add("w" + std::to_string(w));
  return *vocabulary::build(c, 1, 0);
}

minibatch sample_batch() {
  minibatch mb;
  mb.seed = 42;
  mb.negatives = 3;
  mb.inputs = {1, 2};
  mb.outputs = {3, 4, 5, 0};
  mb.output_counts = {3, 1};
  return mb;
}

/// A step's two parts: the adjust of `mb` (weights 0.05, 0.10, ...) and the
/// dotprod of `next`, another minibatch.
struct sample_step {
  minibatch mb, next;
  wire_bytes adjust, dotprod;
};

sample_step make_sample_step() {
  sample_step s;
  s.mb = sample_batch();
  s.next = sample_batch();
  s.next.seed = 43;
  s.next.inputs = {3, 0};
  std::vector<float> weights(s.mb.dot_count());
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = 0.05f * static_cast<float>(i + 1);
  s.adjust = encode_adjust_request(s.mb, weights.data(), weights.size());
  s.dotprod = encode_dotprod_request(s.next);
  return s;
}

shard_info make_shard(caf::actor_system& sys, uint32_t index, uint32_t count, uint32_t dim, const vocabulary& vocab,
                      uint64_t seed, std::shared_ptr<const noise_sampler> noise, uint32_t lanes,
                      lane_thread where = lane_thread::workers, shard_layout layout = shard_layout::columns) {
  shard_spec spec;
  spec.layout = layout;
  spec.index = index;
  spec.count = count;
  spec.dim = dim;
  spec.seed = seed;
  spec.lanes = lanes;
  auto info = spawn_shard(sys, spec, std::make_shared<const vocabulary>(vocab), std::move(noise), where);
  REQUIRE(info);
  return *info;
}

/// A small job on the corpus.txt of `dir`: two threads, every word kept,
/// no progress lines.
train_options small_job(const temp_dir& dir, const std::string& output, uint32_t size, uint32_t iter) {
  train_options o;
  o.train = dir.file("corpus.txt");
  o.output = dir.file(output);
  o.size = size;
  o.iter = iter;
  o.threads = 2;
  o.min_count = 1;
  o.log_every = 1000;
  return o;
}

template <class T>
T request_value(caf::scoped_actor& self, const shard_actor& a, T /*tag*/, caf::message msg,
                std::string* error = nullptr) {
  T out{};
  self->request(caf::actor_cast<caf::actor>(a), std::chrono::seconds(10), std::move(msg))
    .receive([&](T& x) { out = std::move(x); },
             [&](caf::error& e) {
               if (error)
                 *error = error_text(e);
             });
  return out;
}

} // namespace

TEST_CASE("shard lanes answer dotprod with the store's partial dot products", "[actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto vocab = small_vocab(8);
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(vocab.counts()));
  auto handle = make_shard(sys, 0, 2, 10, vocab, 5, noise, 2);
  REQUIRE(handle.lanes.size() == 2);
  REQUIRE(handle.width == 5);

  shard_store reference(0, 2, 10, vocab.size(), 5, noise);
  auto mb = sample_batch();
  std::vector<float> expected(mb.dot_count()), hidden;
  reference.dotprod(mb, expected.data(), hidden);

  auto reply = request_value(self, handle.lanes[1], wire_bytes{},
                             caf::make_message(dotprod_atom::value, encode_dotprod_request(mb)));
  uint32_t shard = 99;
  std::vector<float> dots;
  REQUIRE(decode_dotprod_reply(reply, shard, dots));
  CHECK(shard == 0);
  REQUIRE(dots.size() == expected.size());
  for (size_t i = 0; i < dots.size(); ++i)
    CHECK(dots[i] == Approx(expected[i]));
  for (auto& lane : handle.lanes)
    self->send_exit(lane, caf::exit_reason::user_shutdown);
}

TEST_CASE("a step applies its adjusts in order, then answers its dotprods; a bad step changes nothing", "[actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto vocab = small_vocab(8);
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(vocab.counts()));
  auto stepped = make_shard(sys, 0, 1, 6, vocab, 5, noise, 1);
  auto separate = make_shard(sys, 0, 1, 6, vocab, 5, noise, 1);
  const auto [mb, next, adjust, dotprod] = make_sample_step();
  // A second adjust, of `next` with other weights, and a third dotprod: a
  // group of two finished minibatches and two new ones.
  std::vector<float> weights(next.dot_count());
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = -0.03f * static_cast<float>(i + 1);
  const wire_bytes adjust_next = encode_adjust_request(next, weights.data(), weights.size());
  const wire_bytes dotprod_mb = encode_dotprod_request(mb);
  using parts = std::vector<wire_bytes>;
  // A nonzero output side first, so that the adjusts show in the dot products.
  for (auto* lane : {&stepped.lanes[0], &separate.lanes[0]})
    request_value(self, *lane, wire_bytes{}, caf::make_message(adjust_atom::value, adjust));

  auto step_replies =
    request_value(self, stepped.lanes[0], parts{},
                  caf::make_message(step_atom::value, parts{adjust, adjust_next}, parts{dotprod, dotprod_mb}));
  parts separate_replies;
  request_value(self, separate.lanes[0], wire_bytes{}, caf::make_message(adjust_atom::value, adjust));
  request_value(self, separate.lanes[0], wire_bytes{}, caf::make_message(adjust_atom::value, adjust_next));
  for (const auto& d : {dotprod, dotprod_mb})
    separate_replies.push_back(
      request_value(self, separate.lanes[0], wire_bytes{}, caf::make_message(dotprod_atom::value, d)));
  REQUIRE(step_replies.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    uint32_t shard = 0;
    std::vector<float> from_step, from_separate;
    REQUIRE(decode_dotprod_reply(step_replies[i], shard, from_step));
    REQUIRE(decode_dotprod_reply(separate_replies[i], shard, from_separate));
    REQUIRE(from_step.size() == (i == 0 ? next : mb).dot_count());
    CHECK(from_step == from_separate);
    bool any_nonzero = false;
    for (float x : from_step)
      any_nonzero |= x != 0.0f;
    CHECK(any_nonzero);
  }

  // Only adjusts: applied, and an empty answer.
  std::string only_adjusts_error;
  auto only_adjusts = request_value(self, stepped.lanes[0], parts{},
                                    caf::make_message(step_atom::value, parts{adjust}, parts{}), &only_adjusts_error);
  request_value(self, separate.lanes[0], wire_bytes{}, caf::make_message(adjust_atom::value, adjust));
  CHECK(only_adjusts_error.empty());
  CHECK(only_adjusts.empty());
  auto rows_of = [&](const shard_info& h) {
    return request_value(self, h.lanes[0], wire_bytes{}, caf::make_message(rows_atom::value, uint32_t{0}, uint32_t{8}));
  };
  CHECK(rows_of(stepped) == rows_of(separate));

  // A bad last part: an error, and none of the parts before it is applied.
  auto before = rows_of(stepped);
  auto bad = next;
  bad.inputs[0] = 999;
  std::string error;
  request_value(
    self, stepped.lanes[0], parts{},
    caf::make_message(step_atom::value, parts{adjust, adjust_next}, parts{dotprod, encode_dotprod_request(bad)}),
    &error);
  CHECK(error.find("out of range") != std::string::npos);
  CHECK(rows_of(stepped) == before);
  for (auto* h : {&stepped, &separate})
    self->send_exit(h->lanes[0], caf::exit_reason::user_shutdown);
}

TEST_CASE("shard lanes on the network thread train as lanes on the workers and pass slow requests on", "[actors]") {
  temp_dir dir;
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  caf::actor_system sys{cfg};
  const size_t before = sys.registry().running();
  {
    caf::scoped_actor self{sys};
    auto vocab = small_vocab(8);
    auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(vocab.counts()));
    auto network = make_shard(sys, 0, 2, 8, vocab, 5, noise, 2, lane_thread::network);
    auto workers = make_shard(sys, 0, 2, 8, vocab, 5, noise, 2, lane_thread::workers);
    // They are brokers: the network thread runs them.
    for (const auto& lane : network.lanes)
      CHECK(dynamic_cast<caf::io::abstract_broker*>(caf::actor_cast<caf::abstract_actor*>(lane)) != nullptr);
    CHECK(dynamic_cast<caf::io::abstract_broker*>(caf::actor_cast<caf::abstract_actor*>(workers.lanes[0])) == nullptr);

    // The same dotprod, adjust and step messages give the same bytes back.
    const auto [mb, next, adjust, dotprod] = make_sample_step();
    std::vector<std::vector<wire_bytes>> replies(2);
    for (int which = 0; which < 2; ++which) {
      const auto& lanes = which == 0 ? network.lanes : workers.lanes;
      auto& out = replies[which];
      out.push_back(request_value(self, lanes[1], wire_bytes{},
                                  caf::make_message(dotprod_atom::value, encode_dotprod_request(mb))));
      out.push_back(request_value(self, lanes[1], wire_bytes{}, caf::make_message(adjust_atom::value, adjust)));
      auto step = request_value(
        self, lanes[0], std::vector<wire_bytes>{},
        caf::make_message(step_atom::value, std::vector<wire_bytes>{adjust}, std::vector<wire_bytes>{dotprod}));
      REQUIRE(step.size() == 1);
      out.push_back(step[0]);
      out.push_back(
        request_value(self, lanes[0], wire_bytes{}, caf::make_message(rows_atom::value, uint32_t{0}, uint32_t{8})));
    }
    for (const auto& r : replies[0])
      CHECK(!r.empty());
    CHECK(replies[0] == replies[1]);

    // Slow requests go on to a worker lane and their answers come back.
    const auto file = dir.file("slice.bin");
    std::string error;
    auto digest = request_value(self, network.lanes[1], file_digest{},
                                caf::make_message(save_atom::value, file, uint64_t{0}), &error);
    CHECK(error.empty());
    CHECK(fs::file_size(file) == digest.bytes);
    CHECK(request_value(self, network.lanes[0], true, caf::make_message(reset_atom::value)));
    CHECK(request_value(self, network.lanes[0], true, caf::make_message(load_atom::value, file, uint64_t{0})));
    CHECK(request_value(self, network.lanes[1], wire_bytes{},
                        caf::make_message(rows_atom::value, uint32_t{0}, uint32_t{8})) == replies[0][3]);
    request_value(self, network.lanes[0], wire_bytes{}, caf::make_message(rows_atom::value, uint32_t{3}, uint32_t{100}),
                  &error);
    CHECK(error.find("outside") != std::string::npos);

    // Stopping one lane stops the shard: its other lanes and the worker lane.
    self->send_exit(network.lanes[0], caf::exit_reason::user_shutdown);
    for (const auto& lane : workers.lanes)
      self->send_exit(lane, caf::exit_reason::user_shutdown);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (sys.registry().running() > before && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(sys.registry().running() == before);
}

TEST_CASE("shard lanes turn bad messages into error replies", "[actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto vocab = small_vocab(8);
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(vocab.counts()));
  auto handle = make_shard(sys, 0, 1, 4, vocab, 5, noise, 1);
  auto lane = handle.lanes[0];

  std::string error;
  wire_bytes garbage(64, '\x7f');
  request_value(self, lane, wire_bytes{}, caf::make_message(dotprod_atom::value, garbage), &error);
  CHECK(error.find("malformed") != std::string::npos);

  auto mb = sample_batch();
  mb.outputs[0] = 1000; // beyond the vocabulary
  error.clear();
  request_value(self, lane, wire_bytes{}, caf::make_message(dotprod_atom::value, encode_dotprod_request(mb)), &error);
  CHECK(error.find("out of range") != std::string::npos);

  mb = sample_batch();
  std::vector<float> too_few(3, 0.1f);
  error.clear();
  request_value(self, lane, wire_bytes{},
                caf::make_message(adjust_atom::value, encode_adjust_request(mb, too_few.data(), too_few.size())),
                &error);
  CHECK(error.find("weights") != std::string::npos);

  error.clear();
  request_value(self, lane, wire_bytes{}, caf::make_message(rows_atom::value, uint32_t{3}, uint32_t{100}), &error);
  CHECK(error.find("outside") != std::string::npos);

  // The lane survived all of it.
  auto rows = request_value(self, lane, wire_bytes{}, caf::make_message(rows_atom::value, uint32_t{0}, uint32_t{2}));
  CHECK(rows.size() == 2 * 4 * sizeof(float));
  self->send_exit(lane, caf::exit_reason::user_shutdown);
}

TEST_CASE("a whole training job runs in one process and exports every word", "[actors][e2e]") {
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 3000, 7);
  for (uint32_t shards : {1u, 3u}) {
    for (bool cbow : {false, true}) {
      CAPTURE(shards, cbow);
      train_options o = small_job(dir, "vectors.bin", 12, 2);
      o.report = dir.file("report.json");
      o.shards = shards;
      o.cbow = cbow;
      o.binary = true;
      caf::actor_system_config cfg;
      cfg.set("scheduler.max-threads", size_t{2});
      caf::actor_system sys{cfg};
      auto summary = run_train_job(sys, o);
      REQUIRE(summary);
      CHECK(summary->vocab_size == 40);
      CHECK(summary->raw_words == 3000 * 12);
      CHECK(summary->processed_words == 2 * 3000 * 12);
      CHECK(summary->trained_words > 0);
      CHECK(summary->wire.messages[0] == summary->wire.messages[1]);
      CHECK(summary->wire.messages[0] % shards == 0);
      auto table = read_vectors(o.output);
      REQUIRE(table);
      CHECK(table->words.size() == 40);
      CHECK(table->dim == 12);
      CHECK(fs::exists(o.report));
      // Words of one topic end up closer to each other than to the other's.
      CHECK(test::topic_separation(*table) > 1.0);
    }
  }
}

TEST_CASE("a failing job leaves an existing output file untouched", "[actors][e2e]") {
  temp_dir dir;
  {
    std::ofstream(dir.file("corpus.txt")) << "a b c\nnot\x01\xff utf8\n";
    std::ofstream(dir.file("vectors.txt")) << "precious\n";
  }
  train_options o;
  o.train = dir.file("corpus.txt");
  o.output = dir.file("vectors.txt");
  o.threads = 2;
  o.min_count = 1;
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto summary = run_train_job(sys, o);
  REQUIRE_FALSE(summary);
  CHECK(summary.error().find("UTF-8") != std::string::npos);
  std::ifstream in(dir.file("vectors.txt"));
  std::string content;
  std::getline(in, content);
  CHECK(content == "precious");
  size_t files = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(dir.path()))
    ++files;
  CHECK(files == 2); // no temporary left behind
}

TEST_CASE("minibatches in groups train the same words in a quarter of the messages", "[actors][e2e]") {
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 3000, 5);
  std::vector<job_summary> runs;
  for (uint32_t coalesce : {1u, 4u}) {
    CAPTURE(coalesce);
    train_options o = small_job(dir, "vectors.txt", 12, 2);
    o.shards = 2;
    o.fused = false; // the message protocol, through mailboxes
    // 40 words: few small minibatches in flight, in corpus order, as the
    // tests of tiny vocabularies train the protocol path
    o.in_flight = 4;
    o.minibatch = 16;
    o.interleave = 1;
    o.coalesce = coalesce;
    // One part per learner: each keeps its own, so the same minibatches
    // whatever the timing (the work queue hands parts to whoever is free).
    o.parts_per_learner = 1;
    caf::actor_system_config cfg;
    caf::actor_system sys{cfg};
    auto summary = run_train_job(sys, o);
    REQUIRE(summary);
    runs.push_back(*summary);
  }
  const auto& one = runs[0].wire;
  const auto& grouped = runs[1].wire;
  // The same minibatches (learner seeds fix them), so the same words,
  // pairs and Cap'n Proto bytes...
  CHECK(runs[0].trained_words == runs[1].trained_words);
  CHECK(runs[0].pairs == runs[1].pairs);
  for (size_t k = 0; k < one.bytes.size(); ++k)
    if (k != static_cast<size_t>(message_kind::adjust_reply)) // only the tail's adjusts get replies of their own
      CHECK(one.bytes[k] == grouped.bytes[k]);
  // ...in a quarter of the dotprod messages (each learner's last group may
  // be smaller), and every message answered.
  const uint64_t minibatch_messages = one.messages[static_cast<size_t>(message_kind::dotprod_request)];
  const uint64_t group_messages = grouped.messages[static_cast<size_t>(message_kind::dotprod_request)];
  CHECK(minibatch_messages > 100);
  CHECK(group_messages * 4 >= minibatch_messages);
  CHECK(group_messages * 4 <= minibatch_messages + 4 * 2 * 2 * 2); // a short group per learner, part and shard
  CHECK(grouped.messages[static_cast<size_t>(message_kind::dotprod_reply)] == group_messages);
  CHECK(runs[1].final_loss > 0);
  CHECK(runs[1].final_loss < runs[0].final_loss + 0.5);
}

// The job below blows up within its first epoch without the shards' refresh
// of stale weights; with it, it trains all of them (the test after).
constexpr uint32_t stale_weights_epochs = 10;

TEST_CASE("a job whose vectors blow up fails with one line and writes nothing", "[actors][e2e]") {
  // 40 words, 20 minibatches in flight (2 learners x 10) over the protocol
  // without its refresh of stale weights: every minibatch updates every row
  // many times from stale values, and the vectors grow until the dot
  // products pass any sane size (the fused path, which updates in place,
  // trains the same corpus to finite vectors).
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 2000, 11);
  std::ofstream(dir.file("vectors.txt")) << "precious\n";
  train_options o = small_job(dir, "vectors.txt", 16, stale_weights_epochs);
  o.sample = 0;
  o.fused = false;
  o.refresh_weights = false;
  o.interleave = 1;
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto summary = run_train_job(sys, o);
  REQUIRE_FALSE(summary);
  CHECK(summary.error().find("training diverged") != std::string::npos);
  CHECK(summary.error().find('\n') == std::string::npos);
  std::ifstream in(dir.file("vectors.txt"));
  std::string content;
  std::getline(in, content);
  CHECK(content == "precious");
}

TEST_CASE("the protocol path's refresh of stale weights trains what blows up without it", "[actors][e2e]") {
  // The job of the test above, the shards refreshing each weight for the
  // rows as its adjust finds them (src/sgns/weight_refresh.hpp).
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 2000, 11);
  train_options o = small_job(dir, "vectors.txt", 16, stale_weights_epochs);
  o.sample = 0;
  o.fused = false;
  o.interleave = 1;
  o.shards = 2; // each shard estimates the drift from its own columns
  REQUIRE(o.refresh_weights);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto summary = run_train_job(sys, o);
  REQUIRE(summary);
  CHECK(summary->final_loss > 0);
  CHECK(summary->final_loss < 6 * 0.6931); // below the loss of untrained vectors
}

TEST_CASE("the replicated mode trains in one process: one host as the fused path, three hosts together",
          "[actors][e2e][replicated]") {
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 3000, 13);
  auto train = [&](const std::string& output, uint32_t threads, bool replicated, bool average = false,
                   uint32_t shards = 1, uint32_t host_threads = 1, uint32_t parts_per_learner = 1) {
    train_options o = small_job(dir, output, 12, 3);
    o.threads = threads;
    o.host_threads = replicated ? host_threads : 0; // 1: every thread a host of its own
    o.shards = shards;
    o.partition = replicated ? model_partition::replicated : model_partition::columns;
    o.average_combiner = average;
    o.parts_per_learner = parts_per_learner; // 1: one part per learner, in the fused path too
    o.shared_negatives = 0; // the same kernel on both paths (auto picks the window kernel for the fused one only)
    caf::actor_system_config cfg;
    caf::actor_system sys{cfg};
    auto summary = run_train_job(sys, o);
    REQUIRE(summary);
    return *summary;
  };
  auto file_text = [&](const std::string& name) {
    std::ifstream in(dir.file(name));
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  // One host synchronises with no one: the same updates in the same order
  // as the fused path of one learner, so the same vectors, bit for bit.
  auto fused = train("fused.txt", 1, false);
  auto alone = train("alone.txt", 1, true);
  CHECK(file_text("fused.txt") == file_text("alone.txt"));
  CHECK(alone.replicated);
  // About 8 rounds per epoch: a round is a share of the words expected to
  // survive subsampling, and sentences left with one word train none.
  CHECK(alone.sync_rounds >= 8 * 3 * 3 / 4);
  CHECK(alone.sync_rounds <= 8 * 3 + 2);

  // Three hosts: every round's changed rows travel, and the vectors learn
  // the two topics.
  for (bool average : {false, true}) {
    CAPTURE(average);
    auto three = train("three.txt", 3, true, average);
    CHECK(three.learners == 3);
    CHECK(three.sync_rounds >= 24 * 3 * 3 / 4);
    for (auto k : {message_kind::round_changes, message_kind::round_values, message_kind::round_store})
      CHECK(three.wire.bytes[static_cast<size_t>(k)] > 0);
    CHECK(three.wire.messages[static_cast<size_t>(message_kind::dotprod_request)] == 0);
    CHECK(three.trained_words > 0);
    auto table = read_vectors(dir.file("three.txt"));
    REQUIRE(table);
    CHECK(table->words.size() == 40);
  }
  CHECK(fused.trained_words == alone.trained_words);

  // One host of three threads (the default, --host-threads auto): one copy
  // trained by all three, nothing between hosts, every word trained once.
  auto together = train("together.txt", 3, true, false, 1, 0);
  CHECK(together.learners == 1);
  CHECK(together.sync_rounds >= 24 * 3 * 3 / 4); // auto: 8 per thread
  for (auto k : {message_kind::round_changes, message_kind::round_values})
    CHECK(together.wire.messages[static_cast<size_t>(k)] == 0);
  CHECK(together.wire.messages[static_cast<size_t>(message_kind::round_store)] > 0);
  CHECK(together.trained_words == alone.trained_words);
  auto table = read_vectors(dir.file("together.txt"));
  REQUIRE(table);
  CHECK(table->words.size() == 40);
  // It learns the topics: a word of one is closer to its own than to the other's.
  CHECK(test::topic_separation(*table) > 1.0);
  CHECK(together.parts == 1);
  // By default the host keeps 8 parts a thread and trains an epoch of each
  // in turn: every word of every epoch still trained once.
  auto parted = train("parted.txt", 3, true, false, 1, 0, 0);
  CHECK(parted.learners == 1);
  CHECK(parted.parts == 24);
  CHECK(parted.trained_words > alone.trained_words * 9 / 10);
  CHECK(parted.trained_words < alone.trained_words * 11 / 10);
  auto parted_table = read_vectors(dir.file("parted.txt"));
  REQUIRE(parted_table);
  CHECK(test::topic_separation(*parted_table) > 1.0);
  // The shards only keep what the hosts agreed on: any number of them
  // holds the same model, so the same vectors come out.
  train("three.txt", 3, true);
  train("three-sliced.txt", 3, true, false, 3);
  CHECK(file_text("three.txt") == file_text("three-sliced.txt"));
}

TEST_CASE("replica shard lanes take a round's rows of their columns and refuse others", "[actors][replicated]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto vocab = small_vocab(8);
  auto noise = std::make_shared<const noise_sampler>(alias_sampler::from_counts(vocab.counts()));
  auto handle =
    make_shard(sys, 1, 2, 4, vocab, 5, noise, 1, lane_thread::workers, shard_layout::replica); // columns [2, 4)
  auto lane = handle.lanes[0];
  row_block b;
  b.width = 2;
  b.first_column = 2;
  b.inputs = {3};
  b.outputs = {6};
  b.values = {1.5f, -2.0f, 0.25f, 0.5f};
  CHECK(request_value(self, lane, bool{}, caf::make_message(store_rows_atom::value, encode_row_block(b))));
  auto u = request_value(self, lane, wire_bytes{}, caf::make_message(rows_atom::value, uint32_t{3}, uint32_t{4}));
  auto v = request_value(self, lane, wire_bytes{}, caf::make_message(rows_atom::value, uint32_t{6}, uint32_t{7}, true));
  REQUIRE(u.size() == 2 * sizeof(float));
  REQUIRE(v.size() == 2 * sizeof(float));
  CHECK(reinterpret_cast<const float*>(u.data())[1] == -2.0f);
  CHECK(reinterpret_cast<const float*>(v.data())[0] == 0.25f);

  std::string error;
  b.first_column = 0; // another shard's columns
  request_value(self, lane, bool{}, caf::make_message(store_rows_atom::value, encode_row_block(b)), &error);
  CHECK(error.find("columns [0, 2)") != std::string::npos);
  b.first_column = 2;
  b.inputs = {100};
  error.clear();
  request_value(self, lane, bool{}, caf::make_message(store_rows_atom::value, encode_row_block(b)), &error);
  CHECK(error.find("outside the vocabulary") != std::string::npos);
  error.clear();
  request_value(self, lane, bool{}, caf::make_message(store_rows_atom::value, wire_bytes(24, '\x01')), &error);
  CHECK(error.find("malformed") != std::string::npos);
  // Nothing of the refused blocks was written.
  u = request_value(self, lane, wire_bytes{}, caf::make_message(rows_atom::value, uint32_t{3}, uint32_t{4}));
  CHECK(reinterpret_cast<const float*>(u.data())[1] == -2.0f);
  self->send_exit(lane, caf::exit_reason::user_shutdown);
}

namespace {

shard_info make_row_shard(caf::actor_system& sys, uint32_t index, uint32_t count, uint32_t dim, const vocabulary& vocab,
                          uint8_t negatives_mode) {
  shard_spec spec;
  spec.index = index;
  spec.count = count;
  spec.dim = dim;
  spec.seed = 7;
  spec.lanes = 2;
  spec.layout = shard_layout::rows;
  spec.word_partitions = count;
  spec.negatives_mode = negatives_mode;
  auto info = spawn_shard(sys, spec, std::make_shared<const vocabulary>(vocab));
  REQUIRE(info);
  return *info;
}

std::vector<float> all_rows(caf::scoped_actor& self, const std::vector<shard_info>& shards, uint32_t vocab,
                            uint32_t dim, bool output) {
  const auto s = static_cast<uint32_t>(shards.size());
  std::vector<float> out(size_t{vocab} * dim);
  for (const auto& shard : shards) {
    auto bytes = request_value(self, shard.lanes.front(), wire_bytes{},
                               caf::make_message(rows_atom::value, uint32_t{0}, vocab, output));
    const word_rows rows{shard.index, s};
    REQUIRE(bytes.size() == size_t{rows.rows_below(vocab)} * dim * sizeof(float));
    const auto* f = reinterpret_cast<const float*>(bytes.data());
    for (uint32_t r = 0; r < rows.rows_below(vocab); ++r)
      std::copy_n(f + size_t{r} * dim, dim, out.data() + size_t{r * s + shard.index} * dim);
  }
  return out;
}

} // namespace

TEST_CASE("shards of whole rows train a minibatch as the word split in one process does", "[actors][words]") {
  const uint32_t n = 30, dim = 8, p = 3;
  const auto vocab = small_vocab(n);
  for (auto mode : {negatives_mode::bns, negatives_mode::sns, negatives_mode::tns}) {
    for (auto grouping : {visit_grouping::example, visit_grouping::skipgram}) {
      CAPTURE(static_cast<int>(mode), static_cast<int>(grouping));
      caf::actor_system_config cfg;
      caf::actor_system sys{cfg};
      caf::scoped_actor self{sys};
      std::vector<shard_info> shards;
      for (uint32_t k = 0; k < p; ++k)
        shards.push_back(make_row_shard(sys, k, p, dim, vocab, static_cast<uint8_t>(mode)));
      std::vector<caf::actor> peers;
      for (const auto& s : shards)
        peers.push_back(caf::actor_cast<caf::actor>(s.lanes.back()));
      for (const auto& s : shards)
        CHECK(request_value(self, s.lanes.front(), bool{}, caf::make_message(peers_atom::value, peers)));

      // The same rows in one process, trained by train_word_split.
      std::vector<float> u(size_t{n} * dim), v(size_t{n} * dim, 0.0f);
      {
        shard_store whole(0, 1, dim, n, 7, nullptr);
        std::copy_n(whole.input_data(), u.size(), u.data());
      }
      CHECK(all_rows(self, shards, n, dim, false) == u); // the same start
      std::vector<partition_rows> parts;
      for (uint32_t k = 0; k < p; ++k)
        parts.emplace_back(k, word_layout{p}, dim, n, u.data(), v.data());
      noise_sampler noise(vocab.counts(), noise_spec{mode, true, p});

      minibatch mb;
      mb.seed = 99;
      mb.negatives = 4;
      mb.inputs = {1, 2, 3, 4, 5, 6};
      mb.outputs = {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 0, 2};
      mb.output_counts = {3, 2, 2, 3, 1, 2};
      const float alpha = 0.05f;
      split_traffic wire;
      auto want = train_word_split(parts, noise, mb, mode, alpha, wire, grouping);
      REQUIRE(want);

      weight_result got;
      uint64_t batches = 0;
      auto shares = split_by_source(mb, word_layout{p});
      for (uint32_t k = 0; k < p; ++k) {
        if (shares[k].inputs.empty())
          continue;
        auto reply = request_value(
          self, shards[k].lanes.front(), wire_bytes{},
          caf::make_message(split_train_atom::value, encode_split_train_request(shares[k], alpha, grouping)));
        split_train_result r;
        REQUIRE(decode_split_train_reply(reply, r));
        CHECK(r.shard == k);
        got.loss += r.weights.loss;
        got.pairs += r.weights.pairs;
        batches += r.batches;
      }
      CHECK(got.pairs == want->pairs);
      CHECK(got.loss == Approx(want->loss).epsilon(1e-5));
      CHECK(batches == wire.batches);
      const auto u_got = all_rows(self, shards, n, dim, false), v_got = all_rows(self, shards, n, dim, true);
      double du = 0, dv = 0, vmax = 0;
      for (size_t i = 0; i < u.size(); ++i) {
        du = std::max(du, static_cast<double>(std::abs(u_got[i] - u[i])));
        dv = std::max(dv, static_cast<double>(std::abs(v_got[i] - v[i])));
        vmax = std::max(vmax, static_cast<double>(std::abs(v[i])));
      }
      CAPTURE(vmax);
      CHECK(du < 1e-6);
      CHECK(dv < 1e-6);
      for (const auto& s : shards)
        for (const auto& lane : s.lanes)
          self->send_exit(lane, caf::exit_reason::user_shutdown);
    }
  }
}

// Each layout's shard has an interface of its own: a message of another
// layout does not compile where a handle of the right type is used, and a
// peer that sends one anyway (an untyped message) gets unexpected_message.
// (CAF accepts a handle as another type only if it answers all that type's
// messages: tl_subset_of is the check behind its converting constructor.)
template <class To, class From>
constexpr bool usable_as = caf::detail::tl_subset_of<typename To::signatures, typename From::signatures>::value;
static_assert(usable_as<shard_actor, column_shard_actor>);
static_assert(usable_as<shard_actor, row_shard_actor>);
static_assert(usable_as<column_slice_actor, replica_shard_actor>);
static_assert(!usable_as<column_shard_actor, row_shard_actor>);
static_assert(!usable_as<row_shard_actor, column_shard_actor>);
static_assert(!usable_as<column_shard_actor, replica_shard_actor>);
static_assert(!usable_as<replica_shard_actor, column_shard_actor>);
static_assert(!usable_as<column_shard_actor, shard_actor>);

TEST_CASE("shards of whole rows refuse the other layouts' messages and bad shares with one line", "[actors][words]") {
  const auto vocab = small_vocab(20);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto rows = make_row_shard(sys, 0, 2, 8, vocab, 0);
  auto columns = make_shard(sys, 0, 2, 8, vocab, 7, nullptr, 1);
  std::string error;
  request_value(self, rows.lanes.front(), wire_bytes{},
                caf::make_message(dotprod_atom::value, encode_dotprod_request(sample_batch())), &error);
  CHECK(error.find("unexpected_message") != std::string::npos);
  error.clear();
  minibatch mb = sample_batch();
  mb.inputs = {2, 4};
  request_value(
    self, columns.lanes.front(), wire_bytes{},
    caf::make_message(split_train_atom::value, encode_split_train_request(mb, 0.025f, visit_grouping::example)),
    &error);
  CHECK(error.find("unexpected_message") != std::string::npos);
  error.clear();
  request_value(self, columns.lanes.front(), bool{}, caf::make_message(store_rows_atom::value, wire_bytes(24, '\x01')),
                &error);
  CHECK(error.find("unexpected_message") != std::string::npos); // a replica's message
  // Before its peers are known; then an input word of the other shard.
  error.clear();
  request_value(
    self, rows.lanes.front(), wire_bytes{},
    caf::make_message(split_train_atom::value, encode_split_train_request(mb, 0.025f, visit_grouping::example)),
    &error);
  CHECK(error.find("has not been told its peers") != std::string::npos);
  auto other = make_row_shard(sys, 1, 2, 8, vocab, 0);
  std::vector<caf::actor> peers{caf::actor_cast<caf::actor>(rows.lanes.front()),
                                caf::actor_cast<caf::actor>(other.lanes.front())};
  CHECK(request_value(self, rows.lanes.front(), bool{}, caf::make_message(peers_atom::value, peers)));
  error.clear();
  request_value(self, rows.lanes.front(), bool{},
                caf::make_message(peers_atom::value, std::vector<caf::actor>{peers.front()}), &error);
  CHECK(error.find("peers: 1 shards for a job of 2") != std::string::npos);
  mb.inputs = {2, 3};
  error.clear();
  request_value(
    self, rows.lanes.front(), wire_bytes{},
    caf::make_message(split_train_atom::value, encode_split_train_request(mb, 0.025f, visit_grouping::example)),
    &error);
  CHECK(error.find("input word 3 is not shard 0's") != std::string::npos);
  // A visit whose vectors do not match the dimension.
  visit_batch b;
  b.peer = 0;
  b.input_words = {1};
  b.visit_input = {0};
  b.visit_positive = {2};
  b.visit_noise = {1};
  std::vector<float> inputs(4, 0.1f);
  error.clear();
  request_value(self, rows.lanes.front(), wire_bytes{},
                caf::make_message(visit_atom::value, encode_visit_batch(b, 1, 0.025f, 1, inputs.data(), 4)), &error);
  CHECK(error.find("bytes of input vectors for 1 words of 8 floats") != std::string::npos);
  // A positive word the shard does not hold.
  b.visit_positive = {3};
  inputs.assign(8, 0.1f);
  error.clear();
  request_value(self, rows.lanes.front(), wire_bytes{},
                caf::make_message(visit_atom::value, encode_visit_batch(b, 1, 0.025f, 1, inputs.data(), 8)), &error);
  CHECK(error.find("word 3 is not partition 0's") != std::string::npos);
  for (const auto* s : {&rows, &columns, &other})
    for (const auto& lane : s->lanes)
      self->send_exit(lane, caf::exit_reason::user_shutdown);
}
