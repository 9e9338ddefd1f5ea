// The routes of a node's HTTP server: each asks the node's actors (the node
// itself, and on the coordinator's node its controller and the table
// shards) and answers JSON or Prometheus text, or serves the dashboard's
// files. Read-only: nothing here starts, pauses or stops a job.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <mutex>

#include "apps/http/actor_ask.hpp"
#include "apps/http/dashboard_assets.hpp"
#include "apps/http/dashboard_json.hpp"
#include "apps/http/node_http.hpp"
#include "apps/http/node_metrics.hpp"
#include <gridvec/tables/client.hpp>
#include "src/http/http_token.hpp"
#include "src/http/json_text.hpp"
#include "src/model/similarity.hpp"
#include "src/net/cluster_secret.hpp"

namespace gridvec::http {

namespace {

using namespace std::chrono_literals;

// Status queries answer from memory, but shards/learners give each shard
// and learner 5 s of their own, so 10 s; nearest, analogy and vector go to
// every shard (their own timeout is 60 s), so they get longer.
constexpr auto status_timeout = std::chrono::milliseconds(10s);
constexpr auto query_timeout = std::chrono::milliseconds(70s);

reply json(std::string body) { return {200, "application/json", std::move(body) + "\n"}; }
reply fail(unsigned status, std::string_view line) { return {status, "application/json", json_error(line)}; }

// An actor's error as an HTTP status: a word that is not there is 404, a
// timeout 504, what the job's state does not allow 409, a node or shard
// that is gone 502.
reply from_error(const caf::error& err) {
  const auto line = error_text(err);
  if (err == caf::sec::request_timeout)
    return fail(504, "the cluster did not answer in time: " + line);
  if (is_job_error(err)) {
    if (error_code_of(err) == error_code::not_found)
      return fail(404, line);
    return fail(409, line);
  }
  return fail(502, line);
}

std::string neighbours_json(const std::vector<neighbour>& ns) {
  std::string out = "[";
  for (size_t i = 0; i < ns.size(); ++i)
    out += std::string{i ? ", " : ""} + "{\"word\": " + json_string(ns[i].word) +
           ", \"score\": " + json_number(ns[i].score) + "}";
  return out + "]";
}

std::string status_json(const job_status& s) {
  auto num = [](double v) { return json_number(v); };
  return "{\"job\": " + std::to_string(s.job) + ", \"phase\": " + json_string(s.phase) +
         ", \"message\": " + json_string(s.message) + ", \"epoch\": " + std::to_string(s.epoch) +
         ", \"iterations\": " + std::to_string(s.iterations) + ", \"progress\": " + num(s.progress) +
         ", \"words_per_second\": " + num(s.words_per_second) +
         ", \"eta_seconds\": " + (s.eta_seconds < 0 ? std::string{"null"} : num(s.eta_seconds)) +
         ", \"alpha\": " + num(s.alpha) + ", \"loss\": " + num(s.loss) +
         ", \"bytes_per_word\": " + num(s.bytes_per_word) +
         ", \"processed_words\": " + std::to_string(s.processed_words) +
         ", \"total_words\": " + std::to_string(s.total_words) + ", \"shards\": " + std::to_string(s.shards) +
         ", \"learners\": " + std::to_string(s.learners) + ", \"vocab_size\": " + std::to_string(s.vocab_size) +
         ", \"last_checkpoint\": " + std::to_string(s.last_checkpoint) +
         ", \"recoveries\": " + std::to_string(s.recoveries) + ", \"seconds\": " + num(s.seconds) + "}";
}

// The coordinator's node's paths besides /healthz and /metrics.
const std::vector<std::string> api_paths{"/status",   "/history", "/events",  "/nodes",   "/shards",
                                         "/learners", "/tables",  "/nearest", "/analogy", "/vector"};

class routes {
public:
  routes(caf::actor_system& sys, node_actor node, std::string name, bool coordinator,
         std::optional<cluster_config> cluster)
    : sys_(sys), node_(std::move(node)), name_(std::move(name)), coordinator_(coordinator),
      cluster_(std::move(cluster)) {}

  reply operator()(const request_target& t) {
    if (t.path == "/healthz")
      return healthz();
    if (t.path == "/metrics")
      return metrics();
    const auto& page = dashboard_paths();
    const bool dashboard = std::find(page.begin(), page.end(), t.path) != page.end();
    const bool api = std::find(api_paths.begin(), api_paths.end(), t.path) != api_paths.end();
    if (!api && !dashboard) {
      std::string known = "/, /healthz, /metrics";
      for (const auto& p : api_paths)
        known += ", " + p;
      return fail(404, "no such path: " + t.path + " (paths: " + known + ")");
    }
    if (!coordinator_)
      return fail(404, "node " + name_ +
                         " serves /healthz and /metrics; the dashboard and the JSON API are on the coordinator's node");
    if (dashboard)
      return dashboard_asset(t.path);
    if (t.path == "/tables")
      return tables();
    auto ctl = controller();
    if (!ctl)
      return from_error(ctl.error);
    if (t.path == "/status")
      return status(*ctl.value);
    if (t.path == "/history" || t.path == "/events")
      return history(*ctl.value, t);
    if (t.path == "/nodes")
      return nodes(*ctl.value);
    if (t.path == "/shards") {
      auto s = ask<std::vector<shard_status>>(sys_, *ctl.value, status_timeout, shards_atom::value);
      return s ? json(shards_json(*s.value)) : from_error(s.error);
    }
    if (t.path == "/learners") {
      auto l = ask<std::vector<learner_status>>(sys_, *ctl.value, status_timeout, learners_atom::value);
      return l ? json(learners_json(*l.value)) : from_error(l.error);
    }
    if (t.path == "/vector")
      return vector(*ctl.value, t);
    return similar(*ctl.value, t);
  }

private:
  reply healthz() {
    auto s = ask<node_status>(sys_, node_, status_timeout, status_atom::value);
    if (!s)
      return fail(503, "node " + name_ + " does not answer: " + error_text(s.error));
    return json("{\"status\": \"ok\", \"node\": " + json_string(name_) + "}");
  }

  reply metrics() {
    metrics_input in;
    in.node = name_;
    if (auto s = ask<node_status>(sys_, node_, status_timeout, status_atom::value))
      in.self = std::move(*s.value);
    // A shard node's tables (other nodes have no table shard: no samples).
    if (auto shard = ask<table_shard_actor>(sys_, node_, status_timeout, tables_atom::value))
      if (auto listed = ask<wire_bytes>(sys_, *shard.value, status_timeout, table_atom::value,
                                        encode_table_simple(table_op::list, "")))
        if (auto reply = decode_table_reply(*listed.value); reply && reply->what == table_reply::kind::tables)
          in.tables = std::move(reply->tables);
    if (coordinator_) {
      if (auto ctl = controller()) {
        if (auto j = ask<job_status>(sys_, *ctl.value, status_timeout, status_atom::value))
          in.job = std::move(*j.value);
        // Before the first job these fail ("no job has been run yet"): no samples then.
        if (auto sh = ask<std::vector<shard_status>>(sys_, *ctl.value, status_timeout, shards_atom::value))
          in.shards = std::move(*sh.value);
        if (auto l = ask<std::vector<learner_status>>(sys_, *ctl.value, status_timeout, learners_atom::value))
          in.learners = std::move(*l.value);
      }
    }
    return {200, "text/plain; version=0.0.4; charset=utf-8", render_metrics(in)};
  }

  reply status(const controller_actor& ctl) {
    auto s = ask<job_status>(sys_, ctl, status_timeout, status_atom::value);
    return s ? json(status_json(*s.value)) : from_error(s.error);
  }

  // /history: the curves, phases and checkpoints; /events?after=N: the
  // event lines after the N-th.
  reply history(const controller_actor& ctl, const request_target& t) {
    uint64_t after = 0;
    if (t.path == "/events" && t.params.count("after")) {
      const auto& text = t.params.at("after");
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), after);
      if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
        return fail(400, "after must be an event's sequence number, not '" + text + "'");
    }
    auto h = ask<job_history>(sys_, ctl, status_timeout, history_atom::value);
    if (!h)
      return from_error(h.error);
    return json(t.path == "/history" ? history_json(*h.value) : events_json(*h.value, after));
  }

  // Every node of the config; its traffic and the shards' state come from
  // the current job, when there is one.
  reply nodes(const controller_actor& ctl) {
    auto n = ask<std::vector<node_status>>(sys_, ctl, status_timeout, nodes_atom::value);
    if (!n)
      return from_error(n.error);
    std::string phase = "idle";
    if (auto s = ask<job_status>(sys_, ctl, status_timeout, status_atom::value))
      phase = s.value->phase;
    std::vector<shard_status> shards;
    if (auto s = ask<std::vector<shard_status>>(sys_, ctl, status_timeout, shards_atom::value))
      shards = std::move(*s.value);
    std::vector<node_traffic> traffic;
    if (auto h = ask<job_history>(sys_, ctl, status_timeout, history_atom::value))
      traffic = std::move(h.value->nodes);
    return json(nodes_json(*n.value, traffic, shards, phase));
  }

  // The parameter server's tables (docs/tables.md), as the table shards list
  // them: on a cluster each shard node's, asked apart so that one that is
  // gone leaves the others listed (it is named); else this node's own table
  // shard, if it hosts one.
  reply tables() {
    std::vector<table_info> all;
    std::vector<std::string> unreachable;
    if (!cluster_) {
      if (auto own = ask<table_shard_actor>(sys_, node_, status_timeout, tables_atom::value)) {
        table_client client{sys_, {*own.value}, status_timeout};
        auto listed = client.list();
        if (!listed)
          return fail(502, listed.error());
        all = std::move(*listed);
      }
      return json(tables_json(all));
    }
    for (const node_spec* n : cluster_->table_shard_nodes()) {
      auto shard = table_shard_on(*n);
      if (!shard) {
        unreachable.push_back(n->name);
        continue;
      }
      table_client client{sys_, {*shard}, status_timeout};
      auto listed = client.list();
      if (!listed) {
        std::lock_guard lock{tables_mutex_};
        table_shards_.erase(n->name); // restarted, or gone: connected again next time
        unreachable.push_back(n->name);
        continue;
      }
      all.insert(all.end(), listed->begin(), listed->end());
    }
    return json(tables_json(all, unreachable));
  }

  // The table shard of node `n`, connected once and kept.
  std::optional<table_shard_actor> table_shard_on(const node_spec& n) {
    std::lock_guard lock{tables_mutex_};
    if (auto it = table_shards_.find(n.name); it != table_shards_.end())
      return it->second;
    cluster_config one = *cluster_;
    one.nodes = {n};
    auto connected = connect_table_shards(sys_, one);
    if (!connected || connected->empty())
      return std::nullopt;
    return table_shards_[n.name] = connected->front();
  }

  reply vector(const controller_actor& ctl, const request_target& t) {
    auto word = t.required("word");
    if (!word)
      return fail(400, word.error());
    auto v = ask<wire_bytes>(sys_, ctl, query_timeout, vector_atom::value, *word);
    if (!v)
      return from_error(v.error);
    auto floats = floats_of(*v.value);
    if (!floats)
      return fail(502, floats.error());
    std::string out =
      "{\"word\": " + json_string(*word) + ", \"dimension\": " + std::to_string(floats->size()) + ", \"vector\": [";
    for (size_t i = 0; i < floats->size(); ++i)
      out += (i ? ", " : "") + json_number((*floats)[i]);
    return json(out + "]}");
  }

  // /nearest?word=W&k=K and /analogy?a=A&b=B&c=C&k=K (b - a + c).
  reply similar(const controller_actor& ctl, const request_target& t) {
    auto k = t.count("k", 10, 10000);
    if (!k)
      return fail(400, k.error());
    if (t.path == "/nearest") {
      auto word = t.required("word");
      if (!word)
        return fail(400, word.error());
      auto ns = ask<std::vector<neighbour>>(sys_, ctl, query_timeout, nearest_atom::value, *word, *k);
      if (!ns)
        return from_error(ns.error);
      return json("{\"word\": " + json_string(*word) + ", \"k\": " + std::to_string(*k) +
                  ", \"neighbours\": " + neighbours_json(*ns.value) + "}");
    }
    auto a = t.required("a"), b = t.required("b"), c = t.required("c");
    for (auto* w : {&a, &b, &c})
      if (!*w)
        return fail(400, w->error() + " (analogy: a is to b as c is to ?)");
    auto ns = ask<std::vector<neighbour>>(sys_, ctl, query_timeout, analogy_atom::value, *a, *b, *c, *k);
    if (!ns)
      return from_error(ns.error);
    return json("{\"a\": " + json_string(*a) + ", \"b\": " + json_string(*b) + ", \"c\": " + json_string(*c) +
                ", \"k\": " + std::to_string(*k) + ", \"neighbours\": " + neighbours_json(*ns.value) + "}");
  }

  // The node's controller, asked once and kept: it lives as long as the node.
  answer<controller_actor> controller() {
    std::lock_guard lock{mutex_};
    if (controller_)
      return answer<controller_actor>{controller_, {}};
    auto c = ask<controller_actor>(sys_, node_, status_timeout, controller_atom::value);
    if (c)
      controller_ = *c.value;
    return c;
  }

  caf::actor_system& sys_;
  node_actor node_;
  std::string name_;
  bool coordinator_;
  std::optional<cluster_config> cluster_;
  std::mutex mutex_;
  std::optional<controller_actor> controller_;
  std::mutex tables_mutex_;                               // apart: connecting to the table shards may take seconds
  std::map<std::string, table_shard_actor> table_shards_; // by node name
};

} // namespace

handler node_routes(caf::actor_system& sys, node_actor node, std::string node_name, bool coordinator,
                    std::optional<cluster_config> cluster) {
  auto r = std::make_shared<routes>(sys, std::move(node), std::move(node_name), coordinator, std::move(cluster));
  return [r](const request_target& t) { return (*r)(t); };
}

expected<std::unique_ptr<server>> start_node_http(caf::actor_system& sys, node_actor node,
                                                  const cluster_config& cluster, const node_spec& self) {
  server_settings settings;
  settings.address = self.http_address();
  settings.port = self.http_port;
  settings.name = self.name;
  if (!cluster.secret_file.empty()) {
    auto secret = net::load_secret(cluster.secret_file);
    if (!secret)
      return failure{"http: " + secret.error()};
    settings.token = derive_token(*secret);
  }
  const bool coordinator = self.has(node_role::coordinator);
  if (coordinator) // the dashboard's page, script and style hold no data
    for (const auto& p : dashboard_paths())
      settings.public_paths.insert(p);
  auto srv = server::start(settings, node_routes(sys, std::move(node), self.name, coordinator, cluster));
  if (srv) {
    spdlog::info("node {}: http on {}:{}{}", self.name, settings.address, (*srv)->port(),
                 settings.token.empty() ? " (no token: the cluster has no secret)" : " (bearer token required)");
    if (coordinator)
      spdlog::info("node {}: dashboard at http://{}:{}/", self.name, settings.address, (*srv)->port());
  }
  return srv;
}

} // namespace gridvec::http
