#include "apps/http/dashboard_json.hpp"

#include <algorithm>
#include <map>

#include <gridvec/core/table_spec.hpp>
#include "src/http/json_text.hpp"

namespace gridvec::http {

namespace {

std::string num(double v) { return json_number(v); }
std::string num(uint64_t v) { return std::to_string(v); }
std::string str(std::string_view s) { return json_string(s); }

// {"kind": {"messages": m, "bytes": b}, ...} for the kinds with traffic.
std::string traffic_json(const traffic& t) {
  std::string out = "{";
  bool first = true;
  for (size_t k = 0; k < t.bytes.size(); ++k) {
    if (t.bytes[k] == 0 && t.messages[k] == 0)
      continue;
    out += std::string{first ? "" : ", "} + str(message_kind_name(static_cast<message_kind>(k))) +
           ": {\"messages\": " + num(t.messages[k]) + ", \"bytes\": " + num(t.bytes[k]) + "}";
    first = false;
  }
  return out + "}";
}

template <class T, class F>
std::string array(const std::vector<T>& xs, F one) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i)
    out += (i ? ", " : "") + one(xs[i]);
  return out + "]";
}

} // namespace

std::string history_json(const job_history& h) {
  auto point = [](const history_point& p) {
    return "{\"seconds\": " + num(p.seconds) + ", \"span\": " + num(p.span) + ", \"progress\": " + num(p.progress) +
           ", \"words_per_second\": " + num(p.words_per_second) +
           ", \"loss\": " + (p.pairs > 0 ? num(p.loss) : std::string{"null"}) + ", \"alpha\": " + json_number(p.alpha) +
           "}";
  };
  auto span = [](const phase_span& s) {
    return "{\"phase\": " + str(s.phase) + ", \"from\": " + num(s.from) + ", \"to\": " + num(s.to) + "}";
  };
  auto mark = [](const history_mark& m) {
    return "{\"seconds\": " + num(m.seconds) + ", \"label\": " + str(m.label) + "}";
  };
  return "{\"job\": " + num(h.job) + ", \"started_unix_ms\": " + std::to_string(h.started_unix_ms) +
         ", \"seconds\": " + num(h.seconds) + ", \"interval\": " + num(h.interval) +
         ", \"capacity\": " + std::to_string(h.capacity) + ", \"points\": " + array(h.points, point) +
         ", \"phases\": " + array(h.phases, span) + ", \"marks\": " + array(h.marks, mark) + "}";
}

std::string events_json(const job_history& h, uint64_t after) {
  std::vector<job_event> shown;
  for (const auto& e : h.events)
    if (e.sequence > after)
      shown.push_back(e);
  auto event = [](const job_event& e) {
    return "{\"sequence\": " + num(e.sequence) + ", \"seconds\": " + num(e.seconds) +
           ", \"unix_ms\": " + std::to_string(e.unix_ms) + ", \"level\": " + str(e.level) +
           ", \"text\": " + str(e.text) + "}";
  };
  return "{\"job\": " + num(h.job) + ", \"total\": " + num(h.events_total) + ", \"events\": " + array(shown, event) +
         "}";
}

std::string node_state(const node_status& n, const std::vector<shard_status>& shards, const std::string& phase) {
  if (!n.up)
    return "lost";
  if (phase == "recovering")
    for (const auto& s : shards)
      if (s.node == n.name && !s.alive)
        return "recovering";
  if (n.standby && n.shards == 0)
    return "standby";
  return "up";
}

std::string nodes_json(const std::vector<node_status>& nodes, const std::vector<node_traffic>& traffic,
                       const std::vector<shard_status>& shards, const std::string& phase) {
  auto node = [&](const node_status& n) {
    const node_traffic* t = nullptr;
    for (const auto& x : traffic)
      if (x.node == n.name)
        t = &x;
    const struct traffic none {};
    return "{\"name\": " + str(n.name) + ", \"address\": " + str(n.address) + ", \"roles\": " + str(n.roles) +
           ", \"state\": " + str(node_state(n, shards, phase)) + ", \"standby\": " + (n.standby ? "true" : "false") +
           ", \"shards\": " + std::to_string(n.shards) + ", \"learners\": " + std::to_string(n.learners) +
           ", \"rss_bytes\": " + num(n.rss_bytes) + ", \"peak_rss_bytes\": " + num(n.peak_rss_bytes) +
           ", \"job_peak_rss_bytes\": " + num(n.job_peak_rss_bytes) +
           ", \"memory_limit_bytes\": " + num(n.memory_limit_bytes) +
           ", \"sent\": " + traffic_json(t ? t->sent : none) +
           ", \"received\": " + traffic_json(t ? t->received : none) + "}";
  };
  return "{\"phase\": " + str(phase) + ", \"nodes\": " + array(nodes, node) + "}";
}

std::string shards_json(const std::vector<shard_status>& shards) {
  auto shard = [](const shard_status& s) {
    return "{\"index\": " + std::to_string(s.index) + ", \"node\": " + str(s.node) +
           ", \"first_column\": " + std::to_string(s.first) + ", \"columns\": " + std::to_string(s.width) +
           ", \"row_shards\": " + std::to_string(s.row_shards) + ", \"rows\": " + num(s.rows) +
           ", \"bytes\": " + num(s.bytes) + ", \"lanes\": " + std::to_string(s.lanes) +
           ", \"requests\": " + num(s.requests) + ", \"requests_per_second\": " + num(s.requests_per_second) +
           ", \"alive\": " + (s.alive ? "true" : "false") + "}";
  };
  return "{\"shards\": " + array(shards, shard) + "}";
}

std::string learners_json(const std::vector<learner_status>& learners) {
  auto part = [](const part_cursor& c) {
    return "{\"part\": " + std::to_string(c.part) + ", \"epoch\": " + std::to_string(c.epoch) +
           ", \"words\": " + num(c.words) + ", \"processed\": " + num(c.processed) + "}";
  };
  auto learner = [&](const learner_status& l) {
    return "{\"id\": " + std::to_string(l.id) + ", \"node\": " + str(l.node) + ", \"state\": " + str(l.state) +
           ", \"in_flight\": " + std::to_string(l.in_flight) + ", \"words_per_second\": " + num(l.words_per_second) +
           ", \"parts\": " + array(l.parts, part) + "}";
  };
  return "{\"learners\": " + array(learners, learner) + "}";
}

std::string tables_json(const std::vector<table_info>& tables, const std::vector<std::string>& unreachable) {
  struct summed {
    table_spec spec;
    uint64_t rows = 0, bytes = 0;
    uint32_t shards = 0;
  };
  std::map<std::string, summed> by_name;
  for (const auto& t : tables) {
    auto& s = by_name[t.spec.name];
    s.spec = t.spec;
    s.rows = t.spec.layout == table_layout::columns ? std::max(s.rows, t.rows) : s.rows + t.rows;
    s.bytes += t.memory_bytes;
    s.shards += 1;
  }
  std::string out = "{\"tables\": [";
  bool first = true;
  for (const auto& [name, s] : by_name) {
    out += std::string{first ? "" : ", "} + "{\"name\": " + str(name) + ", \"kind\": " + str(to_string(s.spec.kind)) +
           ", \"layout\": " + str(to_string(s.spec.layout)) + ", \"dim\": " + std::to_string(s.spec.dim) +
           ", \"dense\": " + (s.spec.dense ? "true" : "false") + ", \"rows\": " + num(s.rows) +
           ", \"memory_bytes\": " + num(s.bytes) + ", \"optimizer\": " + str(to_string(s.spec.optimizer)) +
           ", \"learning_rate\": " + json_number(s.spec.learning_rate) + ", \"shards\": " + std::to_string(s.shards) +
           ", \"description\": " + str(describe(s.spec)) + "}";
    first = false;
  }
  return out + "], \"unreachable\": " + array(unreachable, [](const std::string& n) { return str(n); }) + "}";
}

} // namespace gridvec::http
