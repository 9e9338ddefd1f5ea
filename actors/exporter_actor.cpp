#include <gridvec/roles/exporter.hpp>

#include <chrono>
#include <cstring>
#include <functional>
#include <optional>

#include "src/corpus/word2vec_vocab.hpp"
#include "src/formats/model_dir.hpp"
#include "src/formats/vector_parts.hpp"
#include "src/formats/vectors_file.hpp"
#include "src/model/shard_store.hpp"
#include "src/model/word_classes.hpp"
#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

constexpr uint32_t block_words = 4096;
constexpr auto shard_timeout = std::chrono::seconds(120);

struct exporter_state {
  vocabulary_ptr vocab;
  std::vector<shard_info> shards;
  uint32_t dim = 0;
  std::vector<float> block; // block_words x dim
  static inline const char* name = "exporter";
};

using exporter_ptr = exporter_actor::stateful_pointer<exporter_state>;
// Rows [begin, end) of full vectors, row-major.
using block_handler = std::function<void(uint32_t begin, uint32_t end, const float* rows)>;
using done_handler = std::function<void(caf::error)>;

// Reads the input (or output) vectors of words [begin, last), a block of
// words at a time from every shard, and hands each block on full width;
// then `done`.
void read_blocks(exporter_ptr self, bool output, uint32_t begin, uint32_t last, block_handler on_block,
                 done_handler done) {
  auto& st = self->state;
  if (begin >= last) {
    done(caf::error{});
    return;
  }
  const uint32_t end = std::min(last, begin + block_words);
  st.block.resize(size_t{block_words} * st.dim);
  auto pending = std::make_shared<size_t>(st.shards.size());
  auto failed = std::make_shared<bool>(false);
  const auto shards = static_cast<uint32_t>(st.shards.size());
  for (const auto& shard : st.shards) {
    const column_slice slice{shard.first, shard.width};
    // A shard of --partition words holds whole rows, of words index mod
    // shards: the rows it sends are those of [begin, end), in order.
    const word_rows rows{shard.index, shards};
    const bool holds_rows = shard.holds_rows;
    self->request(shard.lanes.front(), shard_timeout, rows_atom::value, begin, end, output)
      .then(
        [=](const wire_bytes& rows_bytes) {
          auto& st = self->state;
          if (*failed)
            return;
          const uint32_t count = holds_rows ? rows.rows_below(end) - rows.rows_below(begin) : end - begin;
          const size_t want = size_t{count} * slice.width * sizeof(float);
          if (rows_bytes.size() != want) {
            *failed = true;
            done(make_job_error("shard sent a malformed block of vectors"));
            return;
          }
          // Scatter the slice's columns (or the rows) into the full rows.
          const auto* src = reinterpret_cast<const float*>(rows_bytes.data());
          for (uint32_t i = 0; i < count; ++i) {
            const uint32_t w = holds_rows ? (rows.rows_below(begin) + i) * shards + rows.partition - begin : i;
            std::memcpy(st.block.data() + size_t{w} * st.dim + slice.first, src + size_t{i} * slice.width,
                        slice.width * sizeof(float));
          }
          if (--*pending > 0)
            return;
          on_block(begin, end, st.block.data());
          read_blocks(self, output, end, last, on_block, done);
        },
        [=](caf::error& err) {
          if (*failed)
            return;
          *failed = true;
          done(std::move(err));
        });
  }
}

// Words [begin, end) of one vector set into a word2vec file at `path`
// whose header counts them; `done` after the commit.
void write_range(exporter_ptr self, const std::string& path, bool binary, bool output, uint32_t begin, uint32_t end,
                 done_handler done) {
  auto& st = self->state;
  auto writer = vectors_writer::create(path, binary, end - begin, st.dim);
  if (!writer) {
    done(make_job_error(writer.error()));
    return;
  }
  auto shared = std::make_shared<vectors_writer>(std::move(*writer));
  read_blocks(
    self, output, begin, end,
    [self, shared](uint32_t begin, uint32_t end, const float* rows) {
      const uint32_t dim = self->state.dim;
      for (uint32_t w = begin; w < end; ++w)
        shared->add(self->state.vocab->word(w), rows + size_t{w - begin} * dim);
    },
    [shared, done](caf::error err) {
      if (!err)
        if (auto s = shared->commit(); !s)
          err = make_job_error(s.error());
      done(std::move(err)); // an uncommitted writer removes its temporary file
    });
}

// One vector set into a word2vec file at `path`; `done` after the commit.
void write_vectors(exporter_ptr self, const std::string& path, bool binary, bool output, done_handler done) {
  write_range(self, path, binary, output, 0, self->state.vocab->size(), std::move(done));
}

// -classes K: every input vector in memory, then the reference's K-means.
void write_classes(exporter_ptr self, const std::string& path, uint32_t classes, done_handler done) {
  auto& st = self->state;
  if (auto s = atomic_file::check_writable(path); !s) {
    done(make_job_error(s.error()));
    return;
  }
  auto all = std::make_shared<std::vector<float>>(size_t{st.vocab->size()} * st.dim);
  read_blocks(
    self, false, 0, st.vocab->size(),
    [self, all](uint32_t begin, uint32_t end, const float* rows) {
      std::copy(rows, rows + size_t{end - begin} * self->state.dim, all->begin() + size_t{begin} * self->state.dim);
    },
    [self, all, path, classes, done](caf::error err) {
      if (!err) {
        const auto& vocab = *self->state.vocab;
        std::vector<std::string> words(vocab.size());
        for (uint32_t w = 0; w < vocab.size(); ++w)
          words[w] = vocab.word(w);
        auto cl = word_classes(all->data(), vocab.size(), self->state.dim, classes);
        if (auto s = write_word_classes(path, words, cl); !s)
          err = make_job_error(s.error());
      }
      done(std::move(err));
    });
}

exporter_actor::behavior_type exporter_behavior(exporter_ptr self, vocabulary_ptr vocab, std::vector<shard_info> shards,
                                                uint32_t dim) {
  self->set_default_handler(caf::drop); // unexpected messages: an error reply, never printed (node_actor.cpp)
  self->state.vocab = std::move(vocab);
  self->state.shards = std::move(shards);
  self->state.dim = dim;
  return {
    [self](export_atom, const std::string& path, bool binary, uint32_t classes) -> caf::result<uint64_t> {
      auto rp = self->make_response_promise<uint64_t>();
      auto done = [self, rp](caf::error err) mutable {
        if (err)
          rp.deliver(std::move(err));
        else
          rp.deliver(uint64_t{self->state.vocab->size()});
      };
      if (classes > 0)
        write_classes(self, path, classes, done);
      else
        write_vectors(self, path, binary, false, done);
      return rp;
    },
    [self](export_part_atom, const std::string& dir, uint32_t part, uint32_t parts,
           bool binary) -> caf::result<uint64_t> {
      const uint32_t words = self->state.vocab->size();
      if (parts == 0 || part >= parts)
        return make_job_error("vector part " + std::to_string(part) + " of " + std::to_string(parts));
      const auto begin = static_cast<uint32_t>(vector_parts::begin_of(part, parts, words));
      const auto end = static_cast<uint32_t>(vector_parts::begin_of(part + 1, parts, words));
      auto rp = self->make_response_promise<uint64_t>();
      write_range(self, dir + "/" + vector_parts::part_name(part), binary, false, begin, end,
                  [rp, begin, end](caf::error err) mutable {
                    if (err)
                      rp.deliver(std::move(err));
                    else
                      rp.deliver(uint64_t{end - begin});
                  });
      return rp;
    },
    // --save-model: both vector sets, the counts and the options, put
    // together beside `dir` and renamed over it once complete.
    [self](save_model_atom, const std::string& dir, uint64_t lines,
           const std::vector<std::string>& options) -> caf::result<uint64_t> {
      auto partial = begin_model_dir(dir);
      if (!partial)
        return make_job_error(partial.error());
      auto rp = self->make_response_promise<uint64_t>();
      const std::string at = *partial;
      auto fail = [rp, at](caf::error err) mutable {
        abandon_model_dir(at);
        rp.deliver(std::move(err));
      };
      write_vectors(self, model_files::input(at), true, false, [=](caf::error err) mutable {
        if (err)
          return fail(std::move(err));
        write_vectors(self, model_files::output(at), true, true, [=](caf::error err) mutable {
          if (err)
            return fail(std::move(err));
          const auto& vocab = *self->state.vocab;
          model_manifest m{self->state.dim, vocab.size(), options};
          status s = save_word2vec_vocab(vocab, lines, model_files::vocab(at));
          if (s)
            s = write_model_manifest(at, m);
          if (s)
            s = commit_model_dir(at, dir);
          if (!s)
            return fail(make_job_error(s.error()));
          rp.deliver(uint64_t{vocab.size()});
        });
      });
      return rp;
    },
  };
}

} // namespace

exporter_actor spawn_exporter(caf::actor_system& sys, vocabulary_ptr vocab, std::vector<shard_info> shards,
                              uint32_t dim) {
  return sys.spawn(exporter_behavior, std::move(vocab), std::move(shards), dim);
}

} // namespace gridvec
