// The dashboard's pieces: the history buffer that keeps a whole run's curves
// in bounded memory, the event log ring, the memory limit, the JSON of the
// dashboard's routes, its static files and their headers, the server's
// public paths, and the routes themselves on a real local gridvec running a
// real job (paused, checkpointed, resumed, cancelled). tests/e2e_dashboard.sh
// loads the page in headless Chromium against a loopback cluster.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <thread>

#include "apps/http/dashboard_assets.hpp"
#include "apps/http/dashboard_json.hpp"
#include "apps/http/http_server.hpp"
#include "apps/http/node_http.hpp"
#include <gridvec/local.hpp>
#include "src/util/event_log.hpp"
#include "src/util/history_buffer.hpp"
#include "src/util/memory_limit.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using namespace gridvec::http;
using Catch::Matchers::Contains;
using gridvec::test::temp_dir;
using gridvec::test::write_topic_corpus;
namespace asio = boost::asio;

TEST_CASE("history buffer: a point per interval, rates and losses over it", "[dashboard]") {
  history_buffer h{8, 1.0};
  CHECK_FALSE(h.sample(0.0, 0.0, 0, 0.025f)); // starts the clock
  h.add_loss(6.0, 2);
  CHECK_FALSE(h.sample(0.5, 0.1, 500, 0.024f)); // too soon
  h.add_loss(2.0, 2);
  REQUIRE(h.sample(1.0, 0.2, 1000, 0.023f));
  REQUIRE(h.points().size() == 1);
  const auto& p = h.points()[0];
  CHECK(p.seconds == 1.0);
  CHECK(p.span == 1.0);
  CHECK(p.words_per_second == 1000.0);
  CHECK(p.loss == 2.0); // 8 over 4 pairs
  CHECK(p.pairs == 4);
  CHECK(p.progress == 0.2);
  CHECK(p.alpha == 0.023f);
  // No pair since: a point with no loss. A rollback (fewer words): rate 0.
  REQUIRE(h.sample(2.5, 0.3, 400, 0.02f));
  CHECK(h.points()[1].pairs == 0);
  CHECK(h.points()[1].words_per_second == 0);
  REQUIRE(h.sample(3.5, 0.4, 1400, 0.02f));
  CHECK(h.points()[2].words_per_second == 1000.0);
  CHECK_THROWS(history_buffer{5, 1.0});
  CHECK_THROWS(history_buffer{8, 0.0});
}

TEST_CASE("history buffer: bounded, it coarsens and still covers the whole run", "[dashboard]") {
  history_buffer h{16, 1.0};
  h.sample(0, 0, 0, 0.025f);
  // Ten thousand seconds at 100 words/s and a loss falling with time.
  const double run = 10000;
  for (int t = 1; t <= static_cast<int>(run) * 10; ++t) {
    const double s = t / 10.0;
    h.add_loss(10.0 / (1 + s), 1);
    h.sample(s, s / run, static_cast<uint64_t>(100 * s), 0.025f);
    REQUIRE(h.points().size() <= 16);
  }
  const auto& pts = h.points();
  CHECK(pts.size() >= 8);
  CHECK(h.interval() >= run / 16);
  CHECK(h.interval() <= run / 4);
  CHECK(pts.front().seconds <= run / 4); // the start is still there
  CHECK(pts.back().seconds >= run - h.interval());
  double covered = 0;
  for (const auto& p : pts) {
    CHECK(p.words_per_second == Approx(100).epsilon(0.01)); // weighted by time across merges
    covered += p.span;
  }
  CHECK(covered == Approx(pts.back().seconds).epsilon(0.01)); // no gap, no overlap
  for (size_t i = 1; i < pts.size(); ++i) {
    CHECK(pts[i].seconds > pts[i - 1].seconds);
    CHECK(pts[i].loss < pts[i - 1].loss);
  }
}

TEST_CASE("history buffer: phase spans and marks", "[dashboard]") {
  history_buffer h{4, 1.0};
  h.phase(0, "counting");
  h.phase(1, "training");
  h.phase(5, "training");
  h.phase(6, "paused");
  h.phase(9, "training");
  h.mark(7, "checkpoint 1");
  REQUIRE(h.phases().size() == 4);
  CHECK(h.phases()[0].phase == "counting");
  CHECK(h.phases()[0].to == 1);
  CHECK(h.phases()[1].from == 1);
  CHECK(h.phases()[1].to == 6);
  CHECK(h.phases()[2].phase == "paused");
  CHECK(h.phases()[2].to == 9);
  h.phase(10, "recovering"); // over capacity: the oldest goes
  REQUIRE(h.phases().size() == 4);
  CHECK(h.phases()[0].phase == "training");
  CHECK(h.phases()[3].phase == "recovering");
  REQUIRE(h.marks().size() == 1);
  CHECK(h.marks()[0].label == "checkpoint 1");
}

TEST_CASE("event log: the last lines, numbered, in a ring", "[dashboard]") {
  event_log log{3};
  for (int i = 1; i <= 5; ++i)
    log.add(i, 1000 * i, "info", "line " + std::to_string(i));
  CHECK(log.total() == 5);
  auto all = log.since(0);
  REQUIRE(all.size() == 3);
  CHECK(all.front().sequence == 3);
  CHECK(all.front().text == "line 3");
  CHECK(all.back().unix_ms == 5000);
  auto newer = log.since(4);
  REQUIRE(newer.size() == 1);
  CHECK(newer[0].text == "line 5");
  CHECK(log.since(5).empty());
}

TEST_CASE("memory limit: the cgroup's when below the RAM, else the RAM", "[dashboard]") {
  CHECK(parse_cgroup_limit("max\n", 1 << 30) == 0);
  CHECK(parse_cgroup_limit("536870912\n", 1ull << 30) == 536870912);
  CHECK(parse_cgroup_limit("9223372036854771712\n", 1ull << 30) == 0); // v1's "no limit"
  CHECK(parse_cgroup_limit("", 1 << 30) == 0);
  CHECK(parse_cgroup_limit("12x", 1 << 30) == 0);
  CHECK(memory_limit_bytes() > 0);
}

TEST_CASE("dashboard json: node states, traffic per kind, tables summed", "[dashboard]") {
  node_status up;
  up.name = "shard-a";
  up.up = true;
  up.shards = 1;
  node_status lost = up;
  lost.name = "shard-b";
  lost.up = false;
  node_status spare = up;
  spare.name = "spare";
  spare.standby = true;
  spare.shards = 0;
  shard_status s0;
  s0.node = "shard-a";
  s0.alive = false;
  CHECK(node_state(up, {}, "training") == "up");
  CHECK(node_state(lost, {}, "training") == "lost");
  CHECK(node_state(spare, {}, "training") == "standby");
  CHECK(node_state(up, {s0}, "recovering") == "recovering");
  CHECK(node_state(up, {s0}, "training") == "up");

  node_traffic t;
  t.node = "shard-a";
  t.received.add(message_kind::dotprod_request, 100);
  t.received.add(message_kind::dotprod_request, 50);
  t.sent.add(message_kind::dotprod_reply, 70);
  auto text = nodes_json({up, lost}, {t}, {}, "training");
  CHECK_THAT(text, Contains("\"received\": {\"dotprod_request\": {\"messages\": 2, \"bytes\": 150}}"));
  CHECK_THAT(text, Contains("\"sent\": {\"dotprod_reply\": {\"messages\": 1, \"bytes\": 70}}"));
  CHECK_THAT(text, Contains("\"name\": \"shard-b\", \"address\": \"\", \"roles\": \"\", \"state\": \"lost\""));
  CHECK_THAT(text, Contains("\"sent\": {}, \"received\": {}")); // shard-b sent nothing

  table_info a, b;
  a.spec.name = "emb";
  a.spec.dim = 4;
  a.spec.layout = table_layout::rows;
  a.rows = 3;
  a.memory_bytes = 100;
  b = a;
  b.shard = 1;
  b.rows = 5;
  table_info c = a;
  c.spec.name = "cols";
  c.spec.layout = table_layout::columns;
  c.rows = 7;
  table_info d = c;
  d.shard = 1;
  auto tables = tables_json({a, b, c, d});
  CHECK_THAT(tables, Contains("\"name\": \"emb\", \"kind\": \"map\", \"layout\": \"rows\", \"dim\": 4, \"dense\": "
                              "false, \"rows\": 8, \"memory_bytes\": 200"));
  CHECK_THAT(tables, Contains("\"name\": \"cols\", \"kind\": \"map\", \"layout\": \"columns\", \"dim\": 4, "
                              "\"dense\": false, \"rows\": 7"));
  CHECK(tables_json({}) == "{\"tables\": [], \"unreachable\": []}");
  CHECK_THAT(tables_json({a}, {"shard-b"}), Contains("\"unreachable\": [\"shard-b\"]"));

  job_history h;
  h.job = 3;
  h.points.push_back({1.0, 1.0, 0.1, 500, 2.5, 10, 0.02f});
  h.points.push_back({2.0, 1.0, 0.2, 0, 0, 0, 0.02f}); // no pairs: a null loss, not 0
  h.phases.push_back({"training", 0.5, 2.0});
  h.marks.push_back({1.5, "checkpoint 1"});
  h.events.push_back({1, 0.1, 1700000000000, "info", "job 3 started"});
  h.events.push_back({2, 1.5, 1700000001500, "warning", "shard \"0\" lost"});
  auto hist = history_json(h);
  CHECK_THAT(hist, Contains("\"words_per_second\": 500, \"loss\": 2.5"));
  CHECK_THAT(hist, Contains("\"words_per_second\": 0, \"loss\": null"));
  CHECK_THAT(hist, Contains("\"phases\": [{\"phase\": \"training\", \"from\": 0.5, \"to\": 2}]"));
  CHECK_THAT(hist, Contains("\"marks\": [{\"seconds\": 1.5, \"label\": \"checkpoint 1\"}]"));
  CHECK_THAT(hist, !Contains("job 3 started")); // events apart
  auto events = events_json(h, 1);
  CHECK_THAT(events, Contains("\"text\": \"shard \\\"0\\\" lost\""));
  CHECK_THAT(events, !Contains("job 3 started"));
}

TEST_CASE("dashboard files: compiled in, with a strict content security policy", "[dashboard]") {
  auto page = dashboard_asset("/");
  REQUIRE(page.status == 200);
  CHECK(page.content_type == "text/html; charset=utf-8");
  CHECK_THAT(page.body, Contains("<script src=\"dashboard.js\""));
  CHECK_THAT(page.body, Contains("id=\"login-form\""));
  bool csp = false;
  for (const auto& [k, v] : page.headers)
    if (k == "Content-Security-Policy") {
      csp = true;
      CHECK_THAT(v, Contains("default-src 'none'"));
      CHECK_THAT(v, Contains("script-src 'self'"));
      CHECK_THAT(v, Contains("frame-ancestors 'none'"));
    }
  CHECK(csp);
  auto js = dashboard_asset("/dashboard.js");
  REQUIRE(js.status == 200);
  CHECK(js.content_type == "text/javascript; charset=utf-8");
  CHECK_THAT(js.body, Contains("sessionStorage"));
  CHECK_THAT(js.body, Contains("Authorization"));
  CHECK_THAT(js.body, !Contains("innerHTML")); // server text goes in as text only
  CHECK(dashboard_asset("/dashboard.css").content_type == "text/css; charset=utf-8");
  CHECK(dashboard_asset("/nope.js").status == 404);
  // Nothing fetched from elsewhere: no URL but the SVG namespace.
  for (const auto* r : {&page, &js})
    for (const char* scheme : {"https://", "http://"}) {
      size_t at = r->body.find(scheme);
      while (at != std::string::npos) {
        CHECK(r->body.compare(at, 26, "http://www.w3.org/2000/svg") == 0);
        at = r->body.find(scheme, at + 1);
      }
    }
}

namespace {

std::string http_exchange(uint16_t port, const std::string& request) {
  asio::io_context io;
  asio::ip::tcp::socket s{io};
  s.connect({asio::ip::make_address("127.0.0.1"), port});
  asio::write(s, asio::buffer(request));
  std::string out;
  boost::system::error_code ec;
  asio::read(s, asio::dynamic_buffer(out), ec);
  return out;
}

} // namespace

TEST_CASE("http server: the public paths need no token, the rest does", "[dashboard]") {
  server_settings s;
  s.token = std::string(64, 'a');
  for (const auto& p : dashboard_paths())
    s.public_paths.insert(p);
  auto srv = server::start(s, [](const request_target& t) {
    if (t.path == "/" || t.path == "/dashboard.js")
      return dashboard_asset(t.path);
    return reply{200, "application/json", "{\"secret\": 1}", {}};
  });
  REQUIRE(srv);
  const auto port = (*srv)->port();
  auto get = [&](const std::string& path, const std::string& extra = "") {
    return http_exchange(port, "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + extra + "\r\n");
  };
  auto page = get("/");
  CHECK_THAT(page, Contains("HTTP/1.1 200"));
  CHECK_THAT(page, Contains("Content-Security-Policy: default-src 'none'"));
  CHECK_THAT(page, Contains("X-Content-Type-Options: nosniff"));
  CHECK_THAT(get("/dashboard.js"), Contains("HTTP/1.1 200"));
  auto data = get("/status");
  CHECK_THAT(data, Contains("HTTP/1.1 401"));
  CHECK_THAT(data, !Contains("secret"));
  CHECK_THAT(get("/status", "Authorization: Bearer " + s.token + "\r\n"), Contains("{\"secret\": 1}"));
}

namespace {

train_options long_job(const temp_dir& dir) {
  train_options o;
  o.train = dir.file("corpus.txt");
  o.output = dir.file("vectors.txt");
  o.size = 16;
  o.iter = 100000; // until cancelled
  o.threads = 2;
  o.min_count = 1;
  o.sample = 0;
  o.alpha = 0.01;
  o.minibatch = 16;
  o.in_flight = 2;
  o.interleave = 1;
  o.log_every = 1000;
  o.checkpoint_dir = dir.file("ck");
  return o;
}

/// Whether the controller answered `xs` with a T (an error is shown).
template <class T, class... Ts>
bool ask_ok(caf::actor_system& sys, const controller_actor& c, Ts... xs) {
  caf::scoped_actor self{sys};
  bool ok = false;
  self->request(c, std::chrono::seconds(60), xs...)
    .receive([&](const T&) { ok = true; }, [&](caf::error& e) { UNSCOPED_INFO(error_text(e)); });
  return ok;
}

reply call(const handler& h, const std::string& target) {
  auto t = parse_target(target);
  REQUIRE(t);
  return h(*t);
}

} // namespace

TEST_CASE("dashboard routes: a real job's history, events, nodes, shards and learners", "[dashboard][actors]") {
  temp_dir dir;
  write_topic_corpus(dir.file("corpus.txt"), 20000, 11);
  caf::actor_system_config cfg;
  configure_scheduler(cfg, 2);
  caf::actor_system sys{cfg};
  auto node = spawn_local_gridvec(sys);
  auto routes = node_routes(sys, node, "local", true);
  controller_actor controller;
  {
    caf::scoped_actor self{sys};
    self->request(node, std::chrono::seconds(10), controller_atom::value)
      .receive([&](controller_actor c) { controller = c; }, [](caf::error& e) { FAIL(error_text(e)); });
  }

  // Before any job: an empty history, one node, and the page.
  auto before = call(routes, "/history");
  CHECK(before.status == 200);
  CHECK_THAT(before.body, Contains("\"job\": 0"));
  CHECK_THAT(before.body, Contains("\"points\": []"));
  auto nodes = call(routes, "/nodes");
  REQUIRE(nodes.status == 200);
  CHECK_THAT(nodes.body, Contains("\"name\": \"local\""));
  CHECK_THAT(nodes.body, Contains("\"state\": \"up\""));
  CHECK_THAT(nodes.body, !Contains("\"memory_limit_bytes\": 0,"));
  CHECK(call(routes, "/shards").status == 404); // no job yet (the controller's not_found)
  CHECK(call(routes, "/").status == 200);
  CHECK(call(routes, "/events?after=x").status == 400);
  CHECK(call(routes, "/tables").status == 200);

  REQUIRE(ask_ok<uint64_t>(sys, controller, start_atom::value, long_job(dir)));
  bool paused = false;
  for (int i = 0; i < 2000 && !paused; ++i) {
    paused = ask_ok<bool>(sys, controller, pause_atom::value);
    if (!paused)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(paused);
  std::this_thread::sleep_for(std::chrono::milliseconds(1300)); // a point of the curves is due
  REQUIRE(ask_ok<checkpoint_info>(sys, controller, checkpoint_atom::value));
  REQUIRE(ask_ok<bool>(sys, controller, resume_atom::value));
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));

  auto history = call(routes, "/history");
  REQUIRE(history.status == 200);
  CHECK_THAT(history.body, Contains("\"job\": 1"));
  CHECK_THAT(history.body, !Contains("\"points\": []"));
  CHECK_THAT(history.body, Contains("{\"phase\": \"paused\""));
  CHECK_THAT(history.body, Contains("{\"phase\": \"training\""));
  CHECK_THAT(history.body, Contains("\"label\": \"checkpoint 1\""));
  CHECK_THAT(history.body, Contains("\"capacity\": 512"));
  auto events = call(routes, "/events");
  REQUIRE(events.status == 200);
  for (const char* line : {"job 1 started", "paused at", "checkpoint 1 written", "resumed"})
    CHECK_THAT(events.body, Contains(line));
  auto later = call(routes, "/events?after=2");
  CHECK_THAT(later.body, !Contains("\"sequence\": 1,"));
  CHECK_THAT(later.body, !Contains("\"sequence\": 2,"));

  auto shards = call(routes, "/shards");
  REQUIRE(shards.status == 200);
  CHECK_THAT(shards.body, Contains("\"rows\": 40"));
  CHECK_THAT(shards.body, Contains("\"alive\": true"));
  CHECK_THAT(shards.body, !Contains("\"lanes\": 0"));
  auto learners = call(routes, "/learners");
  REQUIRE(learners.status == 200);
  CHECK_THAT(learners.body, Contains("\"id\": 1"));
  CHECK_THAT(learners.body, Contains("\"parts\": [{\"part\":"));
  auto status = call(routes, "/status");
  CHECK_THAT(status.body, Contains("\"phase\": \"training\""));

  REQUIRE(ask_ok<bool>(sys, controller, cancel_atom::value));
  auto end = call(routes, "/history");
  CHECK_THAT(end.body, Contains("{\"phase\": \"cancelled\""));
  CHECK_THAT(call(routes, "/events").body, Contains("\"level\": \"error\", \"text\": \"the job was cancelled"));
  caf::anon_send(node, stop_atom::value);
}
