// The --report JSON: every figure a run promises, and valid JSON even for a
// run whose loss diverged.
#include <catch2/catch.hpp>

#include <limits>

#include <gridvec/core/report.hpp>

using namespace gridvec;

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

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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
