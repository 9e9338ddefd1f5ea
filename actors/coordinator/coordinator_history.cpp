// What the coordinator keeps of its run for a dashboard (GET /history and
// /events, docs/http.md): the curves (src/util/history_buffer.hpp), sampled
// on every tick while the job trains; the phases and checkpoints; and the
// event log, fed by say() and warn() and the job's start and end.
#include <algorithm>
#include <chrono>

#include "actors/coordinator/coordinator_state.hpp"

namespace gridvec {

namespace {

double seconds_at(const coordinator_state& st, coordinator_clock::time_point t) {
  if (st.started == coordinator_clock::time_point{})
    return 0;
  return std::chrono::duration<double>(t - st.started).count();
}

double since_start(const coordinator_state& st) { return seconds_at(st, coordinator_clock::now()); }

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// Pausing leads into paused: no span of its own.
const char* span_phase(job_phase p) {
  if (p == job_phase::pausing)
    return phase_name(job_phase::paused);
  return phase_name(p);
}

} // namespace

void note_event(coordinator_state& st, const char* level, const std::string& text) {
  st.events.add(since_start(st), unix_ms_now(), level, text);
}

void record_history(coordinator_state& st) {
  const double now = since_start(st);
  // A recovery may be over within one tick (a small model reloads in
  // milliseconds): its span goes in from when it began, so that the curves
  // show every one.
  if (st.phase == job_phase::recovering)
    st.recovery_seen = true;
  if (st.summary.recoveries > st.marked_recoveries) {
    st.marked_recoveries = st.summary.recoveries;
    if (!st.recovery_seen)
      st.history.phase(std::min(now, seconds_at(st, st.recovery_started)), phase_name(job_phase::recovering));
    st.recovery_seen = false;
  }
  st.history.phase(now, span_phase(st.phase));
  if (st.training_like()) {
    const uint64_t total = st.total_words();
    const uint64_t done = st.processed_words();
    const double progress = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0;
    st.history.sample(now, progress, done, st.alpha);
  }
  if (st.last_checkpoint > st.marked_checkpoint) {
    st.marked_checkpoint = st.last_checkpoint;
    st.history.mark(now, "checkpoint " + std::to_string(st.last_checkpoint));
  }
}

job_history make_history(const coordinator_state& st) {
  job_history h;
  h.job = st.job_id;
  h.started_unix_ms = st.started_unix_ms;
  h.phases = st.history.phases();
  // A job that ended spans until its end, however long ago that was.
  h.seconds = st.finished && !h.phases.empty() ? h.phases.back().to : since_start(st);
  h.interval = st.history.interval();
  h.capacity = static_cast<uint32_t>(st.history.capacity());
  h.points = st.history.points();
  h.marks = st.history.marks();
  h.events = st.events.since(0);
  h.events_total = st.events.total();
  if (!st.nodes.empty() && !st.learner_wire.empty())
    h.nodes = traffic_per_node(st);
  return h;
}

} // namespace gridvec
