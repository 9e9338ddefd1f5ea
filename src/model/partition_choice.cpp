#include "src/model/partition_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "src/util/ceil_div.hpp"
#include "src/util/human_units.hpp"

namespace gridvec {

namespace {

// What a float and a word id take in a message.
constexpr double wire_float_bytes = 4, wire_id_bytes = 4;

std::string format(const char* fmt, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

} // namespace

const char* partition_layout_name(partition_layout l) { return l == partition_layout::words ? "words" : "columns"; }

double pairs_per_word(uint32_t window) { return static_cast<double>(window) + 1; }

uint32_t vectors_per_pair(negatives_mode mode, uint32_t negative) {
  switch (mode) {
    case negatives_mode::sns: return 4;
    case negatives_mode::tns: return 2;
    case negatives_mode::bns: break;
  }
  return 2 * (negative + 1);
}

layout_cost columns_cost(const partition_inputs& in) {
  const double pairs = pairs_per_word(in.window), shards = std::max(1u, in.shards);
  layout_cost c;
  // Formula (7), w·(n+1)·S·4 each way, with w the pairs per trained word.
  c.vector_bytes_per_word = 2 * pairs * (in.negative + 1) * shards * wire_float_bytes;
  // The input word, its pairs' outputs and the seed, to and from each shard.
  c.id_bytes_per_word = 2 * shards * wire_id_bytes * (1 + pairs + 1);
  c.model_bytes = 2 * in.vocab * ceil_div(in.dim, std::max(1u, in.shards)) * 4;
  c.sampling_bytes = in.column_sampling_bytes;
  // Per shard: requests carry the ids and the weights, replies the dot
  // products. A learner node's link carries S / L shards' worth; a shard
  // node's link its own shard's (the busier where learners outnumber
  // shards).
  const double requests = wire_id_bytes * (pairs + 2) + pairs * (in.negative + 1) * wire_float_bytes;
  const double replies = pairs * (in.negative + 1) * wire_float_bytes;
  c.busiest_link_bytes_per_word =
    in.shards > 1 ? std::max(requests, replies) * std::max(1.0, shards / std::max(1u, in.learner_nodes)) : 0;
  return c;
}

uint32_t partitions_per_pair(negatives_mode mode, uint32_t negative) {
  switch (mode) {
    case negatives_mode::sns: return 2;
    case negatives_mode::tns: return 1;
    case negatives_mode::bns: break;
  }
  return negative + 1;
}

layout_cost words_cost(const partition_inputs& in) {
  const double shards = std::max(1u, in.shards);
  const double crossing = 1 - 1 / shards; // of the visits, to another shard's words
  layout_cost c;
  if (in.grouping == visit_grouping::skipgram) {
    c.vector_bytes_per_word =
      pairs_per_word(in.window) * vectors_per_pair(in.negatives, in.negative) * crossing * in.dim * wire_float_bytes;
  } else {
    // An example visits each other shard its targets fall in once.
    const double m = pairs_per_word(in.window) * partitions_per_pair(in.negatives, in.negative);
    const double remote = (shards - 1) * (1 - std::pow(1 - 1 / shards, m));
    c.vector_bytes_per_word = 2 * remote * in.dim * wire_float_bytes;
  }
  // Each shard node sends 1/S of the exchange (its batches and its
  // replies); a learner node sends the word ids of its share of examples.
  const double ids = wire_id_bytes * (pairs_per_word(in.window) + 2);
  c.busiest_link_bytes_per_word =
    in.shards > 1 ? std::max(c.vector_bytes_per_word / shards, ids / std::max(1u, in.learner_nodes)) : 0;
  c.model_bytes = 2 * ceil_div(in.vocab, std::max(1u, in.shards)) * in.dim * 4;
  c.sampling_bytes = in.word_sampling_bytes;
  return c;
}

double compute_seconds_per_word(const partition_inputs& in) {
  return pairs_per_word(in.window) * (in.negative + 1) * in.dim * compute_seconds_per_float;
}

partition_choice choose_partition(const partition_inputs& in) {
  partition_choice out;
  out.columns = columns_cost(in);
  out.words = words_cost(in);
  auto pick = [&](partition_layout l, std::string why) {
    out.chosen = l;
    out.reason = std::move(why);
    return out;
  };
  if (!in.words_refused.empty())
    return pick(partition_layout::columns, "the job cannot be split by word: " + in.words_refused);
  if (in.shards <= 1)
    return pick(partition_layout::columns,
                "one shard holds every word's rows either way; columns is word2vec's exact algorithm");
  if (in.one_process)
    return pick(partition_layout::columns,
                "one process: no bytes cross a network, and learners train the columns in place (the fused path)");
  if (in.memory_budget > 0) {
    const bool columns_fit = out.columns.memory_per_shard() <= in.memory_budget;
    const bool words_fit = out.words.memory_per_shard() <= in.memory_budget;
    const std::string budget = " per shard, over the budget of " + human_bytes(in.memory_budget);
    if (columns_fit && !words_fit)
      return pick(partition_layout::columns, "words needs " + human_bytes(out.words.memory_per_shard()) + budget);
    if (words_fit && !columns_fit)
      return pick(partition_layout::words, "columns needs " + human_bytes(out.columns.memory_per_shard()) + budget);
  }
  const double cb = out.columns.busiest_link_bytes_per_word, wb = out.words.busiest_link_bytes_per_word;
  if (in.link_bytes_per_second > 0 && cb / in.link_bytes_per_second < compute_seconds_per_word(in))
    return pick(partition_layout::columns,
                "the links are faster than the cores: the busiest link moves a trained word in " +
                  format("%.2f", cb / in.link_bytes_per_second * 1e6) + " us, the cores train it in about " +
                  format("%.2f", compute_seconds_per_word(in) * 1e6) + " us");
  const std::string figures = format("%.0f", std::min(cb, wb)) + " against " + format("%.0f", std::max(cb, wb));
  if (wb < cb)
    return pick(partition_layout::words, "fewer bytes per trained word on the busiest link: " + figures);
  if (cb < wb)
    return pick(partition_layout::columns, "fewer bytes per trained word on the busiest link: " + figures);
  return pick(partition_layout::columns,
              "as many bytes per trained word either way: columns, word2vec's exact algorithm");
}

std::string word_split_refusal(const train_options& o) {
  if (o.replicated())
    return "--partition replicated";
  if (o.cbow)
    return "-cbow 1 (the word split trains skip-gram)";
  if (o.hs)
    return "-hs 1 (the word split trains negative sampling only)";
  if (o.negative == 0)
    return "-negative 0";
  if (o.shared_negatives_asked())
    return "--shared-negatives (one draw for a whole example)";
  if (!o.fused && o.shards <= 1)
    return "--fused 0";
  return {};
}

bool word_split_runnable(const train_options& o, bool one_process) {
  if (!word_split_refusal(o).empty())
    return false;
  if (o.shards >= 2) // each shard holds the rows of its words
    return o.word_partitions == 0 || o.word_partitions == o.shards;
  return one_process && o.word_partitions >= 2; // one shard viewed as partitions
}

partition_layout resolve_partition(const partition_choice& c, bool words_runnable, std::string& why) {
  if (c.chosen == partition_layout::words && !words_runnable) {
    why = "the model picks words, but --word-partitions is not the shards' number";
    return partition_layout::columns;
  }
  why = c.reason;
  return c.chosen;
}

partition_inputs partition_inputs_of(const train_options& o, uint64_t vocab_size) {
  partition_inputs in;
  in.vocab = vocab_size;
  in.dim = o.size;
  in.shards = std::max(1u, o.shards);
  in.negative = o.negative;
  in.window = o.window;
  in.negatives = static_cast<negatives_mode>(o.negatives_mode);
  in.grouping = o.visits_per_skipgram ? visit_grouping::skipgram : visit_grouping::example;
  in.link_bytes_per_second = o.link_speed;
  in.words_refused = word_split_refusal(o);
  return in;
}

partition_inputs partition_inputs_of(const train_options& o, const std::vector<uint64_t>& counts) {
  partition_inputs in = partition_inputs_of(o, counts.size());
  if (counts.empty() || o.negative == 0)
    return in; // no noise words, no tables
  const uint32_t partitions = std::min<uint64_t>(o.word_partitions_of(in.shards), counts.size());
  // Split by word, a shard draws through the partitions' tables and holds
  // its own partition's.
  noise_sampler parted{counts, noise_spec{in.negatives, true, partitions}};
  for (uint32_t k = 0; k < partitions; ++k)
    in.word_sampling_bytes = std::max(in.word_sampling_bytes, parted.partition_bytes(k));
  // Split by column, every shard holds every table: all partitions' (sns,
  // tns, --sampler hierarchical) or one over the whole vocabulary.
  if (o.negatives_mode != 0 || o.hierarchical_sampler)
    in.column_sampling_bytes = parted.bytes();
  else
    in.column_sampling_bytes = noise_sampler{counts, noise_spec{}}.bytes();
  return in;
}

std::string explain_partition(const partition_inputs& in, const partition_choice& c) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "partition model: V = %llu words, d = %u, S = %u shards, n = %u, w = %u\n"
                "(%.0f pairs per trained word), --negatives %s, --visits %s\n",
                static_cast<unsigned long long>(in.vocab), in.dim, in.shards, in.negative, in.window,
                pairs_per_word(in.window), negatives_mode_name(in.negatives),
                in.grouping == visit_grouping::skipgram ? "skipgram" : "example");
  out += buf;
  if (in.link_bytes_per_second > 0)
    out += "link: " + format("%.4g", in.link_bytes_per_second / 1e6) + " MB/s (" +
           format("%.4g", in.link_bytes_per_second * 8 / 1e9) + " Gbit/s)\n";
  else
    out += "link: none (one process: nothing crosses a wire; --link-speed RATE prices a cluster's link)\n";
  out +=
    "memory budget per shard: " + (in.memory_budget > 0 ? human_bytes(in.memory_budget) : std::string{"none"}) + "\n\n";
  auto row = [&](const std::string& name, const std::string& columns, const std::string& words) {
    std::snprintf(buf, sizeof buf, "%-34s %14s %14s\n", name.c_str(), columns.c_str(), words.c_str());
    out += buf;
  };
  row("", "columns", "words");
  row("bytes per trained word", format("%.1f", c.columns.bytes_per_word()), format("%.1f", c.words.bytes_per_word()));
  row(in.grouping == visit_grouping::skipgram ? "  vectors (formula 7 / per skip-gram)"
                                              : "  vectors (formula 7 / per example)",
      format("%.1f", c.columns.vector_bytes_per_word), format("%.1f", c.words.vector_bytes_per_word));
  // The word split's ids (a few per pair beside d floats) are not modelled.
  row("  word ids", format("%.1f", c.columns.id_bytes_per_word), "not counted");
  auto seconds = [&](const layout_cost& l) {
    const double s = l.wire_seconds_per_million(in.link_bytes_per_second);
    return s < 0 ? std::string{"-"} : format("%.3f", s);
  };
  row("busiest link, bytes per trained word", format("%.1f", c.columns.busiest_link_bytes_per_word),
      format("%.1f", c.words.busiest_link_bytes_per_word));
  row("busiest link, s per 1M trained words", seconds(c.columns), seconds(c.words));
  row("model per shard", human_bytes(c.columns.model_bytes), human_bytes(c.words.model_bytes));
  row("sampling tables per shard", human_bytes(c.columns.sampling_bytes), human_bytes(c.words.sampling_bytes));
  row("memory per shard", human_bytes(c.columns.memory_per_shard()), human_bytes(c.words.memory_per_shard()));
  out += std::string{"\nchoice: "} + partition_layout_name(c.chosen) + " (" + c.reason + ")\n";
  return out;
}

} // namespace gridvec
