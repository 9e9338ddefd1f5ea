// The control plane in one process: a local gridvec (a node with every
// role and a controller) runs a job that is paused, checkpointed, resumed,
// queried and exported through the controller; a second job resumes from
// the checkpoints of the first.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <filesystem>
#include <fstream>

#include <gridvec/local.hpp>
#include "src/formats/checkpoint.hpp"
#include "src/util/rng.hpp"
#include "src/formats/vectors_file.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;
using gridvec::test::temp_dir;
using gridvec::test::write_topic_corpus;
namespace fs = std::filesystem;

namespace {

struct gridvec_fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  node_actor node;
  controller_actor controller;

  gridvec_fixture() {
    configure_scheduler(cfg, 2); // as gridvec train does, and hosts should
    sys = std::make_unique<caf::actor_system>(cfg);
    node = spawn_local_gridvec(*sys);
    caf::scoped_actor self{*sys};
    self->request(node, std::chrono::seconds(10), controller_atom::value)
      .receive([&](controller_actor c) { controller = c; }, [](caf::error& e) { FAIL(error_text(e)); });
  }
  ~gridvec_fixture() { caf::anon_send(node, stop_atom::value); }

  /// Sends `xs` to the controller and returns the reply or the error line.
  template <class T, class... Ts>
  expected<T> ask(Ts... xs) {
    caf::scoped_actor self{*sys};
    std::optional<expected<T>> out;
    self->request(controller, std::chrono::seconds(120), xs...)
      .receive([&](T& x) { out.emplace(std::move(x)); }, [&](caf::error& e) { out.emplace(failure_of(e)); });
    return std::move(*out);
  }
};

/// Pauses the job as soon as it trains (pause is refused before that).
void pause_once_training(gridvec_fixture& g) {
  for (int i = 0; i < 2000; ++i) {
    auto paused = g.ask<bool>(pause_atom::value);
    if (paused)
      return;
    INFO(paused.error());
    REQUIRE(contains(paused.error(), "not training (it is"));
    REQUIRE_FALSE(contains(paused.error(), "done"));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  FAIL("the job never started training");
}

train_options job(const temp_dir& dir, int iter) {
  train_options o;
  o.train = dir.file("corpus.txt");
  o.output = dir.file("vectors.txt");
  o.size = 16;
  o.iter = static_cast<uint32_t>(iter);
  o.threads = 2;
  o.min_count = 1;
  o.sample = 0; // 40 equally frequent words: subsampling would drop 95% of them
  // 40 words: every row meets every other in every minibatch, many times
  // over in one adjust (summed from the same vectors: the Network-efficient word2vec paper), and the
  // learners take the protocol path when the lanes are not yet in the
  // directory of local stores: a gentle rate, few small minibatches in
  // flight, in corpus order.
  o.alpha = 0.01;
  o.minibatch = 16;
  o.in_flight = 2;
  o.interleave = 1;
  o.log_every = 1000;
  o.checkpoint_dir = dir.file("ck");
  return o;
}

/// REQUIREs success, showing the error line if not.
template <class T>
T must(expected<T> x) {
  INFO((x ? std::string{} : x.error()));
  REQUIRE(x);
  return std::move(*x);
}

} // namespace

TEST_CASE("controller: pause, checkpoint, resume, query and export a running job", "[actors][controller]") {
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 20000, 11);
  gridvec_fixture g;
  auto idle = g.ask<job_status>(status_atom::value);
  REQUIRE(idle);
  CHECK(idle->phase == "idle");
  auto no_job = g.ask<bool>(pause_atom::value);
  REQUIRE_FALSE(no_job);
  CHECK(contains(no_job.error(), "no job"));
  CHECK(no_job.code() == error_code::not_found);

  auto id = g.ask<uint64_t>(start_atom::value, job(dir, 100000)); // until cancelled
  REQUIRE(id);
  CHECK(*id == 1);
  // A second job while one runs is refused.
  auto second = g.ask<uint64_t>(start_atom::value, job(dir, 1));
  REQUIRE_FALSE(second);
  CHECK(contains(second.error(), "still running"));
  CHECK(second.code() == error_code::busy);

  // Paused as soon as it trains: the job stays paused, its words frozen.
  pause_once_training(g);
  auto paused = g.ask<job_status>(status_atom::value);
  REQUIRE(paused);
  CHECK(paused->phase == "paused");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto still = g.ask<job_status>(status_atom::value);
  CHECK(still->processed_words == paused->processed_words);
  CHECK(contains(g.ask<bool>(pause_atom::value).error(), "not training"));

  // A checkpoint while paused, with the learners' exact cursors.
  auto ck = g.ask<checkpoint_info>(checkpoint_atom::value);
  REQUIRE(ck);
  CHECK(ck->sequence == 1);
  auto m = read_manifest(ck->path + "/MANIFEST");
  REQUIRE(m);
  CHECK(m->processed_words() == paused->processed_words);

  // Queries and export work on the live (paused) shards.
  auto near = g.ask<std::vector<neighbour>>(nearest_atom::value, std::string{"sea3"}, uint32_t{5});
  REQUIRE(near);
  CHECK(near->size() == 5);
  auto unknown = g.ask<std::vector<neighbour>>(nearest_atom::value, std::string{"zebra"}, uint32_t{5});
  REQUIRE_FALSE(unknown);
  CHECK(contains(unknown.error(), "not in the vocabulary"));
  auto rows = g.ask<uint64_t>(export_atom::value, dir.file("snapshot.txt"), false);
  REQUIRE(rows);
  CHECK(*rows == 40);
  CHECK(fs::exists(dir.file("snapshot.txt")));

  auto shards = g.ask<std::vector<shard_status>>(shards_atom::value);
  REQUIRE(shards);
  REQUIRE(shards->size() == 1);
  CHECK(shards->front().bytes == 2ull * 40 * 16 * sizeof(float));
  auto learners = g.ask<std::vector<learner_status>>(learners_atom::value);
  REQUIRE(learners);
  REQUIRE(learners->size() == 2);
  CHECK(learners->front().state == "paused");

  // Resume, then a checkpoint while training pauses and resumes by itself.
  must(g.ask<bool>(resume_atom::value));
  CHECK(must(g.ask<checkpoint_info>(checkpoint_atom::value)).sequence == 2);
  CHECK(must(g.ask<job_status>(status_atom::value)).phase == "training");
  must(g.ask<bool>(cancel_atom::value));
  auto outcome = g.ask<job_summary>(wait_atom::value);
  REQUIRE_FALSE(outcome);
  CHECK(contains(outcome.error(), "cancelled"));
  CHECK(must(g.ask<job_status>(status_atom::value)).phase == "cancelled");
  CHECK_FALSE(fs::exists(dir.file("vectors.txt")));
}

TEST_CASE("controller: a job resumes from its checkpoints, falling back past a damaged one", "[actors][controller]") {
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 500, 11);
  {
    gridvec_fixture g;
    auto first = job(dir, 100);
    first.fused = false; // dotprod/adjust messages: slow enough to pause long before its end
    first.in_flight = 1;
    REQUIRE(g.ask<uint64_t>(start_atom::value, first));
    // Checkpoints while paused, and cancelled while paused: the job cannot
    // have finished by itself, however fast it trains.
    pause_once_training(g);
    must(g.ask<checkpoint_info>(checkpoint_atom::value));
    must(g.ask<bool>(resume_atom::value));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    must(g.ask<bool>(pause_atom::value));
    must(g.ask<checkpoint_info>(checkpoint_atom::value));
    REQUIRE(g.ask<bool>(cancel_atom::value)); // as good as a crash: no vectors
    auto outcome = g.ask<job_summary>(wait_atom::value);
    REQUIRE_FALSE(outcome);
    CHECK(contains(outcome.error(), "cancelled"));
  }
  CHECK_FALSE(fs::exists(dir.file("vectors.txt")));
  checkpoint_store store{dir.file("ck")};
  REQUIRE(store.complete() == std::vector<uint64_t>{2, 1});
  auto m1 = read_manifest(store.final_dir(1) + "/MANIFEST");
  REQUIRE(m1);

  // Damage the newest: the resumed job falls back to checkpoint 1. The
  // byte is flipped, not overwritten: a fixed value would leave it as it
  // was once in 256 runs.
  {
    std::fstream f(store.final_dir(2) + "/shard-0.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(100);
    const int was = f.get();
    REQUIRE(was != EOF);
    f.seekp(100);
    f.put(static_cast<char>(was ^ 0xff));
  }
  gridvec_fixture g;
  train_options again;
  again.resume = dir.file("ck");
  again.threads = 2;
  again.log_every = 1000;
  auto summary = g.ask<job_summary>(submit_atom::value, again, caf::actor{});
  INFO((summary ? std::string{} : summary.error()));
  REQUIRE(summary);
  CHECK(summary->resumed_words == m1->processed_words());
  CHECK(summary->processed_words == 100ull * 500 * 12);
  CHECK(fs::exists(dir.file("vectors.txt")));
  auto table = read_vectors(dir.file("vectors.txt"));
  REQUIRE(table);
  CHECK(table->words.size() == 40);
  CHECK(table->dim == 16);
}

TEST_CASE("controller: resuming without a usable checkpoint fails with one line", "[actors][controller]") {
  temp_dir dir;
  gridvec_fixture g;
  train_options o;
  o.resume = dir.file("nothing-here");
  o.threads = 2;
  auto r = g.ask<job_summary>(submit_atom::value, o, caf::actor{});
  REQUIRE_FALSE(r);
  CHECK(contains(r.error(), "no usable checkpoint"));
}

TEST_CASE("controller: a finished job stays queryable and exportable until the next", "[actors][controller]") {
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 2000, 11);
  gridvec_fixture g;
  auto o = job(dir, 20);
  o.checkpoint_dir.clear(); // the vocabulary lives in a temporary work directory

  must(g.ask<job_summary>(submit_atom::value, o, caf::actor{}));
  CHECK(must(g.ask<uint64_t>(export_atom::value, dir.file("again.bin"), true)) == 40);
  CHECK(must(g.ask<job_status>(status_atom::value)).phase == "done");
  // Topic words are nearest to words of their own topic.
  for (const auto& n : must(g.ask<std::vector<neighbour>>(nearest_atom::value, std::string{"sky1"}, uint32_t{5})))
    CHECK(n.word.rfind("sky", 0) == 0);
  CHECK(must(g.ask<std::vector<neighbour>>(analogy_atom::value, std::string{"sky1"}, std::string{"sky2"},
                                           std::string{"sea4"}, uint32_t{3}))
          .size() == 3);
  // The next job (a short one: only its number is checked) replaces it.
  o.output = dir.file("second.txt");
  o.iter = 1;
  must(g.ask<job_summary>(submit_atom::value, o, caf::actor{}));
  CHECK(must(g.ask<job_status>(status_atom::value)).job == 2);
}
