#include "src/model/memory_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "src/model/shard_placement.hpp"
#include "src/util/ceil_div.hpp"
#include "src/util/human_units.hpp"

namespace gridvec {

namespace {

constexpr uint64_t float_bytes = 4;

// Huffman paths are about log2(V) nodes long: a point (4 bytes) and a code
// (1) each, and an offset per word.
uint64_t huffman_bytes(uint64_t vocab) {
  const uint64_t depth = vocab > 1 ? static_cast<uint64_t>(std::ceil(std::log2(static_cast<double>(vocab)))) + 1 : 1;
  return vocab * (8 + depth * 5);
}

std::vector<shard_host> hosts_of(const std::vector<memory_node>& nodes) {
  std::vector<shard_host> hosts;
  for (const auto& n : nodes)
    hosts.push_back({n.name, n.shard_capacity, n.standby});
  return hosts;
}

std::string what_it_holds(const memory_need& n) {
  std::string out;
  auto part = [&](const std::string& text) { out += (out.empty() ? "" : ", ") + text; };
  if (n.shards > 0)
    part(std::to_string(n.shards) + (n.shards == 1 ? " shard: model " : " shards: model ") + human_bytes(n.model) +
         ", tables " + human_bytes(n.tables));
  if (n.learners > 0)
    part(std::to_string(n.learners) + (n.learners == 1 ? " learner " : " learners ") + human_bytes(n.learner_buffers));
  if (n.vocabulary > 0)
    part("vocabulary " + human_bytes(n.vocabulary));
  part("process " + human_bytes(n.process));
  return out;
}

memory_need need_of(const memory_node& node, const memory_job& job, const std::vector<uint32_t>& shards_here) {
  memory_need need;
  need.shards = static_cast<uint32_t>(shards_here.size());
  need.learners = node.learners;
  if (need.shards == 0 && need.learners == 0 && !node.holds_words && !node.exports && !node.vocabulary_partition &&
      !node.coordinates)
    return need; // it holds nothing of this job
  need.process = process_bytes;
  for (uint32_t s : shards_here) {
    need.model += shard_model_bytes(job, s);
    need.tables += shard_table_bytes(job);
  }
  need.learner_buffers = uint64_t{node.learners} * learner_bytes(job);
  if (need.shards > 0 || need.learners > 0)
    need.vocabulary += vocabulary_counts_bytes(job);
  if (node.holds_words)
    need.vocabulary += vocabulary_bytes(job);
  if (node.vocabulary_partition)
    need.vocabulary += vocabulary_partition_bytes(job);
  if (node.exports)
    need.process += exporter_bytes(job);
  if (node.coordinates)
    need.process += coordinator_bytes(job);
  return need;
}

} // namespace

memory_job memory_job_of(const train_options& o, uint64_t vocab, uint64_t vocab_file_bytes) {
  memory_job job;
  job.vocab = vocab;
  job.vocab_file_bytes = vocab_file_bytes;
  job.dim = o.size;
  job.shards = std::max(1u, o.shards);
  job.negative = o.negative;
  job.window = o.window;
  job.minibatch = o.minibatch;
  job.in_flight = o.in_flight_window();
  job.hs = o.hs;
  job.classes = o.classes;
  job.word_split = o.word_split();
  job.replicated = o.replicated();
  job.partitioned_sampler = o.partitioned_sampler() || o.negatives_mode != 0;
  job.word_partitions = o.word_partitions_of(job.shards);
  return job;
}

uint64_t shard_model_bytes(const memory_job& job, uint32_t s) {
  const uint64_t output_rows = (job.negative > 0 ? job.vocab : 0) + (job.hs && job.vocab > 0 ? job.vocab - 1 : 0);
  const uint64_t rows = job.vocab + output_rows;
  const uint32_t shards = std::max(1u, job.shards);
  if (job.word_split && shards > 1) // whole rows of the words s, s + S, ...
    return ceil_div(rows, shards) * job.dim * float_bytes;
  // d columns split as evenly as they go: the first d mod S shards take one more.
  const uint64_t columns = job.dim / shards + (s < job.dim % shards ? 1 : 0);
  return rows * columns * float_bytes;
}

uint64_t shard_table_bytes(const memory_job& job) {
  uint64_t bytes = 0;
  if (job.negative > 0) {
    const uint64_t p = std::max(1u, job.word_partitions);
    if (job.word_split && job.shards > 1)
      bytes = (ceil_div(job.vocab, p) + p) * alias_entry_bytes; // its own partition's
    else if (job.partitioned_sampler)
      bytes = (2 * job.vocab + p * p) * alias_entry_bytes; // every partition's, and the whole
    else
      bytes = job.vocab * alias_entry_bytes;
  }
  if (job.hs)
    bytes += huffman_bytes(job.vocab);
  return bytes;
}

uint64_t vocabulary_bytes(const memory_job& job) {
  return job.vocab * vocabulary_bytes_per_word + job.vocab_file_bytes;
}

namespace {

// A partition's share of V words hashed over P: V / P and four standard
// deviations of the binomial count (V/P words are a partition's on
// average; the deviation is about sqrt(V/P)).
uint64_t partition_share(const memory_job& job) {
  const uint64_t p = std::max(1u, job.vocab_partitions);
  const uint64_t mean = ceil_div(job.vocab, p);
  if (p == 1)
    return mean;
  return std::min(job.vocab, mean + 4 * static_cast<uint64_t>(std::ceil(std::sqrt(static_cast<double>(mean)))));
}

// The file's bytes a word (its text, its count and the separators).
double file_bytes_per_word(const memory_job& job) {
  return job.vocab > 0 ? static_cast<double>(job.vocab_file_bytes) / static_cast<double>(job.vocab) : 0.0;
}

} // namespace

uint64_t vocabulary_partition_bytes(const memory_job& job) {
  const uint64_t share = partition_share(job);
  return share * partition_bytes_per_word +
         static_cast<uint64_t>(std::ceil(2.0 * file_bytes_per_word(job) * static_cast<double>(share)));
}

uint64_t coordinator_bytes(const memory_job& job) {
  // A page's words back to back with their lengths, counts and first
  // places (count_table), held as received and as read.
  const uint64_t page = std::min(vocabulary_page_words, partition_share(job));
  const auto page_bytes =
    static_cast<uint64_t>(std::ceil((20.0 + file_bytes_per_word(job)) * static_cast<double>(page)));
  return 2 * uint64_t{std::max(1u, job.vocab_partitions)} * page_bytes;
}

uint64_t vocabulary_counts_bytes(const memory_job& job) { return job.vocab * counts_bytes_per_word; }

uint64_t exporter_bytes(const memory_job& job) {
  const uint64_t block = uint64_t{2} * export_block_words * job.dim * float_bytes;
  if (job.classes == 0)
    return block;
  // actors/exporter_actor.cpp's write_classes and src/model/word_classes.cpp.
  const uint64_t vectors = job.vocab * job.dim * float_bytes;
  const uint64_t classes = job.vocab * sizeof(uint32_t) + uint64_t{job.classes} * (job.dim * float_bytes + 8);
  return block + vectors + classes;
}

uint64_t learner_bytes(const memory_job& job) {
  if (job.replicated) {
    // The model it trains and the model as of the last round, and a
    // round's buffers at their most: its changes as rows and as a message,
    // and the rows it combines or receives and their message (each at
    // most every row of the model).
    memory_job whole = job;
    whole.shards = 1;
    whole.word_split = false;
    return (2 + replicated_round_models) * shard_model_bytes(whole, 0) + shard_table_bytes(whole);
  }
  // A minibatch's pairs (up to 2w per word) each with n + 1 targets (and a
  // Huffman path): the requests' ids and, per shard, the replies' floats,
  // the sums and the gradients.
  const uint64_t pairs = uint64_t{job.minibatch} * 2 * job.window;
  const uint64_t depth =
    job.hs && job.vocab > 1 ? static_cast<uint64_t>(std::log2(static_cast<double>(job.vocab))) + 1 : 0;
  const uint64_t targets = pairs * (job.negative + 1 + depth);
  const uint64_t per_minibatch = targets * float_bytes * (job.shards + 2) + pairs * 2 * 4;
  // Its subsampling thresholds, one per word, beside the counts.
  uint64_t bytes = per_minibatch * job.in_flight + learner_reading_bytes + job.vocab * counts_bytes_per_word;
  if (job.hs)
    bytes += huffman_bytes(job.vocab);
  return bytes;
}

memory_plan plan_memory(const std::vector<memory_node>& nodes, const memory_job& job) {
  memory_plan plan;
  plan.shards = job.shards;
  auto hosts = hosts_of(nodes);
  auto placed = place_shards(hosts, job.shards);
  if (!placed) {
    plan.refusal = placed.error();
    return plan;
  }
  plan.shard_node = std::move(*placed);
  std::vector<std::vector<uint32_t>> here(nodes.size());
  for (uint32_t s = 0; s < plan.shard_node.size(); ++s)
    here[plan.shard_node[s]].push_back(s);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    if (node.standby) { // as it would be after restoring its declared shards (the largest slices)
      std::vector<uint32_t> restored;
      for (uint32_t s = 0; s < std::min(node.shard_capacity, job.shards); ++s)
        restored.push_back(s);
      plan.need.push_back(need_of(node, job, restored));
      const auto& n = plan.need.back();
      if (node.budget > 0 && n.total() > node.budget && plan.standby_warning.empty())
        plan.standby_warning = "standby node " + node.name + " would need " + human_bytes(n.total()) + " to restore " +
                               std::to_string(n.shards) + (n.shards == 1 ? " shard" : " shards") +
                               ", more than its memory budget of " + human_bytes(node.budget) +
                               ": a lost shard node could not be replaced there";
      continue;
    }
    plan.need.push_back(need_of(node, job, here[i]));
    const auto& n = plan.need.back();
    if (node.budget > 0 && n.total() > node.budget && plan.refusal.empty())
      plan.refusal = "node " + node.name + " needs " + human_bytes(n.total()) + " but its memory budget is " +
                     human_bytes(node.budget) +
                     (node.budget_configured ? " (its `memory` in the cluster config)" : " (what its OS reports)") +
                     ": " + what_it_holds(n) + "; give it more memory, or spread the job over more nodes";
  }
  return plan;
}

memory_plan choose_shards(const std::vector<memory_node>& nodes, memory_job job, uint32_t least, uint32_t most) {
  most = std::max(most, least);
  memory_plan first;
  for (uint32_t s = most; s >= std::max(1u, least); --s) {
    if (job.word_partitions == job.shards) // the partitions follow the shards unless given
      job.word_partitions = s;
    job.shards = s;
    auto plan = plan_memory(nodes, job);
    if (plan.fits())
      return plan;
    if (s == most)
      first = std::move(plan);
    if (s == 1)
      break;
  }
  return first;
}

std::string explain_memory(const std::vector<memory_node>& nodes, const memory_plan& plan) {
  std::string out = "memory plan: " + std::to_string(plan.shards) + (plan.shards == 1 ? " shard" : " shards") + "\n";
  char buf[320];
  auto row = [&](const std::string& node, const std::string& holds, const std::string& model, const std::string& tables,
                 const std::string& vocab, const std::string& learners, const std::string& need,
                 const std::string& budget) {
    std::snprintf(buf, sizeof buf, "%-14s %-18s %11s %11s %11s %11s %11s %11s\n", node.c_str(), holds.c_str(),
                  model.c_str(), tables.c_str(), vocab.c_str(), learners.c_str(), need.c_str(), budget.c_str());
    out += buf;
  };
  row("node", "holds", "model", "tables", "vocabulary", "learners", "need", "budget");
  for (size_t i = 0; i < plan.need.size() && i < nodes.size(); ++i) {
    const auto& n = plan.need[i];
    std::string holds = !nodes[i].standby ? "" : n.shards > 0 ? "standby " + std::to_string(n.shards) + "s" : "standby";
    if (!nodes[i].standby) {
      if (n.shards > 0)
        holds += std::to_string(n.shards) + "s";
      if (n.learners > 0)
        holds += (holds.empty() ? "" : " ") + std::to_string(n.learners) + "l";
      if (holds.empty())
        holds = "-";
    }
    const std::string budget = nodes[i].budget == 0
                                 ? std::string{"unknown"}
                                 : human_bytes(nodes[i].budget) + (nodes[i].budget_configured ? "" : "*");
    row(nodes[i].name, holds, human_bytes(n.model), human_bytes(n.tables), human_bytes(n.vocabulary),
        human_bytes(n.learner_buffers), human_bytes(n.total()), budget);
  }
  out += "(need = model + tables + vocabulary + learners + " + human_bytes(process_bytes) +
         " per process, the exporter's rows where it runs and the coordinator's pages of words; s: shards, l: "
         "learners; * what the node's OS reports, no `memory` in the config)\n";
  if (!plan.standby_warning.empty())
    out += "warning: " + plan.standby_warning + "\n";
  out += plan.fits() ? "fits: every node's need is within its budget\n" : "refused: " + plan.refusal + "\n";
  return out;
}

} // namespace gridvec
