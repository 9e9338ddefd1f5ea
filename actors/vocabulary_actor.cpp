#include "actors/vocabulary_actor.hpp"

#include <chrono>

#include "src/text_corpus.hpp"

namespace gridvec {

namespace {

count_worker_actor::behavior_type count_worker(count_worker_actor::pointer self) {
  return {
    [self](count_atom, const std::string& path, uint64_t begin,
           uint64_t end) -> caf::result<word_counts_ptr> {
      auto counts = std::make_shared<word_counts>();
      corpus_scanner scanner{path};
      auto s = scanner.scan({begin, end}, [&](std::string_view w) { counts->add(w); }, [] {});
      self->quit();
      if (!s)
        return make_job_error(s.error());
      return word_counts_ptr{std::move(counts)};
    },
  };
}

struct vocabulary_state {
  word_counts merged;
  static inline const char* name = "vocabulary";
};

// Counting a part can take minutes on a large corpus.
constexpr auto count_timeout = std::chrono::seconds(24 * 3600);

vocabulary_actor::behavior_type
vocabulary_behavior(vocabulary_actor::stateful_pointer<vocabulary_state> self) {
  return {
    [self](count_atom, const std::string& path, uint32_t parts) -> caf::result<corpus_stats> {
      auto ranges = split_corpus(path, parts);
      if (!ranges)
        return make_job_error(ranges.error());
      auto rp = self->make_response_promise<corpus_stats>();
      auto pending = std::make_shared<size_t>(ranges->size());
      auto failed = std::make_shared<bool>(false);
      self->state.merged = word_counts{};
      for (const auto& r : *ranges) {
        auto worker = spawn_count_worker(self->system());
        self->request(worker, count_timeout, count_atom::value, path, r.begin, r.end)
          .then(
            [=](const word_counts_ptr& counts) mutable {
              if (*failed)
                return;
              self->state.merged.merge(*counts);
              if (--*pending == 0)
                rp.deliver(corpus_stats{self->state.merged.total(), self->state.merged.distinct()});
            },
            [=](caf::error& err) mutable {
              if (!*failed) {
                *failed = true;
                rp.deliver(std::move(err));
              }
            });
      }
      return rp;
    },
    [self](build_atom, uint64_t min_count, uint64_t max_size) -> caf::result<vocabulary_ptr> {
      auto v = vocabulary::build(self->state.merged, min_count, max_size);
      if (!v)
        return make_job_error(v.error());
      self->state.merged = word_counts{}; // the counts are not needed again
      return vocabulary_ptr{std::make_shared<const vocabulary>(std::move(*v))};
    },
  };
}

} // namespace

count_worker_actor spawn_count_worker(caf::actor_system& sys) {
  return sys.spawn<caf::detached>(count_worker);
}

vocabulary_actor spawn_vocabulary(caf::actor_system& sys) {
  return sys.spawn(vocabulary_behavior);
}

} // namespace gridvec
