// --partition auto's cost model (src/model/partition_choice.hpp): the
// formulas on hand-computed numbers, and the choice.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <gridvec/core/options.hpp>
#include "src/model/partition_choice.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;

namespace {

partition_inputs dev_like(uint32_t shards, negatives_mode mode = negatives_mode::bns) {
  partition_inputs in;
  in.grouping = visit_grouping::skipgram; // the seed's counts, by hand below
  in.vocab = 14620;
  in.dim = 100;
  in.shards = shards;
  in.negative = 5;
  in.window = 5;
  in.negatives = mode;
  in.column_sampling_bytes = 60000;
  in.word_sampling_bytes = 3000;
  return in;
}

std::vector<std::string> with_required(std::vector<std::string> extra) {
  std::vector<std::string> a{"-train", "corpus.txt", "-output", "vectors.bin"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

} // namespace

TEST_CASE("partition model: pairs and vectors per pair", "[partition_choice]") {
  CHECK(pairs_per_word(5) == 6.0); // c uniform in 1..5: 2c is 6 on average
  CHECK(pairs_per_word(1) == 2.0);
  CHECK(vectors_per_pair(negatives_mode::bns, 5) == 12u); // 2(n+1)
  CHECK(vectors_per_pair(negatives_mode::sns, 5) == 4u);
  CHECK(vectors_per_pair(negatives_mode::tns, 5) == 2u);
}

TEST_CASE("partition model: bytes per trained word and memory per shard, by hand", "[partition_choice]") {
  const auto in = dev_like(4);
  // Columns: formula 7 both ways, 2 * 6 pairs * 6 (n+1) * 4 shards * 4 B =
  // 1152; word ids 2 * 4 shards * 4 B * (1 + 6 + 1) = 256.
  const auto c = columns_cost(in);
  CHECK(c.vector_bytes_per_word == Approx(1152));
  CHECK(c.id_bytes_per_word == Approx(256));
  CHECK(c.bytes_per_word() == Approx(1408));
  // 2 * V * ceil(100/4) * 4 B, and the whole table.
  CHECK(c.model_bytes == 2ull * 14620 * 25 * 4);
  CHECK(c.memory_per_shard() == 2ull * 14620 * 25 * 4 + 60000);
  // Words, bns: 6 pairs * 12 vectors * 3/4 crossing * 100 * 4 B = 21600.
  const auto w = words_cost(in);
  CHECK(w.vector_bytes_per_word == Approx(21600));
  CHECK(w.bytes_per_word() == Approx(21600));
  CHECK(w.model_bytes == 2ull * 3655 * 100 * 4); // ceil(14620 / 4) rows
  CHECK(w.memory_per_shard() == 2ull * 3655 * 100 * 4 + 3000);
  // sns 4 and tns 2 vectors a pair.
  CHECK(words_cost(dev_like(4, negatives_mode::sns)).bytes_per_word() == Approx(7200));
  CHECK(words_cost(dev_like(4, negatives_mode::tns)).bytes_per_word() == Approx(3600));
  // The busiest link: the learner node's, carrying the 4 shards' requests
  // (ids 4 * (6 + 2) and weights 6 * 6 * 4 per shard): 704 bytes.
  CHECK(c.busiest_link_bytes_per_word == Approx(704));
  CHECK(w.busiest_link_bytes_per_word == Approx(21600.0 / 4)); // a shard node's share of the exchange
  // A 1 Gbit/s link: 125e6 B/s, 704e6 / 125e6 = 5.632 s per million words.
  CHECK(c.wire_seconds_per_million(125e6) == Approx(5.632));
  CHECK(c.wire_seconds_per_million(0) < 0); // no link
  // One shard: nothing of the word split crosses.
  CHECK(words_cost(dev_like(1)).bytes_per_word() == 0.0);
  // --visits example (the default): tns at S = 2 visits the other shard if
  // any of an example's 6 pairs has its output there: 1 - 1/2^6 of the
  // examples, two vectors each: 2 * 0.984375 * 400 = 787.5 bytes (the dev
  // corpus measured 769 on a loopback cluster, docs/word-partitions.md).
  auto tns2 = dev_like(2, negatives_mode::tns);
  tns2.grouping = visit_grouping::example;
  CHECK(words_cost(tns2).bytes_per_word() == Approx(787.5));
  // bns at S = 4: 36 partitions drawn, 3 * (1 - (3/4)^36) other shards.
  auto bns4 = dev_like(4);
  bns4.grouping = visit_grouping::example;
  CHECK(words_cost(bns4).bytes_per_word() == Approx(2 * 3 * (1 - std::pow(0.75, 36)) * 400));
}

TEST_CASE("partition model: the busiest link decides, as the network lab measured", "[partition_choice]") {
  // docs/netlab.md, the dev corpus with one learner node: at 1 Gbit/s and
  // 100 Mbit/s the word split (bns) was faster at d = 100, S = 4 and slower
  // at S = 2 and at d = 300, though it sends more bytes in every cell.
  auto cell = [](uint32_t d, uint32_t s) {
    auto in = dev_like(s);
    in.grouping = visit_grouping::example;
    in.dim = d;
    return choose_partition(in);
  };
  const auto d100s4 = cell(100, 4);
  CHECK(d100s4.words.bytes_per_word() > d100s4.columns.bytes_per_word());
  CHECK(d100s4.words.busiest_link_bytes_per_word == Approx(2 * 3 * (1 - std::pow(0.75, 36)) * 400 / 4));
  CHECK(d100s4.chosen == partition_layout::words);
  CHECK(contains(d100s4.reason, "busiest link"));
  CHECK(cell(100, 2).chosen == partition_layout::columns); // 352 against 400
  CHECK(cell(300, 2).chosen == partition_layout::columns);
  CHECK(cell(300, 4).chosen == partition_layout::columns);
  // At 10 Gbit/s the cores bound: the lab's columns was faster there.
  auto fast = dev_like(4);
  fast.grouping = visit_grouping::example;
  fast.link_bytes_per_second = 12e9 / 8; // measured on the lab's 10 Gbit/s links
  const auto cores = choose_partition(fast);
  CHECK(cores.chosen == partition_layout::columns);
  CHECK(contains(cores.reason, "faster than the cores"));
  CHECK(compute_seconds_per_word(fast) == Approx(6 * 6 * 100 * 0.53e-9));
  fast.link_bytes_per_second = 1.05e9 / 8; // and at 1 Gbit/s the link
  CHECK(choose_partition(fast).chosen == partition_layout::words);
  // Learner nodes share the column split's bytes: with 4 of them the
  // learners' links carry a shard's worth each, and columns wins again.
  auto in = dev_like(4);
  in.grouping = visit_grouping::example;
  in.learner_nodes = 4;
  CHECK(choose_partition(in).chosen == partition_layout::columns);
}

TEST_CASE("partition model: the choice", "[partition_choice]") {
  SECTION("one shard: columns") {
    const auto c = choose_partition(dev_like(1, negatives_mode::tns));
    CHECK(c.chosen == partition_layout::columns);
    CHECK(contains(c.reason, "one shard"));
  }
  SECTION("fewer bytes: columns at d = 100") {
    const auto c = choose_partition(dev_like(4, negatives_mode::tns));
    CHECK(c.chosen == partition_layout::columns); // 1408 against 3600
    CHECK(contains(c.reason, "fewer bytes"));
  }
  SECTION("fewer bytes: words at small d and many shards") {
    auto in = dev_like(16, negatives_mode::tns);
    in.dim = 10;
    const auto c = choose_partition(in);
    // columns 2*6*6*16*4 + 2*16*4*8 = 5632; words 6*2*(15/16)*10*4 = 450.
    CHECK(c.columns.bytes_per_word() == Approx(5632));
    CHECK(c.words.bytes_per_word() == Approx(450));
    CHECK(c.chosen == partition_layout::words);
  }
  SECTION("one process: columns, whatever the bytes (none cross a network)") {
    auto in = dev_like(16, negatives_mode::tns);
    in.dim = 10;
    in.one_process = true;
    const auto c = choose_partition(in);
    CHECK(c.words.bytes_per_word() < c.columns.bytes_per_word());
    CHECK(c.chosen == partition_layout::columns);
    CHECK(contains(c.reason, "one process"));
  }
  SECTION("not allowed: columns, and why") {
    auto in = dev_like(16, negatives_mode::tns);
    in.dim = 10;
    in.words_refused = "-cbow 1";
    const auto c = choose_partition(in);
    CHECK(c.chosen == partition_layout::columns);
    CHECK(contains(c.reason, "-cbow 1"));
  }
  SECTION("a memory budget forces words at a large vocabulary") {
    // V = 100M, d = 100, S = 4: both hold 20 GB of rows a shard, but
    // columns also holds the whole vocabulary's table (distinct counts:
    // 20 B a word), words one partition's (a quarter of it).
    partition_inputs in;
    in.vocab = 100'000'000;
    in.dim = 100;
    in.shards = 4;
    in.column_sampling_bytes = 2'000'000'000;
    in.word_sampling_bytes = 500'000'000;
    in.memory_budget = 21'000'000'000;
    in.grouping = visit_grouping::skipgram; // so that bytes alone pick columns
    const auto c = choose_partition(in);
    CHECK(c.columns.memory_per_shard() == 22'000'000'000ull);
    CHECK(c.words.memory_per_shard() == 20'500'000'000ull);
    CHECK(c.columns.bytes_per_word() < c.words.bytes_per_word()); // bytes alone would pick columns
    CHECK(c.chosen == partition_layout::words);
    CHECK(contains(c.reason, "budget"));
    // No budget: bytes decide.
    in.memory_budget = 0;
    CHECK(choose_partition(in).chosen == partition_layout::columns);
    // Neither fits: bytes decide too.
    in.memory_budget = 1'000'000;
    CHECK(choose_partition(in).chosen == partition_layout::columns);
  }
}

TEST_CASE("partition model: what runs, and the job's refusals", "[partition_choice]") {
  auto o = parse_train_options(with_required({}));
  REQUIRE(o);
  CHECK(word_split_refusal(*o).empty());
  for (const auto& flags : std::vector<std::vector<std::string>>{
         {"-cbow", "1"}, {"-hs", "1"}, {"--fused", "0"}, {"--shared-negatives", "1"}, {"--partition", "replicated"}}) {
    auto refused = parse_train_options(with_required(flags));
    REQUIRE(refused);
    CHECK_FALSE(word_split_refusal(*refused).empty());
  }
  // One shard viewed as --word-partitions partitions, in one process; or
  // the shards themselves as the partitions.
  o->shards = 1;
  CHECK_FALSE(word_split_runnable(*o, true));
  o->word_partitions = 4;
  CHECK(word_split_runnable(*o, true));
  CHECK_FALSE(word_split_runnable(*o, false));
  o->shards = 4;
  CHECK(word_split_runnable(*o, false));
  o->word_partitions = 16;
  CHECK_FALSE(word_split_runnable(*o, false));
  o->word_partitions = 0;
  CHECK(word_split_runnable(*o, false));
  o->fused = false; // means nothing with shards of rows
  CHECK(word_split_runnable(*o, false));

  auto in = dev_like(16, negatives_mode::tns);
  in.dim = 10;
  const auto words = choose_partition(in);
  REQUIRE(words.chosen == partition_layout::words);
  std::string why;
  CHECK(resolve_partition(words, false, why) == partition_layout::columns);
  CHECK(contains(why, "the model picks words"));
  CHECK(resolve_partition(words, true, why) == partition_layout::words);
}

TEST_CASE("partition model: inputs from a job, and the explain table", "[partition_choice]") {
  auto o = parse_train_options(with_required({"--negatives", "tns", "--shards", "4", "--link-speed", "1gbit"}));
  REQUIRE(o);
  std::vector<uint64_t> counts;
  for (uint64_t c = 2000; c >= 1; --c)
    counts.push_back(c); // distinct counts: the tables grow with V
  const auto in = partition_inputs_of(*o, counts);
  CHECK(in.vocab == 2000u);
  CHECK(in.shards == 4u);
  CHECK(in.link_bytes_per_second == 125e6);
  CHECK(in.word_sampling_bytes > 0);
  CHECK(in.column_sampling_bytes > 3 * in.word_sampling_bytes); // every partition's against one
  const auto c = choose_partition(in);
  const auto text = explain_partition(in, c);
  CHECK(contains(text, "columns"));
  CHECK(contains(text, "words"));
  // tns at d = 100 over 4 shards: a shard node's link carries less than
  // the learner's would (the lab measured it faster, docs/netlab.md).
  CHECK(contains(text, "choice: words"));
  CHECK(contains(text, "5.632")); // busiest link's seconds per 1M words of columns at 1 Gbit/s
  CHECK(contains(text, "--visits example"));
}

TEST_CASE("options: --partition auto, --explain, --link-speed", "[options][partition_choice]") {
  auto dflt = parse_train_options(with_required({}));
  REQUIRE(dflt);
  CHECK(dflt->partition_auto); // the default
  CHECK_FALSE(dflt->word_split());
  CHECK_FALSE(dflt->replicated());
  CHECK_FALSE(dflt->explain);
  CHECK(dflt->link_speed == 0.0);
  auto columns = parse_train_options(with_required({"--partition", "columns"}));
  REQUIRE(columns);
  CHECK_FALSE(columns->partition_auto);
  auto back =
    parse_train_options(with_required({"--partition", "words", "--word-partitions", "4", "--partition=auto"}));
  REQUIRE(back);
  CHECK(back->partition_auto);
  CHECK_FALSE(back->word_split());

  auto ex = parse_train_options(with_required({"--explain", "--link-speed", "100mbit"}));
  REQUIRE(ex);
  CHECK(ex->explain);
  CHECK(ex->link_speed == 12.5e6);
  auto off = parse_train_options(with_required({"--explain=0"}));
  REQUIRE(off);
  CHECK_FALSE(off->explain);
  // A switch as the last argument, and rates in every spelling.
  auto last = parse_train_options({"-train", "c.txt", "-output", "v.txt", "-explain"});
  REQUIRE(last);
  CHECK(last->explain);
  for (auto [rate, bytes] : {std::pair{"10gbit", 1.25e9}, std::pair{"1Gbit", 125e6}, std::pair{"800kbit", 1e5},
                             std::pair{"125000000", 125e6}, std::pair{"1.5e6", 1.5e6}}) {
    auto r = parse_train_options(with_required({"--link-speed", rate}));
    REQUIRE(r);
    CHECK(r->link_speed == Approx(bytes));
  }
  // Through a checkpoint's manifest and back.
  auto again = parse_train_options(to_args(*ex));
  REQUIRE(again);
  CHECK(again->explain);
  CHECK(again->link_speed == 12.5e6);
  CHECK(again->partition_auto);
  auto again_columns = parse_train_options(to_args(*columns));
  REQUIRE(again_columns);
  CHECK_FALSE(again_columns->partition_auto);

  for (const auto& [args, name] : std::vector<std::pair<std::vector<std::string>, std::string>>{
         {{"--partition", "rows"}, "--partition"},
         {{"--partition", ""}, "--partition"},
         {{"--link-speed", "fast"}, "--link-speed"},
         {{"--link-speed", "0"}, "--link-speed"},
         {{"--link-speed", "-1gbit"}, "--link-speed"},
         {{"--link-speed", "gbit"}, "--link-speed"},
         {{"--link-speed", "1gbps"}, "--link-speed"},
         {{"--explain=yes"}, "explain"},
       }) {
    auto bad = parse_train_options(with_required(args));
    REQUIRE_FALSE(bad);
    INFO(bad.error());
    CHECK(contains(bad.error(), name));
    CHECK_FALSE(contains(bad.error(), "\n"));
  }
  auto missing = parse_train_options(with_required({"--link-speed"}));
  REQUIRE_FALSE(missing);
  CHECK(contains(missing.error(), "link-speed"));
}
