// The control plane in one process: a local gridvec (a node with every
// role and a controller) runs a job that is paused, checkpointed, resumed,
// queried and exported through the controller; a second job resumes from
// the checkpoints of the first.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <filesystem>
#include <fstream>

#include "actors/train_job.hpp"
#include "src/checkpoint.hpp"
#include "src/rng.hpp"
#include "src/vectors_file.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;
using gridvec::test::temp_dir;
namespace fs = std::filesystem;

namespace {

// Two topics whose words co-occur only with each other.
void write_topic_corpus(const std::string& file, int lines) {
  std::ofstream out(file);
  rng r(11);
  for (int i = 0; i < lines; ++i) {
    int topic = static_cast<int>(r.below(2));
    for (int k = 0; k < 12; ++k)
      out << (topic ? "sea" : "sky") << r.below(20) << ' ';
    out << '\n';
  }
}

struct local_gridvec {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  node_actor node;
  controller_actor controller;

  local_gridvec() {
    cfg.set("scheduler.max-threads", size_t{2});
    sys = std::make_unique<caf::actor_system>(cfg);
    node = spawn_local_gridvec(*sys);
    caf::scoped_actor self{*sys};
    self->request(node, std::chrono::seconds(10), controller_atom::value)
      .receive([&](controller_actor c) { controller = c; }, [](caf::error& e) { FAIL(error_text(e)); });
  }
  ~local_gridvec() {
    caf::anon_send(node, stop_atom::value);
  }

  /// Sends `xs` to the controller and returns the reply or the error line.
  template <class T, class... Ts>
  expected<T> ask(Ts... xs) {
    caf::scoped_actor self{*sys};
    std::optional<expected<T>> out;
    self->request(controller, std::chrono::seconds(120), xs...)
      .receive([&](T& x) { out.emplace(std::move(x)); }, [&](caf::error& e) { out.emplace(failure{error_text(e)}); });
    return std::move(*out);
  }
};

train_options job(const temp_dir& dir, int iter) {
  train_options o;
  o.train = dir.file("corpus.txt");
  o.output = dir.file("vectors.txt");
  o.size = 16;
  o.iter = static_cast<uint32_t>(iter);
  o.threads = 2;
  o.min_count = 1;
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
  write_topic_corpus(dir.file("corpus.txt"), 20000);
  local_gridvec g;
  auto idle = g.ask<job_status>(status_atom::value);
  REQUIRE(idle);
  CHECK(idle->phase == "idle");
  CHECK(contains(g.ask<bool>(pause_atom::value).error(), "no job"));

  auto id = g.ask<uint64_t>(start_atom::value, job(dir, 60));
  REQUIRE(id);
  CHECK(*id == 1);
  // A second job while one runs is refused.
  auto second = g.ask<uint64_t>(start_atom::value, job(dir, 1));
  REQUIRE_FALSE(second);
  CHECK(contains(second.error(), "still running"));

  // Wait for training, then pause: the job stays paused, its words frozen.
  for (int i = 0; i < 200; ++i) {
    auto s = g.ask<job_status>(status_atom::value);
    REQUIRE(s);
    if (s->phase == "training" && s->processed_words > 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  must(g.ask<bool>(pause_atom::value));
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
  CHECK(shards->front().requests > 0);
  auto learners = g.ask<std::vector<learner_status>>(learners_atom::value);
  REQUIRE(learners);
  REQUIRE(learners->size() == 2);
  CHECK(learners->front().state == "paused");

  // Resume, then a checkpoint while training pauses and resumes by itself.
  REQUIRE(g.ask<bool>(resume_atom::value));
  CHECK(must(g.ask<checkpoint_info>(checkpoint_atom::value)).sequence == 2);
  auto summary = g.ask<job_summary>(wait_atom::value);
  REQUIRE(summary);
  CHECK(summary->checkpoints >= 2);
  CHECK(summary->processed_words == 60ull * 20000 * 12);
  auto done = g.ask<job_status>(status_atom::value);
  CHECK(done->phase == "done");

  // Topic words are nearest to words of their own topic.
  auto after = g.ask<std::vector<neighbour>>(nearest_atom::value, std::string{"sea3"}, uint32_t{5});
  REQUIRE(after);
  for (const auto& n : *after)
    CHECK(n.word.rfind("sea", 0) == 0);
  auto analogy = g.ask<std::vector<neighbour>>(analogy_atom::value, std::string{"sky1"}, std::string{"sky2"},
                                              std::string{"sea4"}, uint32_t{3});
  REQUIRE(analogy);
  CHECK(analogy->size() == 3);
}

TEST_CASE("controller: a job resumes from its checkpoints, falling back past a damaged one",
          "[actors][controller]") {
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 500);
  {
    local_gridvec g;
    REQUIRE(g.ask<uint64_t>(start_atom::value, job(dir, 2000))); // runs until cancelled
    for (int i = 0; i < 200; ++i) {
      auto s = g.ask<job_status>(status_atom::value);
      if (s && s->phase == "training" && s->processed_words > 0)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // Paused at once, so that the job is far from done when cancelled.
    must(g.ask<bool>(pause_atom::value));
    must(g.ask<checkpoint_info>(checkpoint_atom::value));
    must(g.ask<bool>(resume_atom::value));
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

  // Damage the newest: the resumed job falls back to checkpoint 1.
  {
    std::fstream f(store.final_dir(2) + "/shard-0.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x7f');
  }
  local_gridvec g;
  train_options again;
  again.resume = dir.file("ck");
  again.threads = 2;
  again.log_every = 1000;
  auto summary = g.ask<job_summary>(submit_atom::value, again, caf::actor{});
  REQUIRE(summary);
  CHECK(summary->resumed_words == m1->processed_words());
  CHECK(summary->processed_words == 2000ull * 500 * 12);
  CHECK(fs::exists(dir.file("vectors.txt")));
  auto table = read_vectors(dir.file("vectors.txt"));
  REQUIRE(table);
  CHECK(table->words.size() == 40);
  CHECK(table->dim == 16);
}

TEST_CASE("controller: resuming without a usable checkpoint fails with one line", "[actors][controller]") {
  temp_dir dir;
  local_gridvec g;
  train_options o;
  o.resume = dir.file("nothing-here");
  o.threads = 2;
  auto r = g.ask<job_summary>(submit_atom::value, o, caf::actor{});
  REQUIRE_FALSE(r);
  CHECK(contains(r.error(), "no usable checkpoint"));
}

TEST_CASE("controller: a finished job stays queryable and exportable until the next", "[actors][controller]") {
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 2000);
  local_gridvec g;
  auto o = job(dir, 5);
  o.checkpoint_dir.clear(); // the vocabulary lives in a temporary work directory
  must(g.ask<job_summary>(submit_atom::value, o, caf::actor{}));
  CHECK(must(g.ask<uint64_t>(export_atom::value, dir.file("again.bin"), true)) == 40);
  CHECK(must(g.ask<std::vector<neighbour>>(nearest_atom::value, std::string{"sky1"}, uint32_t{3})).size() == 3);
  // The next job replaces it.
  o.output = dir.file("second.txt");
  must(g.ask<job_summary>(submit_atom::value, o, caf::actor{}));
  CHECK(must(g.ask<job_status>(status_atom::value)).job == 2);
}
