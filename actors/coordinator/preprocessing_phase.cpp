// preprocessing phase: see phases.hpp for where it stands among the others.
// Preprocessing: each learner turns its corpus parts into word-id files
// (src/corpus/id_stream.hpp), read by every epoch, by asking the
// vocabulary partitions for the ids of each chunk's distinct words (the
// join, src/corpus/word_join.hpp); then the partitions end, and training
// starts.
#include "actors/coordinator/phases.hpp"

#include <spdlog/spdlog.h>

#include "src/corpus/id_stream.hpp"

namespace gridvec {

void run_preprocessing(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::preprocessing;
  say(self, "preprocessing: corpus -> word ids in " + st.work_dir);
  auto pending = std::make_shared<size_t>(st.ranges.size());
  st.cursors.resize(st.ranges.size());
  st.owner.resize(st.ranges.size());
  for (uint32_t p = 0; p < st.ranges.size(); ++p) {
    auto ids = st.work_dir + "/part-" + std::to_string(p) + ".ids";
    const uint32_t learner = p % static_cast<uint32_t>(st.learners.size());
    st.owner[p] = learner;
    self
      ->request(st.learners[learner], long_phase, preprocess_atom::value, st.opt.train, st.ranges[p].begin,
                st.ranges[p].end, ids, st.vocab_partitions)
      .then(
        [self, pending, p, ids](uint64_t words) {
          auto& st = self->state;
          st.cursors[p] = part_cursor{p, ids, words, 0, id_reader::first_offset, 0};
          if (--*pending == 0) {
            // Every part is ids now: the partitions' words are needed no more.
            for (auto& v : st.vocab_partitions)
              self->send_exit(v, caf::exit_reason::user_shutdown);
            st.vocab_partitions.clear();
            if (st.opt.work_queue())
              st.queue.emplace(st.cursors.size(), st.opt.iter);
            start_training(self);
          }
        },
        fail_with(self));
  }
}

} // namespace gridvec
