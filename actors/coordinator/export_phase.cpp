// export phase: see phases.hpp for where it stands among the others.
// Exporting: the exporter reads the shards' column slices back and writes
// the vectors file; then the job is done (finish). With --output-parts 1,
// every vocabulary node's exporter writes its share of the ids as one part
// file at the same time, and the coordinator puts the directory in place
// once every part is written (src/formats/vector_parts.hpp).
#include "actors/coordinator/phases.hpp"

#include <spdlog/spdlog.h>

#include "src/formats/vector_parts.hpp"

namespace gridvec {

namespace {

// Whether the export that began as `attempt` is still the job's.
bool current(coordinator_ptr self, uint64_t attempt) {
  return self->state.checkpoint_attempt == attempt && self->state.phase == job_phase::exporting;
}

// --save-model after the vectors (by the first exporter), then finish.
void save_model_then_finish(coordinator_ptr self, uint64_t attempt, exporter_actor exporter) {
  auto& st = self->state;
  if (st.opt.save_model.empty()) {
    finish(self);
    return;
  }
  say(self, "saving the model to " + st.opt.save_model);
  self->request(exporter, long_phase, save_model_atom::value, st.opt.save_model, st.vocab.lines, to_args(st.opt))
    .then(
      [self, attempt](uint64_t) {
        if (current(self, attempt))
          finish(self);
      },
      [self, attempt](caf::error& err) {
        if (current(self, attempt))
          fail(self, err);
      });
}

// What the part writers have done so far.
struct parts_progress {
  std::string partial;
  vector_parts_manifest manifest;
  std::vector<exporter_actor> exporters;
  size_t pending = 0;
  bool failed = false;
};

void export_parts(coordinator_ptr self, uint64_t attempt) {
  auto& st = self->state;
  const auto writers = part_writers(st);
  auto partial = begin_vector_parts(st.opt.output, attempt);
  if (!partial) {
    fail(self, make_job_error(partial.error()));
    return;
  }
  say(self, "exporting " + std::to_string(st.vocab.size) + " vectors to " + st.opt.output + " as " +
              std::to_string(writers.size()) +
              (writers.size() == 1 ? " part file" : " part files, written in parallel"));
  auto progress = std::make_shared<parts_progress>();
  progress->partial = *partial;
  progress->manifest.words = st.vocab.size;
  progress->manifest.dim = st.opt.size;
  progress->manifest.binary = st.opt.binary;
  progress->manifest.names.resize(writers.size());
  progress->manifest.part_words.resize(writers.size());
  progress->exporters.resize(writers.size());
  progress->pending = writers.size();
  const auto parts = static_cast<uint32_t>(writers.size());
  auto give_up = [self, attempt, progress](caf::error& err) {
    if (progress->failed)
      return;
    progress->failed = true;
    abandon_vector_parts(progress->partial);
    if (current(self, attempt))
      fail(self, err);
  };
  for (uint32_t k = 0; k < parts; ++k) {
    auto& node = st.nodes[writers[k]];
    self->request(node.handle, placement_timeout, new_export_atom::value, st.vocab.path, st.shards, st.opt.size)
      .then(
        [self, attempt, progress, k, parts, give_up](exporter_actor exporter) {
          auto& st = self->state;
          track(self, exporter);
          progress->exporters[k] = exporter;
          self->request(exporter, long_phase, export_part_atom::value, progress->partial, k, parts, st.opt.binary)
            .then(
              [self, attempt, progress, k](uint64_t words) {
                if (progress->failed)
                  return;
                progress->manifest.names[k] = vector_parts::part_name(k);
                progress->manifest.part_words[k] = words;
                if (--progress->pending > 0)
                  return;
                if (!current(self, attempt)) {
                  abandon_vector_parts(progress->partial);
                  return;
                }
                auto& st = self->state;
                if (auto s = commit_vector_parts(progress->partial, st.opt.output, progress->manifest); !s) {
                  abandon_vector_parts(progress->partial);
                  fail(self, make_job_error(s.error()));
                  return;
                }
                save_model_then_finish(self, attempt, progress->exporters.front());
              },
              give_up);
        },
        give_up);
  }
}

} // namespace

std::vector<size_t> part_writers(const coordinator_state& st) {
  std::vector<size_t> nodes;
  for (size_t i = 0; i < st.nodes.size(); ++i)
    if (st.nodes[i].vocabulary && !st.nodes[i].standby)
      nodes.push_back(i);
  if (nodes.empty())
    nodes.push_back(node_with(st, &job_node::exporter));
  return nodes;
}

void run_export(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::exporting;
  const uint64_t attempt = ++st.checkpoint_attempt; // a recovery meanwhile voids this export
  if (st.opt.output_parts && st.opt.classes == 0) {
    export_parts(self, attempt);
    return;
  }
  if (st.opt.classes > 0)
    say(self, "exporting " + std::to_string(st.opt.classes) + " k-means classes of " + std::to_string(st.vocab.size) +
                " vectors to " + st.opt.output);
  else
    say(self, "exporting " + std::to_string(st.vocab.size) + " vectors to " + st.opt.output);
  auto& node = st.nodes[node_with(st, &job_node::exporter)];
  self->request(node.handle, placement_timeout, new_export_atom::value, st.vocab.path, st.shards, st.opt.size)
    .then(
      [self, attempt](exporter_actor exporter) {
        auto& st = self->state;
        track(self, exporter);
        self->request(exporter, long_phase, export_atom::value, st.opt.output, st.opt.binary, st.opt.classes)
          .then(
            [self, attempt, exporter](uint64_t) {
              if (current(self, attempt))
                save_model_then_finish(self, attempt, exporter);
            },
            [self, attempt](caf::error& err) {
              if (current(self, attempt))
                fail(self, err);
            });
      },
      fail_with(self));
}

} // namespace gridvec
