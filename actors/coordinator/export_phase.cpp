// export phase: see phases.hpp for where it stands among the others.
// Exporting: the exporter reads the shards' column slices back and writes
// the vectors file; then the job is done (finish).
#include "actors/coordinator/phases.hpp"

#include <spdlog/spdlog.h>

namespace gridvec {

void run_export(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::exporting;
  if (st.opt.classes > 0)
    say(self, "exporting " + std::to_string(st.opt.classes) + " k-means classes of " + std::to_string(st.vocab.size) +
                " vectors to " + st.opt.output);
  else
    say(self, "exporting " + std::to_string(st.vocab.size) + " vectors to " + st.opt.output);
  auto& node = st.nodes[node_with(st, &job_node::exporter)];
  const uint64_t attempt = ++st.checkpoint_attempt; // a recovery meanwhile voids this export
  self->request(node.handle, placement_timeout, new_export_atom::value, st.vocab.path, st.shards, st.opt.size)
    .then(
      [self, attempt](exporter_actor exporter) {
        auto& st = self->state;
        track(self, exporter);
        self->request(exporter, long_phase, export_atom::value, st.opt.output, st.opt.binary, st.opt.classes)
          .then(
            [self, attempt, exporter](uint64_t) {
              auto& st = self->state;
              if (st.checkpoint_attempt != attempt || st.phase != job_phase::exporting)
                return;
              if (st.opt.save_model.empty()) {
                finish(self);
                return;
              }
              say(self, "saving the model to " + st.opt.save_model);
              self
                ->request(exporter, long_phase, save_model_atom::value, st.opt.save_model, st.vocab.lines,
                          to_args(st.opt))
                .then(
                  [self, attempt](uint64_t) {
                    if (self->state.checkpoint_attempt == attempt && self->state.phase == job_phase::exporting)
                      finish(self);
                  },
                  [self, attempt](caf::error& err) {
                    if (self->state.checkpoint_attempt == attempt && self->state.phase == job_phase::exporting)
                      fail(self, err);
                  });
            },
            [self, attempt](caf::error& err) {
              if (self->state.checkpoint_attempt == attempt && self->state.phase == job_phase::exporting)
                fail(self, err);
            });
      },
      fail_with(self));
}

} // namespace gridvec
