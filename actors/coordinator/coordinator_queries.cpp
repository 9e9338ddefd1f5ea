// What the coordinator tells about its job: the progress line, `status`,
// `shards`, `learners`, and `nearest`/`analogy`, which the shards answer
// with partial dot products (src/model/similarity.hpp) so no vector is shipped;
// `vector` joins one word's column slices (the exporter's `rows`, one row).
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>

#include "actors/coordinator/coordinator_state.hpp"
#include "actors/coordinator/similarity_query.hpp"
#include "actors/layouts/layouts.hpp"
#include "src/model/similarity.hpp"
#include "src/util/human_units.hpp"

namespace gridvec {

double training_rate(const coordinator_state& st) {
  const double seconds = st.active_training_seconds();
  const double done = static_cast<double>(st.words_since_start());
  return seconds > 0 && done > 0 ? done / seconds : 0;
}

job_status make_status(const coordinator_state& st) {
  job_status s;
  s.job = st.job_id;
  s.phase = phase_name(st.phase);
  s.message = st.message;
  s.iterations = st.opt.iter;
  s.processed_words = st.processed_words();
  s.total_words = st.total_words();
  s.progress = s.total_words > 0 ? static_cast<double>(s.processed_words) / static_cast<double>(s.total_words) : 0;
  if (st.phase == job_phase::exporting || st.phase == job_phase::done)
    s.progress = 1;
  s.epoch = std::min<uint32_t>(st.opt.iter, static_cast<uint32_t>(s.progress * st.opt.iter) + 1);
  // Once training ended (exporting, done, or failed after it) the clock
  // stands still: the figure is the one the last progress line showed.
  const bool trained = st.training_ended != coordinator_clock::time_point{};
  if (st.training_like() || trained)
    s.words_per_second = trained ? st.summary.training_words_per_second : training_rate(st);
  // Unknown (negative) until there is a rate; 0 once training ended.
  s.eta_seconds =
    trained || s.progress >= 1 ? 0
    : s.words_per_second > 0
      ? static_cast<double>(s.total_words - std::min(s.total_words, s.processed_words)) / s.words_per_second
      : -1;
  s.alpha = st.alpha;
  s.loss = st.last_loss;
  uint64_t bytes = 0;
  for (auto b : st.totals.wire.bytes)
    bytes += b;
  s.traffic_messages.assign(st.totals.wire.messages.begin(), st.totals.wire.messages.end());
  s.traffic_bytes.assign(st.totals.wire.bytes.begin(), st.totals.wire.bytes.end());
  s.bytes_per_word =
    st.totals.trained_words > 0 ? static_cast<double>(bytes) / static_cast<double>(st.totals.trained_words) : 0;
  s.shards = static_cast<uint32_t>(st.shards.size());
  for (bool alive : st.learner_alive)
    s.learners += alive ? 1 : 0;
  s.vocab_size = st.vocab.size;
  s.last_checkpoint = st.last_checkpoint;
  s.recoveries = st.summary.recoveries;
  // Since the job started; it stops when the job ends.
  const auto end = st.ended != coordinator_clock::time_point{} ? st.ended : coordinator_clock::now();
  s.seconds = std::chrono::duration<double>(end - st.started).count();
  return s;
}

void print_progress(coordinator_ptr self, bool final_line, bool to_log) {
  auto& st = self->state;
  const double total = static_cast<double>(st.total_words());
  const double done = static_cast<double>(st.processed_words());
  const double rate = training_rate(st);
  // No ETA until there is a rate (the first line of a run has none).
  const std::string eta = rate > 0 ? human_duration(std::max(0.0, total - done) / rate) : "-";
  if (st.recent_pairs > 0) {
    st.last_loss = st.recent_loss / static_cast<double>(st.recent_pairs);
    st.loss_history.emplace_back(st.processed_words(), st.last_loss);
  }
  st.recent_loss = 0;
  st.recent_pairs = 0;
  char line[256];
  std::snprintf(line, sizeof line, "%5.1f%%  %s words/s  eta %s  alpha %.5f  loss %.4f",
                total > 0 ? 100.0 * done / total : 100.0, human_count(rate).c_str(), eta.c_str(), st.alpha,
                st.last_loss);
  if (st.sink) // the last one as an event: every listener shows it
    st.sink(final_line ? std::string{line} : progress_prefix + std::string{line});
  if (!to_log || st.opt.debug < 2) // -debug 0 and 1 print no progress
    return;
  if (st.tty) {
    std::fprintf(stderr, "\r%s", line);
    std::fflush(stderr);
    st.printed_progress_line = true;
    if (final_line) {
      std::fputc('\n', stderr);
      st.printed_progress_line = false;
    }
  } else {
    spdlog::info("{}", line);
  }
}

void query_shards(coordinator_ptr self, caf::typed_response_promise<std::vector<shard_status>> rp) {
  auto& st = self->state;
  auto out = std::make_shared<std::vector<shard_status>>(st.shards.size());
  if (out->empty()) {
    rp.deliver(*out);
    return;
  }
  const double elapsed = st.shard_stats_time == coordinator_clock::time_point{}
                           ? std::chrono::duration<double>(coordinator_clock::now() - st.started).count()
                           : std::chrono::duration<double>(coordinator_clock::now() - st.shard_stats_time).count();
  st.shard_stats_time = coordinator_clock::now();
  st.shard_requests_seen.resize(st.shards.size(), 0);
  auto pending = std::make_shared<size_t>(st.shards.size());
  for (uint32_t s = 0; s < st.shards.size(); ++s) {
    auto& row = (*out)[s];
    row.index = s;
    row.node = st.nodes[st.shard_node[s]].name;
    row.first = st.shards[s].first;
    row.width = st.shards[s].width;
    const shard_geometry shape = st.shards[s].geometry();
    row.row_shards = shape.rows.partitions > 1 ? shape.rows.partitions : 0;
    row.lanes = static_cast<uint32_t>(st.shards[s].lanes.size());
    row.rows = shape.rows_between(0, static_cast<uint32_t>(st.vocab.size));
    row.alive = !st.lost_shards.count(s);
    auto finish_one = [self, rp, out, pending]() mutable {
      if (--*pending == 0)
        rp.deliver(*out);
    };
    self->request(st.shards[s].lanes.front(), std::chrono::seconds(5), stats_atom::value)
      .then(
        [self, out, s, elapsed, finish_one](const shard_counters& c) mutable {
          auto& st = self->state;
          auto& row = (*out)[s];
          row.bytes = c.bytes;
          row.requests = c.requests;
          const uint64_t before = s < st.shard_requests_seen.size() ? st.shard_requests_seen[s] : 0;
          row.requests_per_second = elapsed > 0 && c.requests >= before ? (c.requests - before) / elapsed : 0;
          if (s < st.shard_requests_seen.size())
            st.shard_requests_seen[s] = c.requests;
          finish_one();
        },
        [out, s, finish_one](caf::error&) mutable {
          (*out)[s].alive = false;
          finish_one();
        });
  }
}

void query_learners(coordinator_ptr self, caf::typed_response_promise<std::vector<learner_status>> rp) {
  auto& st = self->state;
  auto out = std::make_shared<std::vector<learner_status>>(st.learners.size());
  if (out->empty()) {
    rp.deliver(*out);
    return;
  }
  auto pending = std::make_shared<size_t>(st.learners.size());
  // Each learner's words/s: the words it moved its parts' cursors on by,
  // whichever parts the work queue gave it, over the job's training clock,
  // so that the learners' rates add up to the job's (but for words a
  // recovery had trained again).
  const double seconds = st.active_training_seconds();
  for (uint32_t l = 0; l < st.learners.size(); ++l) {
    auto& row = (*out)[l];
    row.id = l;
    row.node = st.nodes[st.learner_node[l]].name;
    row.words_per_second = seconds > 0 && st.learner_alive[l]
                             ? static_cast<double>(st.words_since_start(static_cast<int64_t>(l))) / seconds
                             : 0;
    auto finish_one = [rp, out, pending]() mutable {
      if (--*pending == 0)
        rp.deliver(*out);
    };
    if (!st.learner_alive[l]) {
      row.state = "lost";
      finish_one();
      continue;
    }
    self->request(st.learners[l], std::chrono::seconds(5), status_atom::value)
      .then(
        [out, l, finish_one, node = row.node](learner_status s) mutable {
          s.node = node;
          s.words_per_second = (*out)[l].words_per_second;
          (*out)[l] = std::move(s);
          finish_one();
        },
        [out, l, finish_one](caf::error& err) mutable {
          (*out)[l].state = "not answering (" + error_text(err) + ")";
          finish_one();
        });
  }
}

// Two rounds over every shard: partial norms of the query words, then the
// partial similarities of the normalised, weighted query (similarity.hpp).
void query_similar(coordinator_ptr self, std::vector<std::string> words, std::vector<float> signs, uint32_t k,
                   caf::typed_response_promise<std::vector<neighbour>> rp) {
  auto& st = self->state;
  if (st.shards.empty() || !st.counts) {
    rp.deliver(make_job_error(error_code::busy, std::string{"there are no trained vectors to query (the job is "} +
                                                  phase_name(st.phase) + ")"));
    return;
  }
  if (k == 0 || k > 10000) {
    rp.deliver(make_job_error(error_code::invalid_argument, "the number of neighbours must be between 1 and 10000"));
    return;
  }
  auto found = query_ids(st, words);
  if (!found) {
    rp.deliver(make_job_error(found.error()));
    return;
  }
  const std::vector<uint32_t> ids = std::move(*found);
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == vocabulary::npos) {
      rp.deliver(make_job_error(error_code::not_found, "'" + words[i] + "' is not in the vocabulary"));
      return;
    }
  auto norms = std::make_shared<std::vector<float>>();
  auto pending = std::make_shared<size_t>(st.shards.size());
  auto failed = std::make_shared<bool>(false);
  auto on_error = first_error(rp, failed);
  for (const auto& shard : st.shards)
    self->request(shard.lanes.front(), shard_query_timeout, norms_atom::value, ids)
      .then(
        [self, rp, ids, signs, k, norms, pending, failed, on_error](const wire_bytes& bytes) mutable {
          if (*failed)
            return;
          auto part = floats_of(bytes);
          if (!part || part->size() != ids.size()) {
            *failed = true;
            rp.deliver(make_job_error("a shard sent malformed norms"));
            return;
          }
          add_partials(*norms, *part);
          if (--*pending > 0)
            return;
          std::vector<float> weights(ids.size());
          for (size_t i = 0; i < ids.size(); ++i) {
            const float n = std::sqrt((*norms)[i]);
            weights[i] = n > 0 ? signs[i] / n : 0.0f;
          }
          layout_entry_of(self->state.shards.front().layout).similar(self, ids, std::move(weights), k, rp, failed);
        },
        on_error);
}

// One word's input vector: row [id, id + 1) of every shard, each slice put at
// the shard's first column. Same checks and timeout as nearest.
void query_vector(coordinator_ptr self, const std::string& word, caf::typed_response_promise<wire_bytes> rp) {
  auto& st = self->state;
  if (st.shards.empty() || !st.counts) {
    rp.deliver(make_job_error(error_code::busy, std::string{"there are no trained vectors to query (the job is "} +
                                                  phase_name(st.phase) + ")"));
    return;
  }
  auto found = query_ids(st, {word});
  if (!found) {
    rp.deliver(make_job_error(found.error()));
    return;
  }
  const uint32_t id = found->front();
  if (id == vocabulary::npos) {
    rp.deliver(make_job_error(error_code::not_found, "'" + word + "' is not in the vocabulary"));
    return;
  }
  uint32_t dim = 0;
  for (const auto& shard : st.shards)
    dim = std::max(dim, shard.first + shard.width);
  auto row = std::make_shared<std::vector<float>>(dim, 0.0f);
  auto pending = std::make_shared<size_t>(st.shards.size());
  auto failed = std::make_shared<bool>(false);
  for (const auto& shard : st.shards)
    self->request(shard.lanes.front(), shard_query_timeout, rows_atom::value, id, id + 1)
      .then(
        [rp, row, pending, failed, first = shard.first,
         width = shard.geometry().holds(id) ? shard.width : 0](const wire_bytes& bytes) mutable {
          // (A shard of --partition words sends the row only if it holds it.)
          if (*failed)
            return;
          auto part = floats_of(bytes);
          if (!part || part->size() != width) {
            *failed = true;
            rp.deliver(make_job_error("a shard sent a malformed row"));
            return;
          }
          std::copy(part->begin(), part->end(), row->begin() + first);
          if (--*pending == 0)
            rp.deliver(float_bytes(*row));
        },
        first_error(rp, failed));
}

} // namespace gridvec
