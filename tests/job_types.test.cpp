// A job's options reach the cluster whole: every option of `gridvec train`
// survives CAF's serialization (an option missing from inspect() would be
// silently back at its default on the nodes -- -interleave, -refresh-weights and
// --checkpoint-failures were, until this test).
// GCC 12 sees CAF's one-byte copy of a bool as out of bounds (false
// -Warray-bounds/-Wstringop-* in caf/serializer_impl.hpp, inlined only here).
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <caf/all.hpp>
#include <catch2/catch.hpp>

#include <iterator>
#include <sstream>

#include <gridvec/job_types.hpp>
#include <gridvec/core/options.hpp>

using namespace gridvec;

TEST_CASE("train_options: every option crosses the wire", "[actors]") {
  // Every option away from its default.
  const std::string line =
    "-train /c.txt -output /v.txt -size 64 -window 7 -negative 9 -sample 0.002 "
    "-min-count 3 -iter 4 -alpha 0.03 -threads 3 -binary 1 -cbow 1 -hs 0 -max-vocab 1000 "
    "-classes 20 -debug 1 -save-vocab /sv.txt -read-vocab /rv.txt --save-model /m2 "
    "--init /m1 --shards 4 --minibatch 32 --in-flight 5 --parts-per-learner 3 --coalesce 2 --fused 0 "
    "--shared-negatives 1 --interleave 1 --refresh-weights 0 --seed 9 --report /r.json "
    "--work-dir /w --log-every 3 --checkpoint-dir /ck --checkpoint-every 5000w "
    "--checkpoint-failures warn --checkpoint-keep 5 --partition replicated "
    "--sync-rounds 12 --host-threads 2 --combiner avg --link-speed 10gbit --invalid-utf8 replace --explain";
  std::istringstream words(line);
  auto given = parse_train_options({std::istream_iterator<std::string>(words), {}});
  REQUIRE(given);
  given->stop_cluster = true;
  // The noise options, which the line's replicated mode refuses, set here.
  given->negatives_mode = 2;
  given->hierarchical_sampler = true;
  given->word_partitions = 7;
  given->visits_per_skipgram = true;
  given->output_parts = true; // (-classes above refuses it on the command line)
  // Every option of the table but -hs (whose only value is its default) is
  // in the list above: a new option makes this fail until it is added.
  const auto args = to_args(*given);
  // (--explain, a switch, is one argument: -explain=1.)
  CHECK(args.size() == 2 * 47 + 1);

  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  REQUIRE_FALSE(sink(*given));
  train_options received;
  caf::binary_deserializer source{nullptr, buf};
  REQUIRE_FALSE(source(received));
  CHECK(to_args(received) == args);
  CHECK(received.stop_cluster);
}

TEST_CASE("learner_config: a job's options with the learner's computed defaults, across the wire", "[actors]") {
  // Its defaults are the option table's (no second copy of them).
  const learner_config plain;
  CHECK(to_args(plain) == to_args(learner_config{train_defaults(), 0, 1}));
  CHECK(plain.minibatch == train_defaults().minibatch);
  CHECK(plain.size == train_defaults().size);
  CHECK(plain.in_flight == train_defaults().in_flight_window());
  CHECK(plain.learners == 1u);

  std::vector<std::string> line{"-train", "/c.txt", "-output",     "/v.txt", "-size",    "40",
                                "-hs",    "1",      "--minibatch", "16",     "--shards", "3"};
  auto job = parse_train_options(line);
  REQUIRE(job);
  learner_config sent{*job, 2, 4};
  sent.threads = 3;
  CHECK(sent.id == 2u);
  CHECK(sent.size == 40u);
  CHECK(sent.minibatch == 16u);
  CHECK(sent.in_flight == 1u);        // -hs 1's window
  CHECK(sent.word_partitions == 3u);  // one per shard
  CHECK(sent.sync_rounds == 8u * 4u); // 8 per host (used by --partition replicated)
  CHECK(sent.start_alpha() == job->start_alpha());

  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  REQUIRE_FALSE(sink(const_cast<learner_config&>(sent)));
  learner_config received;
  caf::binary_deserializer source{nullptr, buf};
  REQUIRE_FALSE(source(received));
  CHECK(to_args(received) == to_args(sent));
  CHECK(received.id == 2u);
  CHECK(received.learners == 4u);
  CHECK(received.threads == 3u);
}
