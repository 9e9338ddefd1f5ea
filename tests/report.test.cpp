// The --report JSON: every figure a run promises, and valid JSON even for a
// run whose loss diverged.
#include <catch2/catch.hpp>
#include <sys/mman.h>

#include <cstring>
#include <limits>
#include <vector>

#include <gridvec/core/report.hpp>
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;

namespace {

job_summary sample_summary() {
  job_summary s;
  s.raw_words = 1000;
  s.trained_words = 800;
  s.seconds = 2.0;
  s.training_seconds = 1.5;
  s.vocab_size = 50;
  s.final_loss = 2.5;
  s.wire.add(message_kind::dotprod_request, 100);
  s.wire.add_part(message_kind::adjust_request, 40); // rode on the dotprod request
  return s;
}

} // namespace

TEST_CASE("report JSON holds the promised fields", "[report]") {
  auto json = to_json(sample_summary());
  for (const char* key : {"\"raw_words\": 1000", "\"trained_words\": 800", "\"seconds\": 2.000", "\"vocab_size\": 50",
                          "\"peak_rss_bytes\"", "\"final_loss\": 2.500000", "\"words_per_second\""})
    CHECK(contains(json, key));
  // A part that rode in another message adds bytes, not a message.
  CHECK(contains(json, "\"dotprod_request\": {\"count\": 1, \"bytes\": 100"));
  CHECK(contains(json, "\"adjust_request\": {\"count\": 0, \"bytes\": 40"));
}

TEST_CASE("report JSON holds every node's peak memory beside its plan, and the largest", "[report]") {
  auto s = sample_summary();
  CHECK(!contains(to_json(s), "node_memory")); // one process: its own peak only
  s.peak_rss_bytes = 3000;
  s.peak_rss_node = "shard-a";
  s.memory = {{"coord", 1000, 900, 8000}, {"shard-a", 3000, 2500, 0}};
  const auto json = to_json(s);
  CHECK(contains(json,
                 "\"peak_rss_bytes\": 3000,\n  \"peak_rss_node\": \"shard-a\",\n  \"node_memory\": {\n"
                 "    \"coord\": {\"peak_rss_bytes\": 1000, \"planned_bytes\": 900, \"budget_bytes\": 8000},\n"
                 "    \"shard-a\": {\"peak_rss_bytes\": 3000, \"planned_bytes\": 2500, \"budget_bytes\": 0}\n  },\n"));
}

TEST_CASE("report JSON holds the work queue's parts and what each learner trained", "[report]") {
  auto s = sample_summary();
  CHECK(!contains(to_json(s), "\"parts\""));
  s.parts = 8;
  s.parts_trained = {11, 5};
  CHECK(contains(to_json(s), "  \"parts\": 8,\n  \"parts_trained_per_learner\": [11, 5],\n"));
}

TEST_CASE("a process's peak memory since a reset", "[report]") {
  // What each node reports for a job: its peak since the job began. The
  // block is mapped and unmapped directly, so that its pages leave the
  // process whatever the allocator keeps (ASan's quarantine kept a freed
  // vector's pages resident).
  constexpr size_t bytes = size_t{64} << 20;
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(block != MAP_FAILED);
  std::memset(block, 1, bytes);
  const uint64_t high = peak_rss_since_reset();
  CHECK(high >= bytes);
  munmap(block, bytes);
  REQUIRE(reset_peak_rss());
  // Other cases' threads in this process may allocate meanwhile (9 MB was
  // seen): the peak has lost most of the block, not necessarily all of it.
  CHECK(peak_rss_since_reset() + bytes / 2 < high);
}

TEST_CASE("report words/s leave paused time out; the training figure is written as given", "[report]") {
  auto s = sample_summary();
  s.processed_words = 900;
  s.iterations = 3;
  CHECK(s.words_per_second() == Approx(1000.0 * 3 / 2.0));
  s.paused_seconds = 0.5; // of the 2 s, paused
  CHECK(s.words_per_second() == Approx(1000.0 * 3 / 1.5));
  s.training_words_per_second = 600;
  auto json = to_json(s);
  CHECK(contains(json, "\"paused_seconds\": 0.500"));
  CHECK(contains(json, "\"words_per_second\": 2000.0"));
  CHECK(contains(json, "\"training_words_per_second\": 600.0"));
}

TEST_CASE("report JSON writes a diverged loss as null, never inf or nan", "[report]") {
  for (double loss : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    auto s = sample_summary();
    s.final_loss = loss;
    auto json = to_json(s);
    CHECK(contains(json, "\"final_loss\": null,"));
    CHECK_FALSE(contains(json, "inf"));
    CHECK_FALSE(contains(json, "nan"));
  }
}
