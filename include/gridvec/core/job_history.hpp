#pragma once
// (Public header of src/util/history_buffer.cpp and src/util/event_log.cpp.)
// What a job's coordinator remembers of its run for a dashboard
// (docs/http.md, GET /history and /events): its curves at a resolution that
// coarsens as the run grows, so that a bounded buffer always covers the
// whole run; the phases it went through; its checkpoints; and the last lines
// of its event log.
#include <cstdint>
#include <string>
#include <vector>

#include <gridvec/core/report.hpp> // node_traffic

namespace gridvec {

/// The job over one interval of the run, ending at `seconds`.
struct history_point {
  double seconds = 0;          // since the job started
  double span = 0;             // seconds the point covers (it ends at `seconds`)
  double progress = 0;         // 0..1 of the training, at its end
  double words_per_second = 0; // corpus words processed per second over its span
  double loss = 0;             // mean SGNS loss per positive pair over its span; 0: no pair trained
  uint64_t pairs = 0;          // positive pairs the loss averages
  float alpha = 0;             // learning rate at its end
};

/// A stretch of the run in one phase (training, paused, recovering, ...).
struct phase_span {
  std::string phase;
  double from = 0, to = 0; // seconds since the job started; `to`: last seen in it
};

/// An instant worth marking on the curves: a checkpoint written.
struct history_mark {
  double seconds = 0;
  std::string label;
};

/// One line of a job's event log.
struct job_event {
  uint64_t sequence = 0; // 1, 2, ... in the job's order
  double seconds = 0;    // since the job started
  int64_t unix_ms = 0;   // wall clock, milliseconds since 1970
  std::string level;     // info, warning, error
  std::string text;
};

/// A job's history as GET /history and /events give it.
struct job_history {
  uint64_t job = 0;
  int64_t started_unix_ms = 0; // 0: no job yet
  double seconds = 0;          // since the job started: now, or its end once it ended
  double interval = 0;         // seconds between points now (doubles as the run grows)
  uint32_t capacity = 0;       // points kept at most
  std::vector<history_point> points;
  std::vector<phase_span> phases;
  std::vector<history_mark> marks;
  std::vector<job_event> events;   // the last ones, oldest first
  uint64_t events_total = 0;       // of the whole job (older ones are gone)
  std::vector<node_traffic> nodes; // training traffic per node so far
};

} // namespace gridvec
