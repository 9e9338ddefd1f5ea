#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <gridvec/core/options.hpp>
#include "src/sgns/noise_sampler.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;

namespace {

using args_t = std::vector<std::string>;

args_t with_required(args_t extra) {
  args_t a{"-train", "corpus.txt", "-output", "vectors.bin"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// Parsing must fail with one line that names `option`.
void expect_failure(const args_t& args, const std::string& option) {
  std::string joined;
  for (const auto& a : args)
    joined += a + " ";
  INFO("args: " << joined);
  auto o = parse_train_options(args);
  CHECK_FALSE(o);
  if (o)
    return;
  INFO("error: " << o.error());
  CHECK_FALSE(o.error().empty());
  CHECK_FALSE(contains(o.error(), "\n"));
  CHECK(contains(o.error(), option));
}

const std::vector<std::string> all_options{"train",
                                           "output",
                                           "size",
                                           "window",
                                           "negative",
                                           "sample",
                                           "min-count",
                                           "iter",
                                           "alpha",
                                           "threads",
                                           "binary",
                                           "output-parts",
                                           "cbow",
                                           "max-vocab",
                                           "shards",
                                           "minibatch",
                                           "in-flight",
                                           "coalesce",
                                           "seed",
                                           "report",
                                           "work-dir",
                                           "log-every",
                                           "fused",
                                           "shared-negatives",
                                           "interleave",
                                           "refresh-weights",
                                           "checkpoint-failures"};

} // namespace

TEST_CASE("options: word2vec-style flags", "[options]") {
  auto o = parse_train_options({"-train",    "text8",    "-output", "vec.bin",    "-size",      "300",     "-cbow",
                                "1",         "-binary",  "1",       "-sample",    "1e-4",       "-window", "8",
                                "-negative", "25",       "-iter",   "15",         "-min-count", "3",       "-alpha",
                                "0.05",      "-threads", "4",       "-max-vocab", "100000"});
  REQUIRE(o);
  CHECK(o->train == "text8");
  CHECK(o->output == "vec.bin");
  CHECK(o->size == 300u);
  CHECK(o->cbow);
  CHECK(o->binary);
  CHECK(o->sample == 1e-4);
  CHECK(o->window == 8u);
  CHECK(o->negative == 25u);
  CHECK(o->iter == 15u);
  CHECK(o->min_count == 3u);
  CHECK(o->alpha == 0.05);
  CHECK(o->start_alpha() == 0.05f);
  CHECK(o->threads == 4u);
  CHECK(o->max_vocab == 100000u);
}

TEST_CASE("options: gridvec's own options and the other spellings", "[options]") {
  auto o = parse_train_options({"--train=c.txt",
                                "--output",
                                "out.txt",
                                "--shards",
                                "4",
                                "--minibatch",
                                "64",
                                "--in-flight=8",
                                "--coalesce",
                                "2",
                                "--seed",
                                "18446744073709551615",
                                "--report",
                                "r.json",
                                "-work-dir",
                                "/tmp/w",
                                "--log-every=2.5",
                                "--size=40",
                                "-window=3",
                                "--cbow",
                                "0",
                                "-sample",
                                "0",
                                "--fused",
                                "0",
                                "--shared-negatives=1",
                                "--interleave",
                                "8",
                                "--refresh-weights=0",
                                "--checkpoint-failures",
                                "warn"});
  REQUIRE(o);
  CHECK_FALSE(o->fused);
  CHECK(o->interleave == 8u);
  CHECK(o->checkpoint_failures_warn);
  CHECK_FALSE(o->refresh_weights);
  CHECK(o->shared_negatives == 1);
  CHECK(o->window_kernel());
  CHECK(o->train == "c.txt");
  CHECK(o->output == "out.txt");
  CHECK(o->shards == 4u);
  CHECK(o->minibatch == 64u);
  CHECK(o->in_flight == 8u);
  CHECK(o->coalesce == 2u);
  CHECK(o->seed == 18446744073709551615ull);
  CHECK(o->report == "r.json");
  CHECK(o->work_dir == "/tmp/w");
  CHECK(o->log_every == 2.5);
  CHECK(o->size == 40u);
  CHECK(o->window == 3u);
  CHECK_FALSE(o->cbow);
  CHECK(o->sample == 0.0);

  // A later occurrence wins; a value may contain '='.
  auto p = parse_train_options(with_required({"-size", "10", "-size", "20", "--report=a=b.json"}));
  REQUIRE(p);
  CHECK(p->size == 20u);
  CHECK(p->report == "a=b.json");

  // --shards may equal -size.
  auto q = parse_train_options(with_required({"-size", "8", "--shards", "8"}));
  REQUIRE(q);
  CHECK(q->shards == 8u);
}

TEST_CASE("options: defaults when absent", "[options]") {
  auto o = parse_train_options(with_required({}));
  REQUIRE(o);
  CHECK(o->train == "corpus.txt");
  CHECK(o->output == "vectors.bin");
  CHECK(o->size == 100u);
  CHECK(o->window == 5u);
  CHECK(o->negative == 5u);
  CHECK(o->sample == 1e-3);
  CHECK(o->min_count == 5u);
  CHECK(o->iter == 5u);
  CHECK(o->alpha == 0.0);
  CHECK(o->start_alpha() == 0.025f);
  CHECK(o->threads >= 1u); // all cores
  CHECK_FALSE(o->binary);
  CHECK_FALSE(o->cbow);
  CHECK(o->max_vocab == 0u);
  CHECK(o->shards == 0u); // unset: 1 in gridvec train, the total of the config in a cluster
  CHECK(o->minibatch == 64u);
  CHECK(o->in_flight_window() == 10u);
  CHECK(o->parts_per_learner_count() == 8u);
  CHECK(o->work_queue());
  CHECK(o->parts_for(2) == 16u);
  CHECK(o->coalesce == 4u);
  CHECK(o->fused);
  CHECK(o->shared_negatives == train_options::shared_negatives_auto);
  CHECK(o->window_kernel());
  CHECK(o->interleave == 64u);
  CHECK(o->refresh_weights);
  CHECK_FALSE(o->checkpoint_failures_warn);
  CHECK(o->seed == 1u);
  CHECK(o->report.empty());
  CHECK(o->work_dir.empty());
  CHECK(o->log_every == 0.0);

  auto c = parse_train_options(with_required({"-cbow", "1"}));
  REQUIRE(c);
  CHECK(c->start_alpha() == 0.05f); // CBOW's default learning rate
}

TEST_CASE("options: -hs 1 with or without negative sampling, as word2vec.c", "[options]") {
  auto both = parse_train_options(with_required({"-hs", "1"}));
  REQUIRE(both);
  CHECK(both->hs);
  CHECK(both->negative == 5u);
  auto hs_only = parse_train_options(with_required({"-hs", "1", "-negative", "0"}));
  REQUIRE(hs_only);
  CHECK(hs_only->negative == 0u);
  CHECK(hs_only->in_flight_window() == 1u); // its root is in every pair
  auto wide = parse_train_options(with_required({"-hs", "1", "--in-flight", "6"}));
  REQUIRE(wide);
  CHECK(wide->in_flight_window() == 6u);
  // One part a learner: one decay of the learning rate an epoch.
  CHECK(both->parts_per_learner_count() == 1u);
  CHECK_FALSE(both->work_queue());
  CHECK(both->parts_for(3) == 3u);
  auto queued = parse_train_options(with_required({"-hs", "1", "--parts-per-learner", "4"}));
  REQUIRE(queued);
  CHECK(queued->work_queue());
  CHECK(queued->parts_for(2) == 8u);
  // Nothing to train without either.
  expect_failure(with_required({"-hs", "0", "-negative", "0"}), "-negative 0");
  // The node vectors belong to one Huffman tree: no model to continue.
  expect_failure(with_required({"-hs", "1", "--save-model", "m"}), "--save-model");
  expect_failure(with_required({"-hs", "1", "--init", "m"}), "--init");
}

TEST_CASE("options: the replicated mode's partition, rounds and combiner", "[options]") {
  auto columns = parse_train_options(with_required({}));
  REQUIRE(columns);
  CHECK_FALSE(columns->replicated());
  auto rep = parse_train_options(with_required({"--partition", "replicated"}));
  REQUIRE(rep);
  CHECK(rep->replicated());
  CHECK_FALSE(rep->average_combiner);
  CHECK(rep->sync_rounds_per_epoch(1) == 8u); // auto: 8 per learner thread
  CHECK(rep->sync_rounds_per_epoch(4) == 32u);
  auto set = parse_train_options(with_required({"--partition=replicated", "--sync-rounds", "12", "--combiner", "avg"}));
  REQUIRE(set);
  CHECK(set->sync_rounds_per_epoch(4) == 12u);
  CHECK(set->average_combiner);
  // Through a checkpoint's manifest and back.
  auto again = parse_train_options(to_args(*set));
  REQUIRE(again);
  CHECK(again->replicated());
  CHECK(again->sync_rounds == 12u);
  CHECK(again->average_combiner);
  auto back_to_auto = parse_train_options(with_required({"--partition", "replicated", "--sync-rounds", "auto"}));
  REQUIRE(back_to_auto);
  CHECK(back_to_auto->sync_rounds == 0u);
  expect_failure(with_required({"--partition", "rows"}), "--partition");
  expect_failure(with_required({"--partition", "replicated", "--combiner", "sum"}), "--combiner");
  expect_failure(with_required({"--partition", "replicated", "--sync-rounds", "0"}), "sync-rounds");
  // Flags of the replicated mode mean nothing without it.
  expect_failure(with_required({"--combiner", "avg"}), "--combiner");
  expect_failure(with_required({"--sync-rounds", "4"}), "--sync-rounds");
  expect_failure(with_required({"--host-threads", "2"}), "--host-threads");

  // Hosts: by default one a node (or gridvec train), all its learner
  // threads training its copy; --host-threads N cuts a node's into hosts
  // of N, the last taking what is left.
  CHECK(rep->host_threads == 0u);
  CHECK(rep->hosts_on_node(4) == 1u);
  CHECK(rep->threads_of_host(4, 0) == 4u);
  CHECK(rep->hosts_on_node(0) == 0u);
  auto cut = parse_train_options(with_required({"--partition", "replicated", "--host-threads", "3"}));
  REQUIRE(cut);
  CHECK(cut->hosts_on_node(7) == 3u);
  CHECK(cut->threads_of_host(7, 0) == 3u);
  CHECK(cut->threads_of_host(7, 1) == 3u);
  CHECK(cut->threads_of_host(7, 2) == 1u);
  CHECK(cut->hosts_on_node(2) == 1u);
  CHECK(cut->threads_of_host(2, 0) == 2u);
  auto round_trip = parse_train_options(to_args(*cut));
  REQUIRE(round_trip);
  CHECK(round_trip->host_threads == 3u);
  expect_failure(with_required({"--partition", "replicated", "--host-threads", "0"}), "host-threads");

  // A host keeps its parts, 8 a thread (one with -hs 1, a single decay).
  CHECK_FALSE(rep->work_queue());
  CHECK(rep->parts_for(1, 2) == 16u);
  CHECK(rep->parts_for(3, 1) == 24u);
  auto rep_hs = parse_train_options(with_required({"--partition", "replicated", "-hs", "1"}));
  REQUIRE(rep_hs);
  CHECK(rep_hs->parts_for(2, 4) == 2u);
}

TEST_CASE("options: noise words over word partitions (--negatives, --sampler, --word-partitions)", "[options]") {
  auto plain = parse_train_options(with_required({}));
  REQUIRE(plain);
  CHECK(plain->negatives_mode == 0u); // bns, word2vec's
  CHECK_FALSE(plain->hierarchical_sampler);
  CHECK(plain->word_partitions_of(4) == 4u); // one per shard
  auto tns =
    parse_train_options(with_required({"--negatives", "tns", "--sampler=hierarchical", "--word-partitions", "16"}));
  REQUIRE(tns);
  CHECK(tns->negatives_mode == static_cast<uint8_t>(negatives_mode::tns));
  CHECK(tns->hierarchical_sampler);
  CHECK(tns->word_partitions_of(4) == 16u);
  auto again = parse_train_options(to_args(*tns)); // a checkpoint's manifest
  REQUIRE(again);
  CHECK(again->negatives_mode == tns->negatives_mode);
  CHECK(again->hierarchical_sampler);
  CHECK(again->word_partitions == 16u);
  auto sns = parse_train_options(with_required({"--negatives=sns"}));
  REQUIRE(sns);
  CHECK(sns->negatives_mode == static_cast<uint8_t>(negatives_mode::sns));
  // Combinations that draw no noise words per pair on a shard.
  expect_failure(with_required({"--negatives", "tns", "--partition", "replicated"}), "--negatives tns");
  expect_failure(with_required({"--sampler", "hierarchical", "--shared-negatives", "1"}), "--sampler hierarchical");
  expect_failure(with_required({"--negatives", "sns", "-negative", "0", "-hs", "1"}), "--negatives sns");
}

TEST_CASE("options: --partition words (the Distributed negative sampling paper's word split)", "[options]") {
  auto words = parse_train_options(with_required({"--partition", "words", "--word-partitions", "8"}));
  REQUIRE(words);
  CHECK(words->word_split());
  CHECK_FALSE(words->replicated());
  auto again = parse_train_options(to_args(*words));
  REQUIRE(again);
  CHECK(again->word_split());
  CHECK(again->word_partitions == 8u);
  expect_failure(with_required({"--partition", "words", "--shards", "1"}), "--word-partitions");
  expect_failure(with_required({"--partition", "words", "--word-partitions", "8", "-cbow", "1"}), "--partition words");
  expect_failure(with_required({"--partition", "words", "--word-partitions", "8", "-hs", "1", "-negative", "0"}),
                 "--partition words");
  expect_failure(with_required({"--partition", "words", "--word-partitions", "8", "--fused", "0"}), "--fused 0");
  expect_failure(with_required({"--partition", "words", "--word-partitions", "8", "--shards", "2"}),
                 "the shards are the word partitions");
  // Over several shards, each holds the rows of its words (the cluster's
  // shard count, when --shards is not given, is checked where it is known).
  for (auto args : {std::vector<std::string>{"--partition", "words", "--shards", "4"},
                    std::vector<std::string>{"--partition", "words", "--shards", "4", "--word-partitions", "4",
                                             "--fused", "0", "--visits", "skipgram"},
                    std::vector<std::string>{"--partition", "words"}}) {
    auto o = parse_train_options(with_required(args));
    REQUIRE(o);
    CHECK(o->word_split());
    auto back = parse_train_options(to_args(*o));
    REQUIRE(back);
    CHECK(back->visits_per_skipgram == o->visits_per_skipgram);
  }
  expect_failure(with_required({"--visits", "skipgram"}), "--visits applies to --partition words only");
  expect_failure(with_required({"--partition", "words", "--shards", "2", "--visits", "pairs"}),
                 "option --visits expects example or skipgram, got 'pairs'");
}

TEST_CASE("options: failures name the option in one line", "[options]") {
  SECTION("unknown option") {
    expect_failure(with_required({"-sizee", "10"}), "sizee");
    expect_failure(with_required({"--", "1"}), "--");
  }
  SECTION("stray argument") {
    expect_failure(with_required({"corpus2.txt"}), "corpus2.txt");
    expect_failure(with_required({"-"}), "-");
  }
  SECTION("missing value") {
    expect_failure(with_required({"-size"}), "size");
    expect_failure({"-output", "v.txt", "-train"}, "train");
    expect_failure(with_required({"--shards"}), "shards");
  }
  SECTION("malformed numbers") {
    expect_failure(with_required({"-size", "abc"}), "size");
    expect_failure(with_required({"-size", "-5"}), "size");
    expect_failure(with_required({"-size", "1e99"}), "size");
    expect_failure(with_required({"-size", "1.5"}), "size");
    expect_failure(with_required({"-size", "12x"}), "size");
    expect_failure(with_required({"-size", " 12"}), "size");
    expect_failure(with_required({"-size", "+12"}), "size");
    expect_failure(with_required({"--size="}), "size");
    expect_failure(with_required({"-window", "99999999999999999999"}), "window");
    expect_failure(with_required({"-sample", "abc"}), "sample");
    expect_failure(with_required({"-alpha", "0.0.1"}), "alpha");
    expect_failure(with_required({"-min-count", "-1"}), "min-count");
    expect_failure(with_required({"-seed", "18446744073709551616"}), "seed");
    expect_failure(with_required({"--minibatch", "lots"}), "minibatch");
  }
  SECTION("not-a-number is not a number") {
    expect_failure(with_required({"-sample", "nan"}), "sample");
    expect_failure(with_required({"-alpha", "nan"}), "alpha");
    expect_failure(with_required({"--log-every", "nan"}), "log-every");
  }
  SECTION("values out of range") {
    expect_failure(with_required({"-size", "0"}), "size");
    expect_failure(with_required({"-size", "10001"}), "size");
    expect_failure(with_required({"-window", "0"}), "window");
    expect_failure(with_required({"-negative", "0"}), "negative");
    expect_failure(with_required({"-negative", "1001"}), "negative");
    expect_failure(with_required({"-sample", "1.5"}), "sample");
    expect_failure(with_required({"-sample", "-0.001"}), "sample");
    expect_failure(with_required({"-sample", "inf"}), "sample");
    expect_failure(with_required({"-min-count", "0"}), "min-count");
    expect_failure(with_required({"-iter", "0"}), "iter");
    expect_failure(with_required({"-alpha", "0"}), "alpha");
    expect_failure(with_required({"-alpha", "-0.1"}), "alpha");
    expect_failure(with_required({"-threads", "0"}), "threads");
    expect_failure(with_required({"--shards", "0"}), "shards");
    expect_failure(with_required({"--minibatch", "0"}), "minibatch");
    expect_failure(with_required({"--in-flight", "0"}), "in-flight");
    expect_failure(with_required({"--coalesce", "0"}), "coalesce");
    expect_failure(with_required({"--coalesce", "1025"}), "coalesce");
    expect_failure(with_required({"--interleave", "0"}), "interleave");
    expect_failure(with_required({"--interleave", "4097"}), "interleave");
    expect_failure(with_required({"--refresh-weights", "2"}), "refresh-weights");
    expect_failure(with_required({"--checkpoint-failures", "ignore"}), "checkpoint-failures");
    expect_failure(with_required({"--negatives", "ans"}), "negatives");
    expect_failure(with_required({"--sampler", "table"}), "sampler");
    expect_failure(with_required({"--word-partitions", "0"}), "word-partitions");
    expect_failure(with_required({"--log-every", "0"}), "log-every");
  }
  SECTION("flags take 0 or 1") {
    expect_failure(with_required({"-cbow", "2"}), "cbow");
    expect_failure(with_required({"-binary", "yes"}), "binary");
    expect_failure(with_required({"-cbow", ""}), "cbow");
  }
  SECTION("required options") {
    expect_failure({"-output", "v.txt"}, "-train");
    expect_failure({"-train", "c.txt"}, "-output");
    expect_failure({}, "-train");
  }
  SECTION("more shards than columns") {
    expect_failure(with_required({"-size", "10", "--shards", "11"}), "shards");
    expect_failure(with_required({"--shards", "101"}), "shards"); // default -size 100
  }
}

TEST_CASE("options: train_help lists every option with its default, within 80 columns", "[options]") {
  const auto help = train_help();
  for (const auto& name : all_options) {
    INFO("option " << name);
    CHECK(contains(help, "-" + name + " "));
  }
  size_t defaults = 0; // an entry ends with its [default]
  size_t start = 0;
  for (size_t end = help.find('\n'); end != std::string::npos; start = end + 1, end = help.find('\n', start)) {
    const std::string line = help.substr(start, end - start);
    INFO("line: " << line);
    CHECK(line.size() <= 80);
    defaults += !line.empty() && line.back() == ']';
  }
  CHECK(defaults >= all_options.size());
  // Every option the help shows is accepted by the parser.
  for (const auto& name : all_options) {
    if (name == "train" || name == "output")
      continue;
    auto o = parse_train_options(with_required({"-" + name}));
    REQUIRE_FALSE(o);
    CHECK_FALSE(contains(o.error(), "unknown"));
  }
}

TEST_CASE("options: every default is written once, in train_options, and --help shows it", "[options]") {
  const auto table = train_option_table();
  REQUIRE(table.size() >= 40);
  for (const auto& o : table) {
    INFO("option -" << o.name << ": default '" << o.default_value << "', note '" << o.note << "'");
    const bool aside = o.note.size() > 2 && o.note.front() == '(' && o.note.back() == ')';
    if (o.note.empty())
      CHECK(o.default_text == o.default_value); // shown as the struct holds it
    // A note explains a default, never writes its value a second time.
    if (!o.default_value.empty()) {
      CHECK(o.note != o.default_value);
      CHECK(o.note.rfind(o.default_value + " ", 0) != 0);
    }
    // A note that replaces the value stands for a computed default only.
    if (!o.note.empty() && !aside)
      CHECK((o.default_value == "0" || o.default_value.empty() || o.default_value == "auto"));
    // The help's default is the value (when there is one) and the note.
    if (!o.default_value.empty() && (o.note.empty() || aside))
      CHECK(o.default_text.rfind(o.default_value, 0) == 0);
  }
  // The computed defaults' notes come from the functions that compute them.
  auto note_of = [&](const std::string& name) {
    for (const auto& o : table)
      if (o.name == name)
        return o.default_text;
    return std::string{};
  };
  CHECK(note_of("alpha") == "0.025 (skip-gram), 0.05 (CBOW)");
  CHECK(note_of("in-flight") == "10 (-hs 1: 1)");
  CHECK(note_of("sync-rounds") == "auto (8 per learner thread)");
  CHECK(note_of("minibatch") == std::to_string(train_defaults().minibatch));
}

TEST_CASE("options: values from elsewhere than the parser are checked by the same table", "[options]") {
  train_options o;
  CHECK(check_option_values(o));
  o.window = 0; // -window takes 1..1000
  auto bad = check_option_values(o);
  REQUIRE_FALSE(bad);
  CHECK(contains(bad.error(), "-window"));
  CHECK(bad.code() == error_code::invalid_argument);
  o.window = 7;
  o.minibatch = 2000000;
  CHECK(contains(check_option_values(o).error(), "-minibatch"));
  o.minibatch = 32;
  CHECK(check_option_values(o));
}

TEST_CASE("options: --shared-negatives auto trains skip-gram with negative sampling through the window kernel",
          "[options]") {
  auto kernel = [](args_t extra) {
    auto o = parse_train_options(with_required(std::move(extra)));
    REQUIRE(o);
    return o->window_kernel();
  };
  CHECK(kernel({}));
  CHECK(kernel({"--shared-negatives", "auto", "--shards", "4"}));
  CHECK_FALSE(kernel({"--shared-negatives", "0"}));
  CHECK(kernel({"--shared-negatives", "1", "-cbow", "1"})); // asked for: CBOW trains as without it
  // Where it does not apply, or was not measured, auto keeps the exact kernel.
  CHECK_FALSE(kernel({"-cbow", "1"}));
  CHECK_FALSE(kernel({"-hs", "1", "-negative", "0"}));
  CHECK_FALSE(kernel({"-hs", "1"}));
  CHECK_FALSE(kernel({"-negative", "0", "-hs", "1"}));
  CHECK_FALSE(kernel({"--negatives", "tns"}));
  CHECK_FALSE(kernel({"--sampler", "hierarchical"}));
  CHECK(kernel({"--partition", "replicated"})); // each host trains as the fused path does
  // auto is no request: the word split and --negatives are not refused.
  CHECK(parse_train_options(with_required({"--partition", "words", "--shards", "2"})));
  CHECK(parse_train_options(with_required({"--negatives", "sns"})));
  CHECK_FALSE(parse_train_options(with_required({"--partition", "words", "--shards", "2", "--shared-negatives", "1"})));
  // It survives a checkpoint's manifest, and a bad value is one line.
  auto o = parse_train_options(with_required({"--shared-negatives", "0"}));
  REQUIRE(o);
  auto again = parse_train_options(to_args(*o));
  REQUIRE(again);
  CHECK(again->shared_negatives == 0);
  auto bad = parse_train_options(with_required({"--shared-negatives", "2"}));
  REQUIRE_FALSE(bad);
  CHECK(bad.error() == "option --shared-negatives expects 0, 1 or auto, got '2'");
}
