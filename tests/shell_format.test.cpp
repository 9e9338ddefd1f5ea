#include <catch2/catch.hpp>

#include "apps/shell/shell_format.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;

TEST_CASE("human numbers, sizes and durations", "[shell]") {
  CHECK(human_count(950) == "950");
  CHECK(human_count(12345) == "12.3k");
  CHECK(human_count(4560000) == "4.56M");
  CHECK(human_count(7.89e9) == "7.89G");
  CHECK(human_bytes(512) == "512 B");
  CHECK(human_bytes(1536) == "1.5 KiB");
  CHECK(human_bytes(12897484) == "12.3 MiB");
  CHECK(human_bytes(uint64_t{2} << 30) == "2.00 GiB");
  CHECK(human_duration(7.4) == "0:07");
  CHECK(human_duration(754) == "12:34");
  CHECK(human_duration(3723) == "1:02:03");
  CHECK(human_duration(-3) == "0:00");
}

TEST_CASE("tables pad columns to the widest cell, in characters", "[shell]") {
  const std::string t = render_table({"A", "NUMBER"}, {{"ö-word", "1"}, {"x", "12345678"}}, {1});
  CHECK(t == "A         NUMBER\n"
             "ö-word         1\n"
             "x       12345678\n");
  // No trailing blanks, even when the last column is left-aligned and short.
  CHECK(render_table({"LONG HEADER"}, {{"x"}}) == "LONG HEADER\nx\n");
}

TEST_CASE("status shows every field a user asks about", "[shell]") {
  job_status s;
  s.job = 3;
  s.phase = "training";
  s.message = "epoch 2 started";
  s.epoch = 2;
  s.iterations = 5;
  s.progress = 0.4321;
  s.processed_words = 1230000;
  s.total_words = 2850000;
  s.words_per_second = 123400;
  s.eta_seconds = 13.2;
  s.alpha = 0.0215f;
  s.loss = 2.3456;
  s.bytes_per_word = 187.25;
  s.shards = 2;
  s.learners = 4;
  s.vocab_size = 71290;
  s.last_checkpoint = 7;
  s.seconds = 83;
  const std::string out = format_status(s);
  CHECK(out == "job         3\n"
               "phase       training\n"
               "epoch       2 of 5\n"
               "progress    43.2% (1.23M of 2.85M words)\n"
               "words/s     123.4k\n"
               "eta         0:13\n"
               "alpha       0.021500\n"
               "loss        2.3456\n"
               "bytes/word  187.2\n"
               "shards      2\n"
               "learners    4\n"
               "vocabulary  71290 words\n"
               "checkpoint  #7\n"
               "elapsed     1:23\n"
               "message     epoch 2 started\n");
}

TEST_CASE("status of no job, and of a job without numbers yet", "[shell]") {
  job_status none;
  none.phase = "idle";
  CHECK(format_status(none) == "no job has been run yet (start one with `train` or `submit`)\n");
  job_status early;
  early.job = 1;
  early.phase = "counting";
  const std::string out = format_status(early);
  CHECK(contains(out, "phase       counting\n"));
  CHECK(contains(out, "eta         -\n"));
  CHECK(contains(out, "loss        -\n"));
  CHECK(contains(out, "checkpoint  none\n"));
  CHECK(contains(out, "message     -\n"));
  CHECK_FALSE(contains(out, "recoveries"));
}

TEST_CASE("an ETA not known yet is '-', in status and in the progress line, never 0:00", "[shell]") {
  job_status s;
  s.job = 1;
  s.phase = "training";
  s.iterations = 5;
  s.epoch = 1;
  s.total_words = 1000;
  s.eta_seconds = -1; // no rate yet
  CHECK(contains(format_status(s), "eta         -\n"));
  CHECK(contains(format_progress_line(s), "0 words/s  eta -  alpha"));
  s.words_per_second = 500;
  s.eta_seconds = 2;
  s.progress = 0.001;
  CHECK(contains(format_progress_line(s), "500 words/s  eta 0:02  alpha"));
}

TEST_CASE("nodes: one row per node, down nodes without numbers", "[shell]") {
  std::vector<node_status> nodes(2);
  nodes[0] = {"coord", "127.0.0.1:7700", "coordinator vocabulary exporter", true, 48u << 20, 0, 0};
  nodes[1] = {"shard-a", "127.0.0.1:7701", "shard", false, 0, 0, 0};
  CHECK(format_nodes(nodes) ==
        "NODE     ADDRESS         ROLES                            STATE    MEMORY  SHARD LANES  LEARNERS\n"
        "coord    127.0.0.1:7700  coordinator vocabulary exporter  up     48.0 MiB            0         0\n"
        "shard-a  127.0.0.1:7701  shard                            down          -            -         -\n");
}

TEST_CASE("shards: node, columns, memory, requests/s", "[shell]") {
  std::vector<shard_status> shards(2);
  shards[0] = {0, "shard-a", 0, 25, 0, 3u << 20, 1000, 250.5, true};
  shards[1] = {1, "shard-b", 25, 25, 0, 3u << 20, 990, 0, false};
  CHECK(format_shards(shards) == "SHARD  NODE     COLUMNS   MEMORY  REQUESTS  REQUESTS/S  STATE\n"
                                 "    0  shard-a  0-24     3.0 MiB      1000       250.5  alive\n"
                                 "    1  shard-b  25-49    3.0 MiB       990         0.0  lost\n");
  CHECK(format_shards({}) == "the job has no shards yet\n");
  // --partition words: every column of the rows of its words.
  shards[0] = {0, "shard-a", 0, 50, 2, 3u << 20, 1000, 250.5, true};
  shards[1] = {1, "shard-b", 0, 50, 2, 3u << 20, 990, 0, true};
  CHECK(format_shards(shards) == "SHARD  NODE     COLUMNS               MEMORY  REQUESTS  REQUESTS/S  STATE\n"
                                 "    0  shard-a  0-49 of words w%2=0  3.0 MiB      1000       250.5  alive\n"
                                 "    1  shard-b  0-49 of words w%2=1  3.0 MiB       990         0.0  alive\n");
}

TEST_CASE("a learner's parts show their epoch and progress in it", "[shell]") {
  part_cursor c;
  c.part = 3;
  c.words = 1000;
  c.epoch = 1;
  c.processed = 1410; // all of epoch 1, 41% of epoch 2
  CHECK(format_part(c, 5) == "p3 epoch 2/5 41%");
  CHECK(format_part(c, 0) == "p3 epoch 2 41%");
  c.epoch = 5;
  c.processed = 5000;
  CHECK(format_part(c, 5) == "p3 done");
  part_cursor empty;
  empty.processed = 1200;
  CHECK(format_part(empty, 0) == "p0 1.2k words");

  learner_status l;
  l.id = 0;
  l.node = "learn-a";
  l.state = "training";
  l.in_flight = 4;
  l.words_per_second = 51000;
  part_cursor a;
  a.part = 0;
  a.words = 100;
  a.processed = 50;
  l.parts = {a, c};
  learner_status idle;
  idle.id = 1;
  idle.node = "learn-b";
  idle.state = "idle";
  CHECK(format_learners({l, idle}, 5) == "LEARNER  NODE     STATE     IN FLIGHT  WORDS/S  PARTS\n"
                                         "      0  learn-a  training          4    51.0k  p0 epoch 1/5 50%, p3 done\n"
                                         "      1  learn-b  idle              0        0  -\n");
  CHECK(format_learners({}, 5) == "the job has no learners yet\n");
}

TEST_CASE("neighbours: rank, word, cosine", "[shell]") {
  CHECK(format_neighbours({{"queen", 0.81234f}, {"princess", 0.7f}}) == "#  WORD      COSINE\n"
                                                                        "1  queen     0.8123\n"
                                                                        "2  princess  0.7000\n");
  CHECK(format_neighbours({}) == "no neighbours\n");
}

TEST_CASE("a job's summary and a checkpoint are one line each", "[shell]") {
  job_summary s;
  s.seconds = 12.34;
  s.raw_words = 1000000;
  s.processed_words = 900000;
  s.iterations = 2;
  s.vocab_size = 7129;
  s.dim = 50;
  s.shards = 2;
  s.learners = 2;
  s.final_loss = 2.5;
  CHECK(format_summary(s) ==
        "job done in 12.3 s: 162.1k words/s, 7129 vectors of 50, 2 shards, 2 learners, final loss 2.5000\n");
  s.peak_rss_bytes = uint64_t{3} << 29;
  s.peak_rss_node = "shard-a";
  CHECK(format_summary(s) == "job done in 12.3 s: 162.1k words/s, 7129 vectors of 50, 2 shards, 2 learners, final loss "
                             "2.5000, peak RSS 1.50 GiB on node shard-a\n");
  CHECK(format_checkpoint({4, "/data/ckpt/0004", 0.5}) == "checkpoint #4 written to /data/ckpt/0004 in 0.50 s\n");
}
