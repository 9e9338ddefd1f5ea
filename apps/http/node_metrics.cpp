#include "apps/http/node_metrics.hpp"

#include <gridvec/core/report.hpp>
#include "src/http/prometheus_text.hpp"

namespace gridvec::http {

namespace {

void job_metrics(prometheus_text& out, const metrics_input& in, const job_status& j) {
  const metric_labels none;
  auto gauge = [&](const std::string& name, const char* help, double v) {
    out.family(name, "gauge", help);
    out.sample(name, none, v);
  };
  auto counter = [&](const std::string& name, const char* help, double v) {
    out.family(name, "counter", help);
    out.sample(name, none, v);
  };
  gauge("gridvec_job_id", "the current or last job's number (0: none yet)", static_cast<double>(j.job));
  // Info style: one sample, its label the phase (idle, training, done, ...).
  out.family("gridvec_job_phase", "gauge", "always 1; the label phase is the job's phase");
  out.sample("gridvec_job_phase", {{"phase", j.phase}}, 1);
  gauge("gridvec_job_words_per_second", "words trained per second of training (pauses left out)", j.words_per_second);
  gauge("gridvec_job_loss", "mean SGNS loss per positive pair, recent", j.loss);
  gauge("gridvec_job_learning_rate", "the learners' current learning rate (alpha)", j.alpha);
  gauge("gridvec_job_progress_ratio", "fraction of the training done, 0..1", j.progress);
  gauge("gridvec_job_epoch", "current epoch, 1-based", j.epoch);
  if (j.eta_seconds >= 0) // none before there is a rate
    gauge("gridvec_job_eta_seconds", "estimated seconds of training left", j.eta_seconds);
  gauge("gridvec_job_bytes_per_word", "training traffic, both directions, per trained word", j.bytes_per_word);
  counter("gridvec_job_processed_words_total", "corpus words processed by the job, all epochs",
          static_cast<double>(j.processed_words));
  gauge("gridvec_job_vocabulary_words", "words in the job's vocabulary", static_cast<double>(j.vocab_size));
  counter("gridvec_job_recoveries_total", "shard recoveries of the job (a lost shard restored)",
          static_cast<double>(j.recoveries));
  gauge("gridvec_job_shards", "shards of the job", j.shards);
  gauge("gridvec_job_learners", "live learners of the job", j.learners);
  out.family("gridvec_messages_total", "counter", "training messages of the job, by kind");
  out.family("gridvec_message_bytes_total", "counter", "Cap'n Proto bytes of the job's training messages, by kind");
  for (size_t k = 0; k < static_cast<size_t>(message_kind::count); ++k) {
    const metric_labels kind{{"kind", message_kind_name(static_cast<message_kind>(k))}};
    if (k < j.traffic_messages.size())
      out.sample("gridvec_messages_total", kind, static_cast<double>(j.traffic_messages[k]));
    if (k < j.traffic_bytes.size())
      out.sample("gridvec_message_bytes_total", kind, static_cast<double>(j.traffic_bytes[k]));
  }
  if (!in.shards.empty()) {
    out.family("gridvec_shard_memory_bytes", "gauge", "memory of a shard's vector slices");
    out.family("gridvec_shard_requests_total", "counter", "dotprod and adjust requests a shard served");
    out.family("gridvec_shard_up", "gauge", "1 if the shard answered its last stats request");
    for (const auto& s : in.shards) {
      const metric_labels l{{"shard", std::to_string(s.index)}, {"node", s.node}};
      out.sample("gridvec_shard_memory_bytes", l, static_cast<double>(s.bytes));
      out.sample("gridvec_shard_requests_total", l, static_cast<double>(s.requests));
      out.sample("gridvec_shard_up", l, s.alive ? 1 : 0);
    }
  }
  if (!in.learners.empty()) {
    out.family("gridvec_learner_words_per_second", "gauge", "words a learner trains per second");
    out.family("gridvec_learner_in_flight", "gauge", "minibatches a learner has in flight");
    for (const auto& l : in.learners) {
      const metric_labels lab{{"learner", std::to_string(l.id)}, {"node", l.node}};
      out.sample("gridvec_learner_words_per_second", lab, l.words_per_second);
      out.sample("gridvec_learner_in_flight", lab, l.in_flight);
    }
  }
}

} // namespace

std::string render_metrics(const metrics_input& in) {
  prometheus_text out;
  const metric_labels node{{"node", in.node}};
  out.family("gridvec_up", "gauge", "1 if the node's actor answered this scrape");
  out.sample("gridvec_up", node, in.self ? 1 : 0);
  if (in.self) {
    out.family("gridvec_node_resident_memory_bytes", "gauge", "resident memory of the node's process");
    out.sample("gridvec_node_resident_memory_bytes", node, static_cast<double>(in.self->rss_bytes));
    out.family("gridvec_node_shard_lanes", "gauge", "shard lanes hosted by the node");
    out.sample("gridvec_node_shard_lanes", node, in.self->shards);
    out.family("gridvec_node_learners", "gauge", "learner actors hosted by the node");
    out.sample("gridvec_node_learners", node, in.self->learners);
  }
  if (!in.tables.empty()) {
    out.family("gridvec_table_rows", "gauge", "rows of a parameter-server table on this node's table shard");
    out.family("gridvec_table_memory_bytes", "gauge", "memory of a table's rows, slots and index on this node");
    for (const auto& t : in.tables) {
      const metric_labels l{{"table", t.spec.name}, {"shard", std::to_string(t.shard)}, {"node", in.node}};
      out.sample("gridvec_table_rows", l, static_cast<double>(t.rows));
      out.sample("gridvec_table_memory_bytes", l, static_cast<double>(t.memory_bytes));
    }
  }
  if (in.job)
    job_metrics(out, in, *in.job);
  return out.text();
}

} // namespace gridvec::http
