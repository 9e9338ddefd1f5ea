#include <gridvec/core/options.hpp>

#include "src/corpus/corpus_inputs.hpp"
#include "src/corpus/text_corpus.hpp"
#include "src/formats/model_dir.hpp"
#include "src/formats/vector_parts.hpp"
#include "src/sgns/noise_sampler.hpp"
#include "src/util/atomic_file.hpp"

#include <cctype>
#include <charconv>
#include <filesystem>
#include <functional>
#include <thread>

namespace gridvec {

namespace {

using setter = std::function<status(train_options&, const std::string&)>;
using getter = std::function<std::string(const train_options&)>;

/// How one option is read from text and written back as text (the same
/// text parses to the same value: checkpoint manifests rely on it).
struct accessor {
  setter set;
  getter get;
};

// An option's default value is written once, in train_options (options.hpp);
// --help shows it as the accessor writes it. `note` only says what a
// default means: "(...)" is shown after the value (or alone, in place of an
// empty one), anything else replaces a value that stands for a computed
// default (0: "number of cores"). A note never repeats the value
// (tests/options.test.cpp checks).
struct option_spec {
  std::string name;
  std::string value_name; // empty: a switch (--explain), alone or --name=0|1; the rest take a value
  std::string note;
  std::string help;
  accessor access;
};

template <class T>
status parse_number(const std::string& name, const std::string& text, T min, T max, T& out) {
  T v{};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || ptr != text.data() + text.size() || text.empty())
    return failure{"option -" + name + " expects a number, got '" + text + "'"};
  if (!(v >= min && v <= max)) // also rejects NaN
    return failure{"option -" + name + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                   ", got " + text};
  out = v;
  return {};
}

template <class T>
std::string number_text(T value) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, value); // shortest round-trip form
  return ec == std::errc{} ? std::string(buf, ptr) : std::string{};
}

template <class T>
accessor number(T train_options::*field, T min, T max, const char* name) {
  return {[=](train_options& o, const std::string& text) { return parse_number<T>(name, text, min, max, o.*field); },
          [=](const train_options& o) { return number_text(o.*field); }};
}

// A number, or `auto` (kept as 0): the value is then computed from the job.
accessor number_or_auto(uint32_t train_options::*field, uint32_t min, uint32_t max, const char* name) {
  return {[=](train_options& o, const std::string& text) -> status {
            if (text == "auto") {
              o.*field = 0;
              return {};
            }
            return parse_number<uint32_t>(name, text, min, max, o.*field);
          },
          [=](const train_options& o) { return o.*field == 0 ? std::string{"auto"} : number_text(o.*field); }};
}

accessor flag(bool train_options::*field, const char* name) {
  return {[=](train_options& o, const std::string& text) -> status {
            if (text == "0" || text == "1") {
              o.*field = text == "1";
              return {};
            }
            return failure{std::string{"option -"} + name + " expects 0 or 1, got '" + text + "'"};
          },
          [=](const train_options& o) { return std::string{o.*field ? "1" : "0"}; }};
}

// --shared-negatives 0, 1 or auto (train_options::window_kernel()).
accessor shared_negatives_choice() {
  return {[](train_options& o, const std::string& text) -> status {
            if (text == "0" || text == "1" || text == "auto") {
              o.shared_negatives = text == "auto" ? train_options::shared_negatives_auto : text == "1" ? 1 : 0;
              return {};
            }
            return failure{"option --shared-negatives expects 0, 1 or auto, got '" + text + "'"};
          },
          [](const train_options& o) {
            return o.shared_negatives == train_options::shared_negatives_auto ? std::string{"auto"}
                                                                              : std::to_string(o.shared_negatives);
          }};
}

// -train may be given several times: the values are kept one per line
// (src/corpus/corpus_inputs.hpp), and written back as one value that
// parses to the same.
accessor corpus_inputs() {
  return {[](train_options& o, const std::string& value) -> status {
            if (value.empty())
              return failure{"option -train needs a corpus, got an empty value"};
            o.train += (o.train.empty() ? "" : "\n") + value;
            return {};
          },
          [](const train_options& o) { return o.train; }};
}

accessor invalid_utf8_choice() {
  return {
    [](train_options& o, const std::string& text) -> status {
      invalid_utf8 mode;
      if (!parse_invalid_utf8(text, mode))
        return failure{"option --invalid-utf8 expects fail, skip or replace, got '" + text + "'"};
      o.invalid_utf8 = static_cast<uint8_t>(mode);
      return {};
    },
    [](const train_options& o) { return std::string{invalid_utf8_name(static_cast<invalid_utf8>(o.invalid_utf8))}; }};
}

accessor checkpoint_failures() {
  return {[](train_options& o, const std::string& text) -> status {
            if (text != "stop" && text != "warn")
              return failure{"option --checkpoint-failures expects stop or warn, got '" + text + "'"};
            o.checkpoint_failures_warn = text == "warn";
            return {};
          },
          [](const train_options& o) { return std::string{o.checkpoint_failures_warn ? "warn" : "stop"}; }};
}

accessor text(std::string train_options::*field) {
  return {[=](train_options& o, const std::string& value) -> status {
            o.*field = value;
            return {};
          },
          [=](const train_options& o) { return o.*field; }};
}

// "90s", "10m", "2h" (time) or "5000000w", "5M" words; a bare number is seconds.
accessor checkpoint_interval() {
  return {
    [](train_options& o, const std::string& value) -> status {
      auto bad = failure{"option --checkpoint-every expects a time (90s, 10m, 2h) or a word count "
                         "(5000000w, 5M), got '" +
                         value + "'"};
      if (value.empty())
        return bad;
      char unit = value.back();
      std::string digits = std::isdigit(static_cast<unsigned char>(unit)) ? value : value.substr(0, value.size() - 1);
      double x = 0;
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), x);
      if (ec != std::errc{} || ptr != digits.data() + digits.size() || digits.empty() || !(x >= 0) || x > 1e15)
        return bad;
      o.checkpoint_seconds = 0;
      o.checkpoint_words = 0;
      switch (unit) {
        case 's': o.checkpoint_seconds = x; break;
        case 'm': o.checkpoint_seconds = x * 60; break;
        case 'h': o.checkpoint_seconds = x * 3600; break;
        case 'w': o.checkpoint_words = static_cast<uint64_t>(x); break;
        case 'k': o.checkpoint_words = static_cast<uint64_t>(x * 1e3); break;
        case 'M': o.checkpoint_words = static_cast<uint64_t>(x * 1e6); break;
        default:
          if (!std::isdigit(static_cast<unsigned char>(unit)))
            return bad;
          o.checkpoint_seconds = x;
      }
      return {};
    },
    [](const train_options& o) {
      return o.checkpoint_words > 0 ? number_text(o.checkpoint_words) + "w" : number_text(o.checkpoint_seconds) + "s";
    }};
}

accessor partition() {
  return {[](train_options& o, const std::string& text) -> status {
            if (text != "auto" && text != "columns" && text != "replicated" && text != "words")
              return failure{"option --partition expects auto, columns, replicated or words, got '" + text + "'"};
            o.partition_auto = text == "auto";
            o.partition = text == "replicated" ? model_partition::replicated
                          : text == "words"    ? model_partition::words
                                               : model_partition::columns;
            return {};
          },
          // A layout auto resolved to is written as that layout: a
          // checkpoint's slices are in it.
          [](const train_options& o) {
            return std::string{o.replicated()     ? "replicated"
                               : o.word_split()   ? "words"
                               : o.partition_auto ? "auto"
                                                  : "columns"};
          }};
}

// 1gbit, 100mbit, 10gbit (bits per second, powers of 1000) or a number of
// bytes per second.
accessor link_speed() {
  return {[](train_options& o, const std::string& text) -> status {
            auto bad = failure{"option --link-speed expects a rate (1gbit, 100mbit, 10gbit, or bytes per second), "
                               "got '" +
                               text + "'"};
            std::string lower;
            for (char c : text)
              lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            double scale = 1;
            for (auto [unit, factor] : {std::pair{"kbit", 1e3 / 8}, std::pair{"mbit", 1e6 / 8},
                                        std::pair{"gbit", 1e9 / 8}, std::pair{"tbit", 1e12 / 8}})
              if (lower.size() > 4 && lower.ends_with(unit)) {
                lower.resize(lower.size() - 4);
                scale = factor;
              }
            double x = 0;
            auto [ptr, ec] = std::from_chars(lower.data(), lower.data() + lower.size(), x);
            if (lower.empty() || ec != std::errc{} || ptr != lower.data() + lower.size() || !(x > 0) ||
                x * scale > 1e15)
              return bad;
            o.link_speed = x * scale;
            return {};
          },
          [](const train_options& o) { return number_text(o.link_speed); }};
}

accessor negatives_choice() {
  return {[](train_options& o, const std::string& text) -> status {
            negatives_mode mode;
            if (!parse_negatives_mode(text, mode))
              return failure{"option --negatives expects bns, sns or tns, got '" + text + "'"};
            o.negatives_mode = static_cast<uint8_t>(mode);
            return {};
          },
          [](const train_options& o) {
            return std::string{negatives_mode_name(static_cast<negatives_mode>(o.negatives_mode))};
          }};
}

accessor visits_choice() {
  return {[](train_options& o, const std::string& text) -> status {
            if (text != "example" && text != "skipgram")
              return failure{"option --visits expects example or skipgram, got '" + text + "'"};
            o.visits_per_skipgram = text == "skipgram";
            return {};
          },
          [](const train_options& o) { return std::string{o.visits_per_skipgram ? "skipgram" : "example"}; }};
}

accessor sampler_choice() {
  return {[](train_options& o, const std::string& text) -> status {
            if (text != "alias" && text != "hierarchical")
              return failure{"option --sampler expects alias or hierarchical, got '" + text + "'"};
            o.hierarchical_sampler = text == "hierarchical";
            return {};
          },
          [](const train_options& o) { return std::string{o.hierarchical_sampler ? "hierarchical" : "alias"}; }};
}

accessor combiner_choice() {
  return {[](train_options& o, const std::string& text) -> status {
            if (text != "mc" && text != "avg")
              return failure{"option --combiner expects mc (the model combiner) or avg (averaging), got '" + text +
                             "'"};
            o.average_combiner = text == "avg";
            return {};
          },
          [](const train_options& o) { return std::string{o.average_combiner ? "avg" : "mc"}; }};
}

// Notes of computed defaults, from the functions that compute them.
std::string alpha_note() {
  train_options cbow;
  cbow.cbow = true;
  return number_text(train_options{}.start_alpha()) + " (skip-gram), " + number_text(cbow.start_alpha()) + " (CBOW)";
}

std::string parts_per_learner_note() {
  train_options hs;
  hs.hs = true;
  return number_text(train_options{}.parts_per_learner_count()) +
         " (-hs 1: " + number_text(hs.parts_per_learner_count()) + ")";
}

std::string in_flight_note() {
  train_options hs;
  hs.hs = true;
  return number_text(train_options{}.in_flight_window()) + " (-hs 1: " + number_text(hs.in_flight_window()) + ")";
}

std::string sync_rounds_note() {
  return "(" + number_text(train_options{}.sync_rounds_per_epoch(1)) + " per learner thread)";
}

const std::vector<option_spec>& specs() {
  static const std::vector<option_spec> table = {
    {"train", "FILE", "(required)",
     "corpus, one sentence per line: a file, a directory (read recursively), gzip (on stdin too), - (stdin), "
     "@LIST (a file of paths, one a line) or FILE,FILE...; repeat -train for more inputs",
     corpus_inputs()},
    {"output", "FILE", "(required)", "where to write the word vectors (word2vec format)", text(&train_options::output)},
    {"size", "N", "", "dimension of the word vectors", number<uint32_t>(&train_options::size, 1, 10000, "size")},
    {"window", "N", "", "maximum distance between a word and its context words",
     number<uint32_t>(&train_options::window, 1, 1000, "window")},
    {"negative", "N", "", "noise words per positive pair (negative sampling); 0: none",
     number<uint32_t>(&train_options::negative, 0, 1000, "negative")},
    {"sample", "T", "", "subsampling threshold of frequent words; 0 turns it off",
     number<double>(&train_options::sample, 0.0, 1.0, "sample")},
    {"min-count", "N", "", "drop words that occur fewer than N times",
     number<uint64_t>(&train_options::min_count, 1, UINT64_MAX, "min-count")},
    {"iter", "N", "", "training epochs over the corpus", number<uint32_t>(&train_options::iter, 1, 100000, "iter")},
    {"alpha", "A", alpha_note(), "starting learning rate, decayed linearly to alpha*1e-4",
     number<double>(&train_options::alpha, 1e-9, 10.0, "alpha")},
    {"threads", "N", "number of cores", "worker threads (learners and shard lanes share them)",
     number<uint32_t>(&train_options::threads, 1, 1024, "threads")},
    {"binary", "0|1", "", "write vectors in word2vec binary format", flag(&train_options::binary, "binary")},
    {"output-parts", "0|1", "",
     "-output is a directory of part files written in parallel, one per vocabulary node, instead of one file "
     "(docs/vocabulary.md); gridvec eval and nearest read either",
     flag(&train_options::output_parts, "output-parts")},
    {"cbow", "0|1", "(word2vec.c: 1)", "train CBOW instead of skip-gram", flag(&train_options::cbow, "cbow")},
    {"hs", "0|1", "", "hierarchical softmax over a Huffman tree, as word2vec.c", flag(&train_options::hs, "hs")},
    {"max-vocab", "N", "(no limit)", "keep only the N most frequent words",
     number<uint64_t>(&train_options::max_vocab, 0, 0xFFFFFFFEull, "max-vocab")},
    {"classes", "K", "(vectors)",
     "write K k-means classes of the vectors (\"word class\" lines) instead of the vectors",
     number<uint32_t>(&train_options::classes, 0, 1000000, "classes")},
    {"debug", "N", "", "0: errors and warnings only, 1: what happens, 2: progress too",
     number<uint32_t>(&train_options::debug, 0, 1000, "debug")},
    {"save-vocab", "FILE", "(none)", "write the vocabulary as word2vec.c does (\"word count\" lines)",
     text(&train_options::save_vocab)},
    {"read-vocab", "FILE", "(none)", "take the vocabulary from FILE (word2vec.c's format) instead of counting",
     text(&train_options::read_vocab)},
    {"shards", "S", "1; a cluster: the config's", "column partitions of the vectors (shard actors)",
     number<uint32_t>(&train_options::shards, 1, 4096, "shards")},
    {"minibatch", "B", "", "input words per minibatch (larger: fewer messages, staler updates)",
     number<uint32_t>(&train_options::minibatch, 1, 1000000, "minibatch")},
    {"in-flight", "K", in_flight_note(), "minibatches each learner keeps in flight (protocol path)",
     number<uint32_t>(&train_options::in_flight, 1, 1024, "in-flight")},
    {"parts-per-learner", "K", parts_per_learner_note(),
     "corpus parts per learner: each learner takes the next part nobody trains, one epoch at a time, so a slow "
     "learner trains fewer (1: one fixed part each; --partition replicated: K per thread of a host, its own, an "
     "epoch of each in turn)",
     number<uint32_t>(&train_options::parts_per_learner, 1, 1024, "parts-per-learner")},
    {"coalesce", "G", "", "minibatches per message to a shard (protocol path); each is still applied on its own",
     number<uint32_t>(&train_options::coalesce, 1, 1024, "coalesce")},
    {"fused", "0|1", "",
     "train on the shards of this process directly, as word2vec.c; 0: dotprod/adjust messages, as a cluster",
     flag(&train_options::fused, "fused")},
    {"shared-negatives", "0|1|auto", "",
     "skip-gram: train each window as small matrix products with one draw of noise words (HogBatch, as "
     "pWord2Vec; docs/quality.md), fused or through the shards; auto: where a job trains skip-gram with -negative "
     "alone",
     shared_negatives_choice()},
    {"interleave", "N", "", "consecutive examples lie N words apart (1: corpus order, as word2vec.c)",
     number<uint32_t>(&train_options::interleave, 1, 4096, "interleave")},
    {"refresh-weights", "0|1", "",
     "protocol path: shards recompute each weight for the rows as its update finds them (docs/quality.md)",
     flag(&train_options::refresh_weights, "refresh-weights")},
    {"negatives", "bns|sns|tns", "",
     "noise words over word partitions (the Distributed negative sampling paper): bns each from the whole vocabulary, "
     "as word2vec; sns all of a pair's from one partition drawn by its mass; tns from the partition of the pair's "
     "positive word",
     negatives_choice()},
    {"sampler", "alias|hierarchical", "",
     "bns's draw: one alias table over the vocabulary, or a partition by mass and then one of its words (the same "
     "distribution; sns and tns always draw this way)",
     sampler_choice()},
    {"word-partitions", "P", "the shards",
     "partitions of --negatives sns|tns and --sampler hierarchical (word w in "
     "partition w mod P)",
     number<uint32_t>(&train_options::word_partitions, 1, 1000000, "word-partitions")},
    {"partition", "auto|columns|replicated|words", "",
     "auto: columns or words, by a cost model of bytes per trained word and memory per shard (--explain shows "
     "it); columns: shards hold column slices, learners send word ids; replicated: every learner holds the whole "
     "model and synchronises the rows it changed (docs/replicated.md); words: rows split over --word-partitions "
     "by word, trained through their exchange (the Distributed negative sampling paper, docs/word-partitions.md): over "
     "--shards S, each shard holds the rows of its words; one shard views its rows as --word-partitions P",
     partition()},
    {"visits", "example|skipgram", "",
     "--partition words: an example's input vector travels once to each partition its pairs visit, or once per "
     "skip-gram and noise partition (the Distributed negative sampling paper's pattern, whose bytes its counts "
     "describe)",
     visits_choice()},
    {"explain", "", "",
     "print the partition model's figures for this job (both layouts) and its choice, then exit without training",
     flag(&train_options::explain, "explain")},
    {"link-speed", "RATE", "none (one process: no link)",
     "the link speed the partition model prices bytes with: 1gbit, 100mbit, 10gbit or bytes per second", link_speed()},
    {"sync-rounds", "R|auto", sync_rounds_note(), "replicated: synchronisation rounds per epoch",
     number_or_auto(&train_options::sync_rounds, 1, 1000000, "sync-rounds")},
    {"host-threads", "N|auto", "(all of a node's learners, or -threads: one host)",
     "replicated: learner threads that train one copy of the model together (a host); a node with more learners "
     "holds more copies",
     number_or_auto(&train_options::host_threads, 1, 4096, "host-threads")},
    {"combiner", "mc|avg", "", "replicated: merge the hosts' changes of a row by the model combiner or average",
     combiner_choice()},
    {"seed", "N", "", "random seed (initial vectors, windows, subsampling, noise words)",
     number<uint64_t>(&train_options::seed, 0, UINT64_MAX, "seed")},
    {"save-model", "DIR", "(none)", "also save the whole model in DIR: both vector sets and the counts (docs/model.md)",
     text(&train_options::save_model)},
    {"init", "PATH", "(none)",
     "start from a model saved with --save-model, a checkpoint (a --checkpoint-dir or one ckpt-N in it) or a "
     "vectors file: its words keep their vectors, new words are added",
     text(&train_options::init)},
    {"invalid-utf8", "fail|skip|replace", "",
     "bytes of the corpus that are not UTF-8: stop with the file and line, drop the words that hold them, or "
     "replace them by U+FFFD",
     invalid_utf8_choice()},
    {"report", "FILE", "(none)", "write a JSON summary of the run to FILE", text(&train_options::report)},
    {"work-dir", "DIR", "(a temporary directory)", "where the preprocessed corpus is kept during the run",
     text(&train_options::work_dir)},
    {"log-every", "SECONDS", "1 on a terminal, 10 otherwise", "seconds between progress reports",
     number<double>(&train_options::log_every, 0.01, 86400.0, "log-every")},
    {"checkpoint-dir", "DIR", "(none: no checkpoints)",
     "where checkpoints go; the job can be resumed from there (--resume DIR)", text(&train_options::checkpoint_dir)},
    {"checkpoint-every", "T|Nw", "(only on demand)", "checkpoint interval: time (90s, 10m, 2h) or words (5000000w, 5M)",
     checkpoint_interval()},
    {"checkpoint-failures", "stop|warn", "", "a checkpoint that cannot be written stops the job, or only warns",
     checkpoint_failures()},
    {"checkpoint-keep", "N", "",
     "newest checkpoints kept (2: a damaged newest one leaves one to fall back to); gridvec export reads any",
     number<uint32_t>(&train_options::checkpoint_keep, 2, 100000, "checkpoint-keep")},
  };
  return table;
}

status validate(train_options& o) {
  if (o.threads == 0)
    o.threads = std::max(1u, std::thread::hardware_concurrency());
  if (!o.resume.empty())
    return {};
  if (o.train.empty())
    return failure{"missing -train FILE (the corpus); see gridvec train --help"};
  if (o.output.empty())
    return failure{"missing -output FILE (where vectors go); see gridvec train --help"};
  if (o.negative == 0 && !o.hs)
    return failure{"-negative 0 without -hs 1 trains nothing: give -negative N or -hs 1"};
  if (o.hs && (!o.save_model.empty() || !o.init.empty()))
    return failure{std::string{o.init.empty() ? "--save-model" : "--init"} +
                   " keeps negative-sampling models only: the node vectors of -hs 1 belong to one vocabulary's "
                   "Huffman tree and do not carry over to continued training"};
  if (o.shards > o.size)
    return failure{"--shards " + std::to_string(o.shards) + " is more than the " + std::to_string(o.size) +
                   " columns of -size: every shard needs a column"};
  if (o.threads == 0)
    o.threads = std::max(1u, std::thread::hardware_concurrency());
  if (!o.save_vocab.empty() && (o.save_vocab == o.output || o.save_vocab == o.read_vocab))
    return failure{"-save-vocab " + o.save_vocab + " is also " +
                   (o.save_vocab == o.output ? "-output" : "-read-vocab") + ": one file cannot hold both"};
  if (o.output_parts && o.classes > 0)
    return failure{"--output-parts 1 writes vectors; -classes writes one file of classes: give one of them"};
  if (!o.save_model.empty() && o.save_model == o.init)
    return failure{"--save-model and --init name the same directory " + o.init +
                   ": the new model would replace the one it starts from while it is read (save it elsewhere)"};
  if (!o.replicated() && (o.sync_rounds > 0 || o.average_combiner || o.host_threads > 0))
    return failure{std::string{o.sync_rounds > 0    ? "--sync-rounds"
                               : o.host_threads > 0 ? "--host-threads"
                                                    : "--combiner"} +
                   " applies to --partition replicated only"};
  if (o.negatives_mode != 0 || o.hierarchical_sampler) {
    const std::string what =
      o.negatives_mode != 0
        ? std::string{"--negatives "} + negatives_mode_name(static_cast<negatives_mode>(o.negatives_mode))
        : "--sampler hierarchical";
    if (o.replicated())
      return failure{what + " applies to shards that draw noise words: not to --partition replicated"};
    if (o.shared_negatives_asked())
      return failure{what + " does not combine with --shared-negatives (one draw for a whole example)"};
    if (o.negative == 0)
      return failure{what + " draws noise words: it needs -negative N > 0"};
  }
  if (o.visits_per_skipgram && !o.word_split())
    return failure{"--visits applies to --partition words only"};
  if (o.word_split()) {
    if (o.cbow || o.hs || o.negative == 0)
      return failure{"--partition words trains skip-gram with negative sampling: not with -cbow 1, -hs 1 or "
                     "-negative 0"};
    if ((!o.fused && o.shards <= 1) || o.shared_negatives_asked())
      return failure{std::string{"--partition words does not combine with "} +
                     (!o.fused ? "--fused 0" : "--shared-negatives")};
    if (o.shards > 1 && o.word_partitions > 0 && o.word_partitions != o.shards)
      return failure{"--partition words over --shards " + std::to_string(o.shards) +
                     ": the shards are the word partitions (drop --word-partitions)"};
    if (o.shards <= 1 && o.word_partitions == 1)
      return failure{"--partition words needs 2 or more word partitions: --shards S or --word-partitions P"};
    if (o.shards == 1 && o.word_partitions == 0)
      return failure{"--partition words on one shard needs --word-partitions P, 2 or more"};
  }
  if ((o.checkpoint_seconds > 0 || o.checkpoint_words > 0) && o.checkpoint_dir.empty())
    return failure{"--checkpoint-every needs --checkpoint-dir DIR (where the checkpoints go)"};
  return {};
}

} // namespace

expected<train_options> parse_train_options(const std::vector<std::string>& args) {
  train_options o;
  std::vector<std::string> given; // option names, for --resume's check
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg.size() < 2 || arg[0] != '-')
      return failure{"unexpected argument '" + arg + "'; options look like -size 100 (see gridvec train --help)"};
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (name == "resume") {
      if (!has_value) {
        if (i + 1 >= args.size())
          return failure{"option --resume needs a value (DIR, a checkpoint directory)"};
        value = args[++i];
      }
      o.resume = value;
      continue;
    }
    const option_spec* spec = nullptr;
    for (const auto& s : specs())
      if (s.name == name)
        spec = &s;
    given.push_back(name);
    if (!spec)
      return failure{"unknown option '" + arg + "' (see gridvec train --help)"};
    if (!has_value && spec->value_name.empty()) { // a switch: --explain
      value = "1";
      has_value = true;
    }
    if (!has_value) {
      if (i + 1 >= args.size())
        return failure{"option -" + name + " needs a value (" + spec->value_name + ")"};
      value = args[++i];
    }
    if (auto s = spec->access.set(o, value); !s)
      return failure{s.error()};
  }
  if (!o.resume.empty())
    for (const auto& name : given)
      if (name != "output" && name != "report" && name != "log-every" && name != "threads")
        return failure{"with --resume the job's options come from its checkpoint; only -output, --report, "
                       "--log-every and -threads may be given, not -" +
                       name};
  if (auto s = validate(o); !s)
    return failure{s.error()};
  return o;
}

status check_option_values(const train_options& o) {
  for (const auto& s : specs()) {
    const std::string value = s.access.get(o);
    if (value == s.access.get(train_defaults()))
      continue;
    train_options scratch;
    if (auto set = s.access.set(scratch, value); !set)
      return failure{set.error(), error_code::invalid_argument};
  }
  return {};
}

std::vector<std::string> to_args(const train_options& o) {
  // Options left at their default are skipped: some defaults (alpha 0 =
  // "depends on -cbow") are not values the parser accepts.
  const train_options& defaults = train_defaults();
  std::vector<std::string> args;
  for (const auto& s : specs()) {
    std::string value = s.access.get(o);
    if (value == s.access.get(defaults))
      continue;
    if (s.value_name.empty()) { // a switch takes its value after '='
      args.push_back("-" + s.name + "=" + value);
      continue;
    }
    args.push_back("-" + s.name);
    args.push_back(std::move(value));
  }
  return args;
}

// Options by topic in --help; an option of no group is listed last.
const std::vector<std::pair<std::string, std::vector<std::string>>>& help_groups() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> groups{
    {"As word2vec.c",
     {"train", "output", "size", "window", "negative", "sample", "min-count", "iter", "alpha", "threads", "binary",
      "cbow", "hs", "max-vocab", "classes", "debug", "save-vocab", "read-vocab"}},
    {"How gridvec trains",
     {"shards", "minibatch", "in-flight", "parts-per-learner", "coalesce", "fused", "shared-negatives", "interleave",
      "refresh-weights", "partition", "visits", "explain", "link-speed", "sync-rounds", "combiner", "seed"}},
    {"Corpus", {"invalid-utf8"}},
    {"Models", {"save-model", "init", "output-parts"}},
    {"Checkpoints", {"checkpoint-dir", "checkpoint-every", "checkpoint-failures", "checkpoint-keep"}},
    {"Reports and files", {"report", "log-every", "work-dir"}},
  };
  return groups;
}

// The default --help shows: the value train_options{} holds, with the
// option's note.
std::string default_text(const option_spec& s) {
  const std::string value = s.access.get(train_defaults());
  const bool aside = s.note.size() > 2 && s.note.front() == '(' && s.note.back() == ')';
  if (s.note.empty())
    return value;
  if (!aside)
    return s.note;
  if (value.empty()) // "(required)" reads as [required]
    return s.note.substr(1, s.note.size() - 2);
  return value + " " + s.note;
}

// "  -name VALUE" in a 24-column field, then the help and [default] wrapped
// at 80 columns.
std::string help_entry(const std::string& name, const std::string& value, const std::string& text) {
  constexpr size_t field = 24, width = 80;
  std::string left = "  -" + name + (value.empty() ? "" : " " + value);
  std::string out =
    left.size() < field ? left + std::string(field - left.size(), ' ') : left + "\n" + std::string(field, ' ');
  size_t column = field;
  size_t start = 0;
  bool first = true;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos)
      end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!first && column + 1 + word.size() > width) {
      out += "\n" + std::string(field, ' ');
      column = field;
      first = true;
    }
    if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
    start = end + 1;
  }
  return out + "\n";
}

std::vector<train_option_info> train_option_table() {
  std::vector<train_option_info> out;
  for (const auto& s : specs())
    out.push_back({s.name, s.value_name, s.note, s.access.get(train_defaults()), default_text(s)});
  return out;
}

std::string train_help() {
  std::string out = "usage: gridvec train -train CORPUS -output VECTORS [options]\n"
                    "       gridvec train --resume CHECKPOINT_DIR [-output FILE] [--report FILE]\n\n"
                    "Trains word2vec embeddings (skip-gram or CBOW; negative sampling or\n"
                    "hierarchical softmax) in one process, with the same actors and wire\n"
                    "protocol as a gridvec cluster.\n"
                    "Options take one or two dashes, -name value or --name=value; [defaults].\n";
  std::vector<bool> listed(specs().size(), false);
  auto entry = [&](size_t i) {
    const auto& s = specs()[i];
    listed[i] = true;
    return help_entry(s.name, s.value_name, s.help + " [" + default_text(s) + "]");
  };
  for (const auto& [title, names] : help_groups()) {
    out += "\n" + title + ":\n";
    for (const auto& name : names)
      for (size_t i = 0; i < specs().size(); ++i)
        if (specs()[i].name == name)
          out += entry(i);
    if (title == "Checkpoints")
      out += help_entry("-resume", "DIR", "continue the job whose checkpoints are in DIR, with its options [none]");
  }
  std::string others;
  for (size_t i = 0; i < specs().size(); ++i)
    if (!listed[i])
      others += entry(i);
  if (!others.empty())
    out += "\nOther options:\n" + others;
  return out;
}

std::string absolute_path(const std::string& path) {
  if (path.empty())
    return path;
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

void make_paths_absolute(train_options& o) {
  o.train = absolute_corpus_spec(o.train); // each -train value's paths
  for (auto* path : {&o.output, &o.save_vocab, &o.read_vocab, &o.save_model, &o.init, &o.report, &o.work_dir,
                     &o.checkpoint_dir, &o.resume})
    *path = absolute_path(*path);
}

} // namespace gridvec

namespace gridvec {

status check_outputs(const train_options& o) {
  namespace fs = std::filesystem;
  for (auto [path, flag] :
       {std::pair{&o.output, "-output"}, std::pair{&o.save_vocab, "-save-vocab"}, std::pair{&o.report, "--report"}}) {
    if (path->empty())
      continue;
    // A directory of parts: put together beside it, renamed over it.
    const bool parts = path == &o.output && o.output_parts;
    if (parts)
      if (auto s = check_vector_parts_target(o.output); !s)
        return s;
    // -train may name several files, or a directory of them.
    std::vector<std::string> corpus_files{o.train};
    if (auto inputs = resolve_corpus_inputs(o.train))
      for (const auto& input : *inputs)
        corpus_files.push_back(input.path);
    for (const auto& corpus : corpus_files) {
      std::error_code ec;
      const bool same = *path == corpus || (!corpus.empty() && fs::equivalent(*path, corpus, ec) && !ec);
      if (same)
        return failure{std::string{flag} + " " + *path + " is the corpus (-train " + corpus_spec_text(o.train) +
                       "): writing there would replace it"};
    }
    if (auto s = atomic_file::check_writable(parts ? *path + ".partial" : *path); !s)
      return failure{s.error() + " (" + flag + ")"};
  }
  // --save-model replaces a model, or makes a new directory; never a file
  // or a directory of something else (checked here, before the training).
  if (!o.save_model.empty()) {
    const std::string& dir = o.save_model;
    if (auto s = check_model_target(dir); !s)
      return s;
    if (auto s = atomic_file::check_writable(partial_model_dir(dir)); !s)
      return failure{s.error() + " (--save-model)"};
  }
  return {};
}

} // namespace gridvec
