// vocabulary phase: see phases.hpp for where it stands among the others.
// Counting and vocabulary: each corpus part is counted on a learner's node
// (map), the tables merge into the vocabulary actor (reduce), which builds
// and writes the vocabulary; then the shards and learners are placed.
#include "actors/coordinator/phases.hpp"

#include <spdlog/spdlog.h>

#include <gridvec/roles/vocabulary.hpp>
#include "src/corpus/vocabulary_counts.hpp"
#include "src/corpus/vocabulary_lookup.hpp"
#include "src/formats/init_model.hpp"
#include "src/formats/model_dir.hpp"
#include "src/model/partition_choice.hpp"

namespace gridvec {

namespace {

// The partition model, now that V is known: --partition auto takes its
// choice where gridvec can run it; --explain prints it and ends the job.
// False if the job ended here.
// --partition auto and --explain on a cluster, without --link-speed: the
// link between this node and a shard node in another process, timed. A
// block goes there and back three times; the fastest round trip gives the
// speed (the block's bytes both ways over its time: one direction's rate
// on a full-duplex link). Then `then`, with or without a measurement.
constexpr size_t probe_bytes = size_t{2} << 20;
constexpr int probe_rounds = 3;

void probe_link(coordinator_ptr self, node_actor node, std::string name, int left, double best,
                std::function<void()> then) {
  auto block = std::make_shared<const wire_bytes>(probe_bytes);
  const auto start = coordinator_clock::now();
  self->request(node, std::chrono::seconds(30), echo_atom::value, *block)
    .then(
      [self, node, name, left, best, then, block, start](const wire_bytes& back) mutable {
        const double seconds = std::chrono::duration<double>(coordinator_clock::now() - start).count();
        if (back.size() == block->size() && seconds > 0)
          best = std::max(best, 2.0 * static_cast<double>(block->size()) / seconds);
        if (left > 1) {
          probe_link(self, node, name, left - 1, best, then);
          return;
        }
        self->state.measured_link_speed = best;
        say(self, "link to node " + name + ": " + std::to_string(static_cast<uint64_t>(best * 8 / 1e6)) +
                    " Mbit/s measured (2 MiB there and back, the fastest of " + std::to_string(probe_rounds) + ")");
        then();
      },
      [self, name, then](caf::error& err) {
        say(self, "link to node " + name + " not measured: " + error_text(err));
        then();
      });
}

void measure_link(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  if (st.opt.link_speed > 0 || st.nodes.size() <= 1 || !(st.opt.partition_auto || st.opt.explain)) {
    then();
    return;
  }
  for (const auto& node : st.nodes)
    if (node.shard_capacity > 0 && !node.standby && node.handle.node() != self->node()) {
      probe_link(self, node.handle, node.name, probe_rounds, 0, std::move(then));
      return;
    }
  then(); // every shard in this process: no link to measure
}

bool choose_layout(coordinator_ptr self) {
  auto& st = self->state;
  if (!st.opt.partition_auto && !st.opt.explain)
    return true;
  // The sampling tables' sizes change the choice only through a memory
  // budget; measuring them builds them from the counts, O(V), so only for
  // one or --explain, and the counts are let go after.
  const bool tables = st.opt.explain || st.shard_memory_budget > 0;
  vocabulary_counts_ptr counts;
  if (tables && st.counts) {
    auto loaded = load_shared_counts(st.vocab.path);
    if (!loaded) {
      fail(self, make_job_error(loaded.error()));
      return false;
    }
    counts = *loaded;
  }
  auto in =
    counts ? partition_inputs_of(st.opt, counts->counts) : partition_inputs_of(st.opt, st.counts ? st.counts->size : 0);
  if (in.link_bytes_per_second <= 0)
    in.link_bytes_per_second = st.measured_link_speed;
  in.memory_budget = st.shard_memory_budget;
  in.one_process = st.nodes.size() == 1; // one node hosts every role: gridvec train
  in.learner_nodes = 0;
  for (const auto& node : st.nodes)
    in.learner_nodes += node.learners > 0 ? 1 : 0;
  const auto choice = choose_partition(in);
  std::string why = choice.reason;
  auto layout = choice.chosen;
  if (st.opt.partition_auto) {
    // One node hosts every role: gridvec train, one process.
    layout = resolve_partition(choice, word_split_runnable(st.opt, st.nodes.size() == 1), why);
    if (!st.opt.replicated())
      st.opt.partition = layout == partition_layout::words ? model_partition::words : model_partition::columns;
    st.summary.word_split = st.opt.word_split();
    st.summary.partition_auto = true;
    st.summary.partition_reason = why;
  }
  if (st.opt.explain) {
    st.summary.explanation = explain_partition(in, choice);
    if (st.opt.partition_auto && layout != choice.chosen)
      st.summary.explanation += "trains: " + std::string{partition_layout_name(layout)} + " (" + why + ")\n";
    else if (!st.opt.partition_auto)
      st.summary.explanation += std::string{"trains: --partition "} +
                                (st.opt.replicated()   ? "replicated"
                                 : st.opt.word_split() ? "words"
                                                       : "columns") +
                                " (given)\n";
    st.summary.explanation += "\n" + explain_memory_plan(self);
    finish_explained(self);
    return false;
  }
  say(self, std::string{"partition: "} + partition_layout_name(layout) + ", chosen by the model (" + why + ")");
  return true;
}

// ", counted over 2 partitions, 14 sorted runs spilled to disk": where
// the counting went, when it went beyond one partition in memory.
std::string partitions_text(const coordinator_state& st, const vocabulary_info& info) {
  std::string out;
  if (st.vocab_partitions.size() > 1)
    out += ", counted over " + std::to_string(st.vocab_partitions.size()) + " partitions";
  if (info.spills > 0)
    out += ", " + std::to_string(info.spills) + " sorted runs spilled to disk";
  return out;
}

// A word2vec.c vocabulary file's words and counts (-read-vocab, --init's
// model), read by a count worker on the first vocabulary node and sent to
// the partitions; then `then`.
void load_counts(coordinator_ptr self, const std::string& path, std::function<void()> then) {
  auto& st = self->state;
  auto& node = st.nodes[node_with(st, &job_node::vocabulary)];
  self->request(node.handle, placement_timeout, new_counter_atom::value)
    .then(
      [self, path, then](count_worker_actor worker) {
        track(self, worker);
        self->request(worker, long_phase, load_atom::value, path, self->state.vocab_partitions)
          .then(
            [self, worker, then](const count_table& totals, uint64_t listed) {
              self->send_exit(worker, caf::exit_reason::user_shutdown);
              self->state.counted_lines += totals.lines;
              // -read-vocab's words alone make the counts: each must be
              // distinct (the builder checks). A model's (--init) add to a
              // corpus's; its row map finds a word listed twice.
              auto& st = self->state;
              if (st.opt.init.empty())
                st.listed_words = listed;
              then();
            },
            fail_with(self));
      },
      fail_with(self));
}

} // namespace

// --init: the model's rows as job ids, looked up in the partitions while
// they hold the words, by a count worker on the node that read the model's
// words for the counts; the shards then place the rows by number and load
// no words (src/corpus/model_row_map.hpp). Then `then`. Without partitions
// (--explain ends before placing) the shards match the rows by word.
std::string init_rows_path(const coordinator_state& st) { return st.work_dir + "/init-rows.map"; }

void map_init_rows(coordinator_ptr self, std::function<void()> then) {
  auto& st = self->state;
  st.init_rows.clear();
  if (st.opt.init.empty() || st.vocab_partitions.empty() || st.opt.explain) {
    then();
    return;
  }
  const std::string path = init_rows_path(st);
  auto& node = st.nodes[node_with(st, &job_node::vocabulary)];
  self->request(node.handle, placement_timeout, new_counter_atom::value)
    .then(
      [self, path, then](count_worker_actor worker) {
        auto& st = self->state;
        track(self, worker);
        self
          ->request(worker, long_phase, row_map_atom::value, model_files::vocab(st.opt.init), path,
                    uint64_t{st.vocab.size}, uint64_t{st.vocab_crc}, st.vocab_partitions)
          .then(
            [self, worker, path, then](uint64_t rows, uint64_t found) {
              self->send_exit(worker, caf::exit_reason::user_shutdown);
              self->state.init_rows = path;
              say(self, "--init: the model's " + std::to_string(rows) + " rows mapped to word ids (" +
                          std::to_string(found) + " in the vocabulary) in the row map " + path);
              then();
            },
            fail_with(self));
      },
      fail_with(self));
}

namespace {

void build_vocabulary(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::vocabulary;
  vocabulary_build what;
  what.partitions = st.vocab_partitions;
  what.min_count = st.opt.min_count;
  what.max_size = st.opt.max_vocab;
  what.path = st.store ? st.store->vocabulary_path() : st.work_dir + "/vocabulary.txt";
  what.word2vec_path = st.opt.explain ? std::string{} : st.opt.save_vocab; // --explain writes nothing
  what.corpus_tokens = st.counted_tokens;
  what.lines = st.counted_lines;
  what.listed_words = st.listed_words;
  auto builder = spawn_vocabulary_builder(self->system());
  track(self, builder);
  self->request(builder, long_phase, build_atom::value, std::move(what))
    .then(
      [self](const vocabulary_info& info) {
        auto& st = self->state;
        const std::string counted_by = partitions_text(st, info);
        // The partitions keep their words until the learners have turned
        // their parts into ids through them (run_preprocessing).
        use_vocabulary(self, info);
        if (st.finished)
          return;
        if (st.opt.read_vocab.empty())
          say(self, "vocabulary: " + std::to_string(info.size) + " words (" + std::to_string(info.distinct_words) +
                      " distinct, " + std::to_string(info.raw_words) + " tokens; " + std::to_string(info.train_words) +
                      " in vocabulary)" + counted_by);
        else
          say(self, "vocabulary: " + std::to_string(info.size) + " words of the " +
                      std::to_string(info.distinct_words) + " in " + st.opt.read_vocab);
        if (!st.opt.save_vocab.empty() && !st.opt.explain)
          say(self, "vocabulary saved to " + st.opt.save_vocab);
        measure_link(self, [self] {
          fetch_budgets(self, [self] {
            if (self->state.finished)
              return;
            choose_shard_count(self);
            if (!choose_layout(self))
              return;
            map_init_rows(self, [self] {
              place_all_shards(self, [self] { place_learners(self, [self] { run_preprocessing(self); }); });
            });
          });
        });
      },
      fail_with(self));
}

// --init: the saved model's words and counts join the corpus's, so that
// every word the model knows keeps its row and its counts add up (as
// gensim's build_vocab(update=True)).
void after_counting(coordinator_ptr self) {
  auto& st = self->state;
  if (st.opt.init.empty()) {
    build_vocabulary(self);
    return;
  }
  // A checkpoint or a vectors file becomes a model in the work directory
  // first (src/formats/init_model.hpp); the shards then read it there.
  auto source = find_init_source(st.opt.init);
  if (!source) {
    fail(self, make_job_error(source.error()));
    return;
  }
  if (source->kind != init_source_kind::model) {
    const std::string dir = st.work_dir + "/init-model";
    auto words = write_init_model(*source, dir, st.opt.min_count);
    if (!words) {
      fail(self, make_job_error(words.error()));
      return;
    }
    say(self, std::string{source->kind == init_source_kind::checkpoint ? "the checkpoint " : "the vectors "} +
                source->path + " (" + std::to_string(*words) + " words) as a model in " + dir);
    st.opt.init = dir;
  }
  auto model = read_model_manifest(st.opt.init);
  if (!model) {
    fail(self, make_job_error(model.error()));
    return;
  }
  if (model->dim != st.opt.size) {
    fail(self, make_job_error("--init " + st.opt.init + " holds vectors of " + std::to_string(model->dim) +
                              " columns; give -size " + std::to_string(model->dim) + " to continue it"));
    return;
  }
  load_counts(self, model_files::vocab(st.opt.init), [self] {
    say(self, "continuing the model in " + self->state.opt.init);
    build_vocabulary(self);
  });
}

} // namespace

void use_vocabulary(coordinator_ptr self, const vocabulary_info& info) {
  auto& st = self->state;
  st.vocab = info;
  st.summary.vocab_size = info.size;
  st.summary.raw_words = info.raw_words;
  auto crc = file_crc32(info.path);
  if (!crc) {
    fail(self, make_job_error(crc.error()));
    return;
  }
  st.vocab_crc = *crc;
  st.words.reset();
  // Shards and learners load the counts beside the file, not its words;
  // the coordinator reads its header (its queries load the words when
  // asked). The builder wrote them; a checkpoint directory of an older
  // gridvec has none, and they are written here from the words, once.
  auto counts = read_vocabulary_counts_header(vocabulary_counts_path(info.path));
  if (!counts || counts->vocab_crc != *crc) {
    auto words = load_shared_vocabulary(info.path);
    if (!words) {
      fail(self, make_job_error(words.error()));
      return;
    }
    if (auto s = write_vocabulary_counts(vocabulary_counts::of(**words, *crc), vocabulary_counts_path(info.path)); !s) {
      fail(self, make_job_error(s.error()));
      return;
    }
    counts = read_vocabulary_counts_header(vocabulary_counts_path(info.path));
    if (!counts) {
      fail(self, make_job_error(counts.error()));
      return;
    }
  }
  st.counts = *counts;
}

namespace {

// The words in memory where the vocabulary is small enough; null where
// queries read them from the file.
expected<vocabulary_ptr> small_vocabulary(coordinator_state& st) {
  if (!st.words && st.vocab.size <= whole_query_vocabulary) {
    auto words = load_shared_vocabulary(st.vocab.path);
    if (!words)
      return failure{words.error()};
    st.words = *words;
  }
  return st.words;
}

} // namespace

expected<std::vector<uint32_t>> query_ids(coordinator_state& st, const std::vector<std::string>& words) {
  auto vocab = small_vocabulary(st);
  if (!vocab)
    return failure{vocab.error()};
  if (!*vocab)
    return ids_in_vocabulary_file(st.vocab.path, words);
  std::vector<uint32_t> ids;
  for (const auto& w : words)
    ids.push_back((*vocab)->id_of(w));
  return ids;
}

expected<std::vector<std::string>> query_words_of(coordinator_state& st, const std::vector<uint32_t>& ids) {
  auto vocab = small_vocabulary(st);
  if (!vocab)
    return failure{vocab.error()};
  if (!*vocab)
    return words_in_vocabulary_file(st.vocab.path, ids);
  std::vector<std::string> words;
  for (uint32_t id : ids) {
    if (id >= (*vocab)->size())
      return failure{"word " + std::to_string(id) + " is past the vocabulary's last"};
    words.emplace_back((*vocab)->word(id));
  }
  return words;
}

// Map: part i is counted on the node of learner i (where its data is),
// each word's counts sent to the vocabulary partition that owns it.
// Reduce: the partitions decide the vocabulary (build_vocabulary). With
// -read-vocab, the counts come from that file instead.
void count_words(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::counting;
  st.counted_tokens = 0;
  st.counted_lines = 0;
  st.listed_words = 0;
  if (!st.opt.read_vocab.empty()) {
    say(self, "reading the vocabulary from " + st.opt.read_vocab);
    load_counts(self, st.opt.read_vocab, [self] { after_counting(self); });
    return;
  }
  say(self, "counting words of " + st.opt.train + " in " + std::to_string(st.count_ranges.size()) + " parts");
  auto pending = std::make_shared<size_t>(st.count_ranges.size());
  for (size_t i = 0; i < st.count_ranges.size(); ++i) {
    auto& node = st.nodes[st.learner_node[i % st.learner_node.size()]];
    self->request(node.handle, placement_timeout, new_counter_atom::value)
      .then(
        [self, pending, i](count_worker_actor worker) {
          auto& st = self->state;
          track(self, worker);
          self
            ->request(worker, long_phase, count_atom::value, st.opt.train, st.count_ranges[i].begin,
                      st.count_ranges[i].end, st.opt.invalid_utf8, st.vocab_partitions)
            .then(
              [self, pending, worker](const count_table& totals) {
                auto& st = self->state;
                self->send_exit(worker, caf::exit_reason::user_shutdown);
                st.counted_tokens += totals.total;
                st.counted_lines += totals.lines;
                if (--*pending == 0)
                  after_counting(self);
              },
              fail_with(self));
        },
        fail_with(self));
  }
}

} // namespace gridvec
