#include <gridvec/roles/exporter.hpp>

#include <chrono>
#include <cstring>
#include <functional>
#include <optional>

#include "src/corpus/vocabulary_reader.hpp"
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
  // The words are read from the vocabulary file as their rows are written,
  // never held all at once: an exporter's memory is a block of rows.
  std::string vocab_path;
  uint32_t words = 0;
  std::vector<shard_info> shards;
  uint32_t dim = 0;
  std::vector<float> block; // block_words x dim
  static inline const char* name = "exporter";
};

using exporter_ptr = exporter_actor::stateful_pointer<exporter_state>;

// The vocabulary file opened at word `id`, for the words of rows from there.
expected<vocabulary_reader> open_words_at(const std::string& path, uint32_t id) {
  auto words = vocabulary_reader::open_guarded(path);
  if (!words)
    return failure{words.error()};
  if (auto s = words->skip_to(id); !s)
    return failure{s.error()};
  return words;
}
// Rows [begin, end) of full vectors, row-major; a failure stops the reading.
using block_handler = std::function<status(uint32_t begin, uint32_t end, const float* rows)>;
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
  for (const auto& shard : st.shards) {
    // The rows it sends are those it holds of [begin, end), in order, each
    // its slice of columns.
    const shard_geometry shape = shard.geometry();
    self->request(shard.lanes.front(), shard_timeout, rows_atom::value, begin, end, output)
      .then(
        [=](const wire_bytes& rows_bytes) {
          auto& st = self->state;
          if (*failed)
            return;
          const uint32_t count = shape.rows_between(begin, end);
          const size_t want = size_t{count} * shape.columns.width * sizeof(float);
          if (rows_bytes.size() != want) {
            *failed = true;
            done(make_job_error("shard sent a malformed block of vectors"));
            return;
          }
          // Scatter the slice's columns of its rows into the full rows.
          const auto* src = reinterpret_cast<const float*>(rows_bytes.data());
          const uint32_t first_row = shape.rows.rows_below(begin);
          for (uint32_t i = 0; i < count; ++i) {
            const uint32_t w = shape.word_of(first_row + i) - begin;
            std::memcpy(st.block.data() + size_t{w} * st.dim + shape.columns.first,
                        src + size_t{i} * shape.columns.width, shape.columns.width * sizeof(float));
          }
          if (--*pending > 0)
            return;
          if (auto s = on_block(begin, end, st.block.data()); !s) {
            done(make_job_error(s.error()));
            return;
          }
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
  auto words = open_words_at(st.vocab_path, begin);
  if (!words) {
    done(make_job_error(words.error()));
    return;
  }
  auto writer = vectors_writer::create(path, binary, end - begin, st.dim);
  if (!writer) {
    done(make_job_error(writer.error()));
    return;
  }
  auto shared = std::make_shared<vectors_writer>(std::move(*writer));
  auto reader = std::make_shared<vocabulary_reader>(std::move(*words));
  read_blocks(
    self, output, begin, end,
    [self, shared, reader](uint32_t begin, uint32_t end, const float* rows) -> status {
      const uint32_t dim = self->state.dim;
      std::string word;
      uint64_t count = 0;
      for (uint32_t w = begin; w < end; ++w) {
        if (auto s = reader->next(word, count); !s)
          return s;
        shared->add(word, rows + size_t{w - begin} * dim);
      }
      return {};
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
  write_range(self, path, binary, output, 0, self->state.words, std::move(done));
}

// -classes K: every input vector in memory (K-means needs them all), then
// the reference's K-means; the words come from the file as they are written.
void write_classes(exporter_ptr self, const std::string& path, uint32_t classes, done_handler done) {
  auto& st = self->state;
  if (auto s = atomic_file::check_writable(path); !s) {
    done(make_job_error(s.error()));
    return;
  }
  auto all = std::make_shared<std::vector<float>>(size_t{st.words} * st.dim);
  read_blocks(
    self, false, 0, st.words,
    [self, all](uint32_t begin, uint32_t end, const float* rows) -> status {
      std::copy(rows, rows + size_t{end - begin} * self->state.dim, all->begin() + size_t{begin} * self->state.dim);
      return {};
    },
    [self, all, path, classes, done](caf::error err) {
      if (!err) {
        const auto& st = self->state;
        auto cl = word_classes(all->data(), st.words, st.dim, classes);
        auto words = open_words_at(st.vocab_path, 0);
        status s = words ? write_word_classes(path, *words, cl) : status{failure{words.error()}};
        if (!s)
          err = make_job_error(s.error());
      }
      done(std::move(err));
    });
}

exporter_actor::behavior_type exporter_behavior(exporter_ptr self, std::string vocab_path, uint32_t words,
                                                std::vector<shard_info> shards, uint32_t dim) {
  self->set_default_handler(caf::drop); // unexpected messages: an error reply, never printed (node_actor.cpp)
  self->state.vocab_path = std::move(vocab_path);
  self->state.words = words;
  self->state.shards = std::move(shards);
  self->state.dim = dim;
  return {
    [self](export_atom, const std::string& path, bool binary, uint32_t classes) -> caf::result<uint64_t> {
      auto rp = self->make_response_promise<uint64_t>();
      auto done = [self, rp](caf::error err) mutable {
        if (err)
          rp.deliver(std::move(err));
        else
          rp.deliver(uint64_t{self->state.words});
      };
      if (classes > 0)
        write_classes(self, path, classes, done);
      else
        write_vectors(self, path, binary, false, done);
      return rp;
    },
    [self](export_part_atom, const std::string& dir, uint32_t part, uint32_t parts,
           bool binary) -> caf::result<uint64_t> {
      const uint32_t words = self->state.words;
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
          const auto& st = self->state;
          model_manifest m{st.dim, st.words, options};
          auto words = open_words_at(st.vocab_path, 0);
          status s =
            words ? save_word2vec_vocab(*words, lines, model_files::vocab(at)) : status{failure{words.error()}};
          if (s)
            s = write_model_manifest(at, m);
          if (s)
            s = commit_model_dir(at, dir);
          if (!s)
            return fail(make_job_error(s.error()));
          rp.deliver(uint64_t{st.words});
        });
      });
      return rp;
    },
  };
}

} // namespace

expected<exporter_actor> spawn_exporter(caf::actor_system& sys, const std::string& vocab_path,
                                        std::vector<shard_info> shards, uint32_t dim) {
  auto words = vocabulary_reader::open_guarded(vocab_path);
  if (!words)
    return failure{words.error()};
  return sys.spawn(exporter_behavior, vocab_path, static_cast<uint32_t>(words->size()), std::move(shards), dim);
}

} // namespace gridvec
