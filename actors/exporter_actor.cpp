#include "actors/exporter_actor.hpp"

#include <chrono>
#include <cstring>
#include <optional>

#include "src/formats/vectors_file.hpp"
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
  std::optional<vectors_writer> writer;
  // -classes K: every vector is kept, for K-means once all have arrived.
  std::string classes_path;
  uint32_t classes = 0;
  std::vector<float> all; // vocabulary size x dim
  caf::typed_response_promise<uint64_t> done;
  std::vector<float> block; // block_words x dim
  static inline const char* name = "exporter";
};

using exporter_ptr = exporter_actor::stateful_pointer<exporter_state>;

void export_block(exporter_ptr self, uint32_t begin) {
  auto& st = self->state;
  const uint32_t vocab_size = st.vocab->size();
  if (begin >= vocab_size) {
    status s;
    if (st.classes > 0) {
      std::vector<std::string> words(vocab_size);
      for (uint32_t w = 0; w < vocab_size; ++w)
        words[w] = st.vocab->word(w);
      s = write_word_classes(st.classes_path, words, word_classes(st.all.data(), vocab_size, st.dim, st.classes));
      st.all = {};
    } else {
      s = st.writer->commit();
      st.writer.reset();
    }
    if (!s)
      st.done.deliver(make_job_error(s.error()));
    else
      st.done.deliver(uint64_t{vocab_size});
    return;
  }
  const uint32_t end = std::min(vocab_size, begin + block_words);
  st.block.resize(size_t{block_words} * st.dim);
  auto pending = std::make_shared<size_t>(st.shards.size());
  auto failed = std::make_shared<bool>(false);
  for (const auto& shard : st.shards) {
    const column_slice slice{shard.first, shard.width};
    self->request(shard.lanes.front(), shard_timeout, rows_atom::value, begin, end)
      .then(
        [=](const wire_bytes& rows) {
          auto& st = self->state;
          if (*failed)
            return;
          const size_t want = size_t{end - begin} * slice.width * sizeof(float);
          if (rows.size() != want) {
            *failed = true;
            st.writer.reset(); // removes the temporary file
            st.done.deliver(make_job_error("shard sent a malformed block of vectors"));
            return;
          }
          // Scatter the slice's columns into the full rows.
          const auto* src = reinterpret_cast<const float*>(rows.data());
          for (uint32_t w = 0; w < end - begin; ++w)
            std::memcpy(st.block.data() + size_t{w} * st.dim + slice.first, src + size_t{w} * slice.width,
                        slice.width * sizeof(float));
          if (--*pending > 0)
            return;
          if (st.classes > 0)
            std::copy(st.block.begin(), st.block.begin() + size_t{end - begin} * st.dim,
                      st.all.begin() + size_t{begin} * st.dim);
          else
            for (uint32_t w = begin; w < end; ++w)
              st.writer->add(st.vocab->word(w), st.block.data() + size_t{w - begin} * st.dim);
          export_block(self, end);
        },
        [=](caf::error& err) {
          if (*failed)
            return;
          *failed = true;
          self->state.writer.reset();
          self->state.done.deliver(std::move(err));
        });
  }
}

exporter_actor::behavior_type exporter_behavior(exporter_ptr self, vocabulary_ptr vocab, std::vector<shard_info> shards,
                                                uint32_t dim) {
  self->state.vocab = std::move(vocab);
  self->state.shards = std::move(shards);
  self->state.dim = dim;
  return {
    [self](export_atom, const std::string& path, bool binary, uint32_t classes) -> caf::result<uint64_t> {
      auto& st = self->state;
      st.classes = classes;
      if (classes > 0) {
        if (auto s = atomic_file::check_writable(path); !s)
          return make_job_error(s.error());
        st.classes_path = path;
        st.all.assign(size_t{st.vocab->size()} * st.dim, 0.0f);
      } else {
        auto writer = vectors_writer::create(path, binary, st.vocab->size(), st.dim);
        if (!writer)
          return make_job_error(writer.error());
        st.writer.emplace(std::move(*writer));
      }
      st.done = self->make_response_promise<uint64_t>();
      export_block(self, 0);
      return st.done;
    },
  };
}

} // namespace

exporter_actor spawn_exporter(caf::actor_system& sys, vocabulary_ptr vocab, std::vector<shard_info> shards,
                              uint32_t dim) {
  return sys.spawn(exporter_behavior, std::move(vocab), std::move(shards), dim);
}

} // namespace gridvec
