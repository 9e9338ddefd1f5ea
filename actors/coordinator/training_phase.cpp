// training phase: see phases.hpp for where it stands among the others.
// Training: each learner gets its parts' cursors and trains them; the
// coordinator hears progress (coordinator_actor.cpp's behaviour), checks for
// the end and rebalances the parts of a lost learner.
#include "actors/coordinator/phases.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "actors/layouts/layouts.hpp"
#include "src/sgns/noise_sampler.hpp"

namespace gridvec {

// Bytes each node sent and received during training, by message kind.
// Learners count the messages they send. Every shard gets the same requests
// and sends equal-sized replies, so a shard's share is 1/S of the total;
// in the replicated mode every host sends and receives alike, so a host
// receives 1/L of the round messages between hosts, and a shard 1/S of the
// rows stored.
std::vector<node_traffic> traffic_per_node(const coordinator_state& st) {
  std::vector<node_traffic> per_node(st.nodes.size());
  for (size_t n = 0; n < st.nodes.size(); ++n)
    per_node[n].node = st.nodes[n].name;
  auto kind = [](message_kind k) { return static_cast<size_t>(k); };
  auto learner_sends = [&](size_t k) {
    return k != kind(message_kind::dotprod_reply) && k != kind(message_kind::adjust_reply);
  };
  auto between_hosts = [&](size_t k) {
    return k == kind(message_kind::round_changes) || k == kind(message_kind::round_values);
  };
  const traffic& total = st.totals.wire;
  const uint64_t learners = std::max<size_t>(1, st.learner_wire.size());
  for (size_t i = 0; i < st.learner_wire.size(); ++i) {
    auto& node = per_node[st.learner_node[i]];
    for (size_t k = 0; k < total.bytes.size(); ++k) {
      traffic& t = learner_sends(k) ? node.sent : node.received;
      t.bytes[k] += st.learner_wire[i].bytes[k];
      t.messages[k] += st.learner_wire[i].messages[k];
      if (between_hosts(k)) {
        node.received.bytes[k] += total.bytes[k] / learners;
        node.received.messages[k] += total.messages[k] / learners;
      }
    }
  }
  const uint64_t shards = st.shard_node.size();
  for (size_t s = 0; s < shards; ++s) {
    auto& node = per_node[st.shard_node[s]];
    for (size_t k = 0; k < total.bytes.size(); ++k) {
      if (between_hosts(k))
        continue;
      traffic& t = learner_sends(k) ? node.received : node.sent;
      t.bytes[k] += total.bytes[k] / shards;
      t.messages[k] += total.messages[k] / shards;
    }
  }
  return per_node;
}

namespace {

// How the shards draw noise words, and what their tables take: into the
// summary, and one line for the user.
void report_noise(coordinator_ptr self) {
  auto& st = self->state;
  auto& s = st.summary;
  s.negatives = negatives_mode_name(static_cast<negatives_mode>(st.opt.negatives_mode));
  s.hierarchical_sampler = st.opt.partitioned_sampler();
  s.word_partitions = st.opt.word_partitions_of(st.opt.shards);
  s.sampling_bytes = s.partition_sampling_bytes = 0;
  for (const auto& shard : st.shards) {
    s.sampling_bytes = std::max(s.sampling_bytes, shard.sampling_bytes);
    s.partition_sampling_bytes = std::max(s.partition_sampling_bytes, shard.partition_sampling_bytes);
  }
  if (st.opt.negatives_mode == 0 && !st.opt.partitioned_sampler())
    return; // word2vec's: nothing to say
  say(self, "noise words: " + s.negatives + (s.hierarchical_sampler ? " (hierarchical sampler)" : "") + " over " +
              std::to_string(s.word_partitions) + " word partitions; sampling tables " +
              std::to_string(s.sampling_bytes / 1024) + " KiB per shard" +
              (st.shards.front().rows.partitions > 1 ? std::string{" (its own partition's)"}
                                                     : ", " + std::to_string(s.partition_sampling_bytes / 1024) +
                                                         " KiB per partition with the vectors split by word"));
}

} // namespace

void start_training(coordinator_ptr self) {
  auto& st = self->state;
  st.phase = job_phase::training;
  st.start_rate_clock();
  st.training_started = st.last_line = st.last_sink_line = st.last_checkpoint_time = st.rate_started;
  st.words_at_last_checkpoint = st.words_at_start;
  st.learner_idle.assign(st.learners.size(), false);
  // (Learners that share rounds train on their own copies: nothing in
  // flight, no messages per minibatch. Shards of whole rows take each
  // minibatch's shares one message each.)
  const auto& layout = layout_entry_of(st.shards.front().layout);
  const shard_geometry shape = st.shards.front().geometry();
  const bool rows = shape.rows.partitions > 1;
  say(self, "training: " + std::to_string(st.learners.size()) + " learners, " + std::to_string(st.shards.size()) +
              (rows ? " shards of whole rows (word w on shard w mod " + std::to_string(shape.rows.partitions) + ")"
                    : " shards of " + std::to_string(shape.columns.width) + " columns") +
              ", minibatch " + std::to_string(st.opt.minibatch) +
              (layout.learners_share_rounds
                 ? std::string{}
                 : ", " + std::to_string(st.opt.in_flight_window()) + " in flight" +
                     (rows ? std::string{} : ", " + std::to_string(st.opt.coalesce) + " per message")));
  if (layout.learners_share_rounds) {
    // Every host learns the others before its first work (messages from
    // here to one learner stay in order).
    const auto hosts = live_hosts(st);
    for (const auto& l : st.learners)
      self->request(l, placement_timeout, hosts_atom::value, hosts).then([](bool) {}, fail_with(self));
    const auto learners = static_cast<uint32_t>(st.learners.size());
    const auto [fewest, most] = std::minmax_element(st.learner_threads.begin(), st.learner_threads.end());
    const std::string threads = st.learner_threads.empty() ? "1"
                                : *fewest == *most         ? std::to_string(*most)
                                                           : std::to_string(*fewest) + "-" + std::to_string(*most);
    const std::string each = learners == 1 ? "" : " each";
    say(self, "replicated: " + std::to_string(learners) + (learners == 1 ? " host holds" : " hosts hold") +
                " the whole model" + each + ", trained by " + threads + (threads == "1" ? " thread" : " threads") +
                each + "; " + std::to_string(st.opt.sync_rounds_per_epoch(st.learner_threads_in_all())) +
                " synchronisation rounds per epoch" + (st.opt.sync_rounds == 0 ? " (auto: 8 per thread)" : "") +
                ", combiner " + (st.opt.average_combiner ? "avg" : "mc"));
  } else {
    report_noise(self);
  }
  if (st.queue) {
    say(self, "work queue: " + std::to_string(st.cursors.size()) + " parts for " + std::to_string(st.learners.size()) +
                " learners, each takes the next part nobody trains");
    st.owner.assign(st.cursors.size(), work_queue::nobody);
    rebalance_parts(st); // one part each to begin with
  }
  for (size_t i = 0; i < st.learners.size(); ++i) {
    std::vector<part_cursor> mine;
    for (size_t p = 0; p < st.cursors.size(); ++p)
      if (st.owner[p] == i)
        mine.push_back(st.cursors[p]);
    self->request(st.learners[i], placement_timeout, assign_atom::value, mine).then([](bool) {}, fail_with(self));
  }
}

void take_reported_parts(coordinator_ptr self, uint32_t l, const std::vector<part_cursor>& reported) {
  auto& st = self->state;
  st.adopt_cursors(l, reported);
  if (!st.queue)
    return;
  bool ended = false;
  for (const auto& c : reported)
    if (c.part < st.cursors.size() && st.queue->progressed(l, st.cursors[c.part])) {
      st.owner[c.part] = work_queue::nobody;
      ended = true;
    }
  if (ended)
    hand_out_parts(self);
}

void hand_out_parts(coordinator_ptr self) {
  auto& st = self->state;
  if (!st.queue || st.phase != job_phase::training)
    return; // a recovery or resume hands out its own
  auto moved = rebalance_parts(st);
  for (uint32_t l = 0; l < moved.size(); ++l) {
    if (moved[l].empty())
      continue;
    st.learner_idle[l] = false;
    self->request(st.learners[l], placement_timeout, assign_atom::value, moved[l]).then([](bool) {}, fail_with(self));
  }
}

std::vector<caf::actor> live_hosts(const coordinator_state& st) {
  std::vector<caf::actor> hosts;
  for (size_t l = 0; l < st.learners.size(); ++l)
    if (st.learner_alive[l])
      hosts.push_back(caf::actor_cast<caf::actor>(st.learners[l]));
  return hosts;
}

std::vector<shard_actor> lanes_for(const coordinator_state& st, uint32_t learner) {
  std::vector<shard_actor> lanes;
  for (const auto& s : st.shards)
    lanes.push_back(s.lanes[learner % s.lanes.size()]);
  return lanes;
}

std::vector<std::vector<part_cursor>> rebalance_parts(coordinator_state& st) {
  std::vector<std::vector<part_cursor>> moved(st.learners.size());
  if (st.queue) {
    // A lost learner's leases go back to the queue (from their last safe
    // cursors); every live learner that holds nothing takes the next part.
    for (uint32_t l = 0; l < st.learners.size(); ++l)
      if (!st.learner_alive[l])
        for (uint32_t p : st.queue->release_all(l))
          st.owner[p] = work_queue::nobody;
    for (uint32_t l = 0; l < st.learners.size(); ++l) {
      if (!st.learner_alive[l] || !st.queue->held_by(l).empty())
        continue;
      if (auto p = st.queue->take(l, st.cursors)) {
        st.owner[*p] = l;
        moved[l].push_back(st.cursors[*p]);
      }
    }
    return moved;
  }
  std::vector<size_t> load(st.learners.size(), 0);
  for (size_t p = 0; p < st.owner.size(); ++p)
    if (st.owner[p] < st.learners.size() && st.learner_alive[st.owner[p]] && !st.cursors[p].finished(st.opt.iter))
      ++load[st.owner[p]];
  for (size_t p = 0; p < st.owner.size(); ++p) {
    if (st.owner[p] < st.learners.size() && st.learner_alive[st.owner[p]])
      continue;
    size_t best = st.learners.size();
    for (size_t l = 0; l < st.learners.size(); ++l)
      if (st.learner_alive[l] && (best == st.learners.size() || load[l] < load[best]))
        best = l;
    if (best == st.learners.size())
      break; // no learner left; the caller fails the job
    st.owner[p] = static_cast<uint32_t>(best);
    ++load[best];
    moved[best].push_back(st.cursors[p]);
  }
  return moved;
}

void check_training_done(coordinator_ptr self) {
  auto& st = self->state;
  if (st.phase != job_phase::training)
    return;
  for (const auto& c : st.cursors)
    if (!c.finished(st.opt.iter))
      return;
  for (size_t l = 0; l < st.learners.size(); ++l)
    if (st.learner_alive[l] && !st.learner_idle[l])
      return;
  st.training_ended = coordinator_clock::now();
  st.summary.training_seconds = st.active_training_seconds();
  st.summary.training_words_per_second = training_rate(st);
  print_progress(self, true);
  st.summary.final_loss = st.last_loss;
  st.summary.parts = static_cast<uint32_t>(st.cursors.size());
  if (st.queue) {
    st.summary.parts_trained = st.queue->completed();
    st.summary.parts_trained.resize(st.learners.size(), 0);
  }
  if (st.nodes.size() > 1)
    st.summary.nodes = traffic_per_node(st);
  run_export(self);
}

} // namespace gridvec
