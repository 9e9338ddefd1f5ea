// Memory sized before it is taken (src/model/memory_plan.hpp): each node's
// need against its budget, the refusal line, and the choice of S.
#include <catch2/catch.hpp>

#include "src/model/memory_plan.hpp"
#include "src/util/human_units.hpp"

using namespace gridvec;

namespace {

constexpr uint64_t MiB = uint64_t{1} << 20, GiB = uint64_t{1} << 30;

// The example cluster's shape: a coordinator, two shard nodes, two learner
// nodes and a standby shard node.
std::vector<memory_node> example_nodes(uint64_t shard_budget) {
  return {
    {"coord", 8 * GiB, true, 0, false, 0, true, true, true, true},
    {"shard-a", shard_budget, true, 1, false, 0, false},
    {"shard-b", shard_budget, true, 1, false, 0, false},
    {"learn-a", 8 * GiB, false, 0, false, 1, false},
    {"learn-b", 8 * GiB, false, 0, false, 1, false},
    {"spare", shard_budget, true, 1, true, 0, false},
  };
}

memory_job million_words(uint32_t shards) {
  train_options o;
  o.size = 100;
  o.shards = shards;
  return memory_job_of(o, 1'000'000, 20'000'000);
}

} // namespace

TEST_CASE("memory plan: each kind of need by its formula", "[memory_plan]") {
  auto job = million_words(2);
  // An input and an output matrix of V rows, d/S = 50 columns each.
  CHECK(shard_model_bytes(job, 0) == 2'000'000ull * 50 * 4);
  CHECK(shard_model_bytes(job, 1) == 2'000'000ull * 50 * 4);
  job.dim = 101; // the first d mod S shards take one column more
  CHECK(shard_model_bytes(job, 0) == 2'000'000ull * 51 * 4);
  CHECK(shard_model_bytes(job, 1) == 2'000'000ull * 50 * 4);
  job.dim = 100;
  CHECK(shard_table_bytes(job) == 1'000'000ull * alias_entry_bytes);
  CHECK(vocabulary_bytes(job) == 1'000'000ull * vocabulary_bytes_per_word + 20'000'000ull);
  // One partition holds every word, paged out: each twice, and the file's bytes twice.
  CHECK(vocabulary_partition_bytes(job) == 1'000'000ull * partition_bytes_per_word + 2 * 20'000'000ull);
  // Two: half the words each and four standard deviations (sqrt(500,000) = 707.1).
  job.vocab_partitions = 2;
  CHECK(vocabulary_partition_bytes(job) == 502'832ull * partition_bytes_per_word + 2 * 20 * 502'832ull);
  // The coordinator writing the vocabulary: a page from each partition, twice.
  CHECK(coordinator_bytes(job) == 2 * 2 * vocabulary_page_words * (20 + 20));
  job.vocab_partitions = 1;
  CHECK(vocabulary_counts_bytes(job) == 1'000'000ull * 8);
  job.word_split = true; // whole rows of every other word
  CHECK(shard_model_bytes(job, 0) == 1'000'000ull * 100 * 4);
  job.word_split = false;
  job.replicated = true; // a learner holds the model twice (now and as last synchronised) and a round's buffers
  CHECK(learner_bytes(job) ==
        (2 + replicated_round_models) * 2'000'000ull * 100 * 4 + 1'000'000ull * alias_entry_bytes);
}

TEST_CASE("memory plan: a job that does not fit is refused with one line", "[memory_plan]") {
  auto plan = plan_memory(example_nodes(256 * MiB), million_words(2));
  REQUIRE(!plan.fits());
  CHECK(plan.refusal == "node shard-a needs 448.2 MiB but its memory budget is 256.0 MiB (its `memory` in the cluster "
                        "config): 1 shard: model 381.5 MiB, tables 19.1 MiB, vocabulary 7.6 MiB, process 40.0 MiB; "
                        "give it more memory, or spread the job over more nodes");
  // What the line adds up: 400,000,000 + 20,000,000 + 8,000,000 bytes (the
  // counts, not the words) + the process.
  CHECK(plan.need[1].total() == 400'000'000ull + 20'000'000ull + 8'000'000ull + process_bytes);
  // The same job on nodes of 1 GiB fits, and every shard is on its node.
  auto fits = plan_memory(example_nodes(GiB), million_words(2));
  CHECK(fits.fits());
  CHECK(fits.shard_node == std::vector<uint32_t>{1, 2});
  CHECK(fits.need[1].shards == 1);
  CHECK(fits.need[3].learners == 1);
  CHECK(fits.need[3].model == 0);
  CHECK(fits.standby_warning.empty());
  // A budget the OS reported says so.
  auto nodes = example_nodes(256 * MiB);
  nodes[1].budget_configured = false;
  CHECK_THAT(plan_memory(nodes, million_words(2)).refusal, Catch::Contains("(what its OS reports)"));
  // An unknown budget is not checked.
  CHECK(plan_memory(example_nodes(0), million_words(2)).fits());
}

TEST_CASE("memory plan: more shards than the nodes declare is refused by the placement rule", "[memory_plan]") {
  auto plan = plan_memory(example_nodes(8 * GiB), million_words(4));
  CHECK(plan.refusal.rfind("--shards 4: the shard nodes declare room for 2 (shard-a 1, shard-b 1)", 0) == 0);
}

TEST_CASE("memory plan: a standby too small to restore a shard is a warning", "[memory_plan]") {
  auto nodes = example_nodes(GiB);
  nodes[5].budget = 100 * MiB;
  auto plan = plan_memory(nodes, million_words(2));
  CHECK(plan.fits());
  CHECK(plan.standby_warning == "standby node spare would need 448.2 MiB to restore 1 shard, more than its memory "
                                "budget of 100.0 MiB: a lost shard node could not be replaced there");
}

TEST_CASE("memory plan: without --shards, the most shards that fit", "[memory_plan]") {
  // One node declaring 4 shards, V = 10M, d = 8: the model (640 MB in all)
  // splits over the shards, but every shard holds the whole sampling table
  // (200 MB), so fewer shards need less.
  train_options o;
  o.size = 8;
  auto job = memory_job_of(o, 10'000'000, 200'000'000);
  // What does not depend on S, with a learner's buffers at their largest (S = 4).
  auto at_four = job;
  at_four.shards = 4;
  const uint64_t fixed = vocabulary_bytes(job) + vocabulary_partition_bytes(job) + coordinator_bytes(job) +
                         vocabulary_counts_bytes(job) + process_bytes + exporter_bytes(job) + learner_bytes(at_four);
  auto box = [&](uint64_t budget) {
    return std::vector<memory_node>{{"box", budget, true, 4, false, 1, true, true, true, true}};
  };
  const uint64_t model = 2 * 10'000'000ull * 8 * 4, table = 10'000'000ull * alias_entry_bytes;
  // Room for the model and two tables: S = 2.
  auto two = choose_shards(box(fixed + model + 2 * table + MiB), job, 1, 4);
  CHECK(two.fits());
  CHECK(two.shards == 2);
  // Room for everything: all four the node declares.
  auto four = choose_shards(box(fixed + model + 4 * table), job, 1, 4);
  CHECK(four.shards == 4);
  CHECK(four.fits());
  // Room for nothing: the plan at the most, refused.
  auto none = choose_shards(box(fixed), job, 1, 4);
  CHECK(none.shards == 4);
  CHECK(!none.fits());
  CHECK_THAT(none.refusal, Catch::StartsWith("node box needs "));
  // Two nodes of two shards each, with room for half the model and two
  // tables: S = 4, two shards on each.
  std::vector<memory_node> pair{{"a", fixed + model / 2 + 2 * table, true, 2, false, 1, true, true, true, true},
                                {"b", fixed + model / 2 + 2 * table, true, 2, false, 0, false}};
  auto spread = choose_shards(pair, job, 1, 4);
  CHECK(spread.shards == 4);
  CHECK(spread.shard_node == std::vector<uint32_t>{0, 1, 0, 1});
  // The least: a word split never goes below 2 shards.
  CHECK(choose_shards(box(fixed), job, 2, 4).shards == 4);
}

TEST_CASE("memory plan: --explain's table", "[memory_plan]") {
  auto plan = plan_memory(example_nodes(GiB), million_words(2));
  auto nodes = example_nodes(GiB);
  nodes[3].budget_configured = false;
  const auto table = explain_memory(nodes, plan);
  CHECK_THAT(table, Catch::StartsWith("memory plan: 2 shards\nnode           holds"));
  CHECK_THAT(
    table,
    Catch::Contains(
      "\nshard-a        1s                   381.5 MiB    19.1 MiB     7.6 MiB         0 B   448.2 MiB    1.00 GiB\n"));
  CHECK_THAT(table, Catch::Contains("\nlearn-a        1l"));
  CHECK_THAT(table, Catch::Contains("8.00 GiB*\n"));
  CHECK_THAT(table, Catch::Contains("\nspare          standby 1s"));
  CHECK_THAT(table, Catch::EndsWith("fits: every node's need is within its budget\n"));
}

TEST_CASE("memory plan: sizes as the config writes them", "[memory_plan]") {
  uint64_t b = 0;
  CHECK((parse_byte_size("2G", b) && b == 2 * GiB));
  CHECK((parse_byte_size("0.5GiB", b) && b == GiB / 2));
  CHECK(!parse_byte_size("", b));
  CHECK(!parse_byte_size(".5G", b));
  CHECK(!parse_byte_size("5P", b));
}

TEST_CASE("memory plan: an exporter holds its block, not the words; with -classes every input vector",
          "[memory_plan]") {
  // A coordinator node that only coordinates, and an exporter node apart.
  std::vector<memory_node> nodes{{"coord", 8 * GiB, true, 0, false, 0, true, false, false, true},
                                 {"shard", 8 * GiB, true, 1, false, 1, false, false},
                                 {"export", 256 * MiB, true, 0, false, 0, false, true}};
  auto job = million_words(1);
  auto plan = plan_memory(nodes, job);
  REQUIRE(plan.fits());
  CHECK(plan.need[0].vocabulary == vocabulary_bytes(job)); // the shell's queries
  CHECK(plan.need[0].process == process_bytes + coordinator_bytes(job));
  CHECK(plan.need[2].vocabulary == 0);
  CHECK(plan.need[2].process == process_bytes + 2 * export_block_words * 100 * 4);

  // -classes 50: the K-means holds all V x d input floats and a class per word.
  train_options o;
  o.size = 100;
  o.classes = 50;
  job = memory_job_of(o, 1'000'000, 20'000'000);
  CHECK(exporter_bytes(job) ==
        2 * export_block_words * 100 * 4 + 1'000'000ull * 100 * 4 + 1'000'000ull * 4 + 50ull * (100 * 4 + 8));
  plan = plan_memory(nodes, job);
  REQUIRE(!plan.fits());
  CHECK(plan.refusal.rfind("node export needs ", 0) == 0);
}

TEST_CASE("memory plan: a vocabulary node holds its partition's words; a coordinator alone is a process",
          "[memory_plan]") {
  // V = 10^8 ids over two learner nodes that count a partition each (the
  // scale lab's cluster): each is charged half the words, not all.
  train_options o;
  o.size = 8;
  o.shards = 4;
  auto job = memory_job_of(o, 100'000'000, 2'400'000'000);
  job.vocab_partitions = 2;
  std::vector<memory_node> nodes{{"coord", 0, false, 0, false, 0, false, false, false, true}};
  for (int i = 0; i < 4; ++i)
    nodes.push_back({"shard" + std::to_string(i), 0, false, 1, false, 0, false, false});
  for (int i = 0; i < 2; ++i)
    nodes.push_back({"learn" + std::to_string(i), 0, false, 0, false, 1, false, true, true, false});
  auto plan = plan_memory(nodes, job);
  REQUIRE(plan.fits());
  const uint64_t share = 50'000'000 + 4 * 7072; // sqrt(5e7) = 7071.07
  CHECK(plan.need[5].vocabulary == vocabulary_counts_bytes(job) + share * partition_bytes_per_word + 2 * 24 * share);
  CHECK(plan.need[5].vocabulary < 7 * GiB); // every word, 176 bytes each and the file twice, was 22 GB
  // The coordinator holds no word: the process and the pages it writes the vocabulary from.
  CHECK(plan.need[0].vocabulary == 0);
  CHECK(plan.need[0].total() == process_bytes + 2 * 2 * vocabulary_page_words * (20 + 24));
  // A node with nothing of the job needs nothing.
  nodes[0].coordinates = false;
  CHECK(plan_memory(nodes, job).need[0].total() == 0);
}
