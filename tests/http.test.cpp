// The HTTP API's pieces: the token, the Prometheus text, the JSON bits, the
// request target, the config keys, and the server itself on a loopback
// port with a stand-in handler (its limits, its auth, its status codes).
// tests/e2e_http.sh drives the real routes on a real cluster.
#include <catch2/catch.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include "apps/http/http_server.hpp"
#include "apps/http/node_metrics.hpp"
#include <gridvec/core/cluster_config.hpp>
#include "src/http/http_query.hpp"
#include "src/http/http_token.hpp"
#include "src/http/json_text.hpp"
#include "src/http/prometheus_text.hpp"

using namespace gridvec;
using namespace gridvec::http;
using Catch::Matchers::Contains;
namespace asio = boost::asio;

TEST_CASE("http token: derived from the secret, hex, checked as a bearer", "[http]") {
  net::secret_bytes a{}, b{};
  b[0] = 1;
  const auto ta = derive_token(a), tb = derive_token(b);
  CHECK(ta.size() == 64);
  CHECK(ta.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(ta != tb);
  CHECK(ta == derive_token(a));
  CHECK(bearer_matches("Bearer " + ta, ta));
  CHECK(bearer_matches("bearer " + ta + " ", ta));
  CHECK_FALSE(bearer_matches("Bearer " + tb, ta));
  CHECK_FALSE(bearer_matches("Bearer " + ta.substr(0, 63), ta));
  CHECK_FALSE(bearer_matches("Bearer " + ta + "0", ta));
  CHECK_FALSE(bearer_matches("Basic " + ta, ta));
  CHECK_FALSE(bearer_matches(ta, ta));
  CHECK_FALSE(bearer_matches("", ta));
  CHECK_FALSE(bearer_matches("Bearer ", "")); // no token configured never matches
}

TEST_CASE("prometheus text: HELP and TYPE once, escaped labels, special values", "[http]") {
  prometheus_text out;
  out.family("gridvec_a", "gauge", "help with \\ and\nnewline");
  out.sample("gridvec_a", {}, 1.5);
  out.family("gridvec_a", "gauge", "again"); // ignored
  out.sample("gridvec_a", {{"node", "x\"y\\z\n"}, {"k", "v"}}, 2);
  out.family("gridvec_b_total", "counter", "b");
  out.sample("gridvec_b_total", {}, 1e12);
  CHECK(out.text() == "# HELP gridvec_a help with \\\\ and\\nnewline\n"
                      "# TYPE gridvec_a gauge\n"
                      "gridvec_a 1.5\n"
                      "gridvec_a{node=\"x\\\"y\\\\z\\n\",k=\"v\"} 2\n"
                      "# HELP gridvec_b_total b\n"
                      "# TYPE gridvec_b_total counter\n"
                      "gridvec_b_total 1e+12\n"); // exponent form: valid Prometheus and JSON
  CHECK(format_metric_value(std::nan("")) == "NaN");
  CHECK(format_metric_value(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(format_metric_value(-std::numeric_limits<double>::infinity()) == "-Inf");
  CHECK(format_metric_value(0.1) == "0.1");
}

TEST_CASE("json text: strings escaped, non-finite numbers null", "[http]") {
  CHECK(json_string("a\"b\\c\nd\x01") == "\"a\\\"b\\\\c\\nd\\u0001\"");
  CHECK(json_string("caf\xc3\xa9") == "\"caf\xc3\xa9\""); // UTF-8 passes through
  CHECK(json_number(0.25) == "0.25");
  CHECK(json_number(0.1f) == "0.1"); // not 0.10000000149011612
  CHECK(json_number(std::nanf("")) == "null");
  CHECK(json_number(std::nan("")) == "null");
  CHECK(json_number(std::numeric_limits<double>::infinity()) == "null");
  CHECK(json_error("no \"x\"") == "{\"error\": \"no \\\"x\\\"\"}\n");
}

TEST_CASE("request target: path, decoded parameters, bad input as failures", "[http]") {
  auto t = parse_target("/nearest?word=new%20york+city&k=5&&flag");
  REQUIRE(t);
  CHECK(t->path == "/nearest");
  CHECK(t->params.at("word") == "new york city");
  CHECK(t->params.at("flag").empty());
  CHECK(*t->count("k", 10, 10000) == 5);
  CHECK(*t->count("absent", 10, 10000) == 10);
  CHECK(*t->required("word") == "new york city");
  CHECK_THAT(t->required("flag").error(), Contains("missing parameter 'flag'"));
  for (const char* bad : {"0", "10001", "-1", "5x", "", "99999999999"}) {
    auto q = parse_target(std::string{"/n?k="} + bad);
    REQUIRE(q);
    CHECK_FALSE(q->count("k", 10, 10000));
  }
  CHECK_FALSE(parse_target("/n?word=%zz"));
  CHECK_FALSE(parse_target("/n?word=%4"));
  CHECK_FALSE(parse_target("/n?word=%"));
  CHECK_FALSE(parse_target("/n?k=1&k=2"));
  auto plain = parse_target("/metrics");
  REQUIRE(plain);
  CHECK(plain->params.empty());
}

TEST_CASE("cluster config: http-port and http-bind", "[http]") {
  const std::string nodes = "[node a]\nhost = 127.0.0.1\nport = 7700\nroles = coordinator, vocabulary, exporter, "
                            "shard, learner\nshards = 1\nlearners = 1\n";
  auto ok = parse_cluster_config(nodes + "http-port = 7780\n", "h.conf");
  REQUIRE(ok);
  CHECK(ok->nodes[0].http_port == 7780);
  CHECK(ok->nodes[0].http_address() == "127.0.0.1");
  auto none = parse_cluster_config(nodes, "h.conf");
  REQUIRE(none);
  CHECK(none->nodes[0].http_port == 0);
  auto fails = [&](const std::string& text, const std::string& what) {
    auto c = parse_cluster_config(text, "h.conf");
    INFO(text);
    REQUIRE_FALSE(c);
    CHECK_THAT(c.error(), Contains(what));
  };
  fails(nodes + "http-port = 0\n", "http-port must be a number from 1 to 65535");
  fails(nodes + "http-port = 7700\n", "uses http-port 7700, the same host:port");
  fails(nodes + "http-bind = 127.0.0.1\n", "sets http-bind but no http-port");
  // Beyond loopback only with a secret, whose token guards the API.
  fails(nodes + "http-port = 7780\nhttp-bind = 0.0.0.0\n", "has no secret");
  auto exposed =
    parse_cluster_config("[cluster]\nsecret = k\n" + nodes + "http-port = 7780\nhttp-bind = 0.0.0.0\n", "h.conf");
  REQUIRE(exposed);
  CHECK(exposed->nodes[0].http_address() == "0.0.0.0");
  CHECK(is_loopback_address("127.0.0.1"));
  CHECK(is_loopback_address("127.1.2.3"));
  CHECK(is_loopback_address("::1"));
  CHECK_FALSE(is_loopback_address("0.0.0.0"));
  CHECK_FALSE(is_loopback_address("10.0.0.1"));
}

namespace {

// One raw exchange: sends `request` as written, reads until the server closes.
std::string raw_exchange(uint16_t port, const std::string& request) {
  asio::io_context io;
  asio::ip::tcp::socket socket{io};
  socket.connect({asio::ip::make_address("127.0.0.1"), port});
  asio::write(socket, asio::buffer(request));
  std::string response;
  boost::system::error_code ec;
  asio::read(socket, asio::dynamic_buffer(response), ec);
  return response;
}

std::string get(uint16_t port, const std::string& target, const std::string& headers = "") {
  return raw_exchange(port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers + "\r\n");
}

int status_of(const std::string& response) { return response.size() > 12 ? std::stoi(response.substr(9, 3)) : 0; }

} // namespace

TEST_CASE("http server: token, methods, limits, and it goes on serving", "[http]") {
  const std::string token(64, 'a');
  server_settings s;
  s.port = 0;
  s.token = token;
  s.name = "test";
  s.max_connections = 3;
  s.max_waiting = 4;
  s.max_waiting_per_address = 3;
  s.read_timeout_ms = 300;
  auto srv = server::start(s, [](const request_target& t) -> reply {
    if (t.path == "/throw")
      throw std::runtime_error("boom");
    if (t.path == "/slow")
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return {200, "application/json", "{\"path\": " + json_string(t.path) + "}"};
  });
  REQUIRE(srv);
  const uint16_t port = (*srv)->port();
  REQUIRE(port != 0);
  const std::string auth = "Authorization: Bearer " + token + "\r\n";

  auto ok = get(port, "/x?y=1", auth);
  CHECK(status_of(ok) == 200);
  CHECK_THAT(ok, Contains("{\"path\": \"/x\"}"));
  CHECK(status_of(get(port, "/x")) == 401);
  CHECK_THAT(get(port, "/x"), Contains("\"error\""));
  CHECK(status_of(get(port, "/x", "Authorization: Bearer " + std::string(64, 'b') + "\r\n")) == 401);
  CHECK(status_of(get(port, "/healthz")) == 200); // no token needed
  CHECK(status_of(raw_exchange(port, "POST /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + auth +
                                       "Content-Length: 2\r\n\r\nhi")) == 405);
  CHECK(status_of(raw_exchange(port, "DELETE /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + auth + "\r\n")) == 405);
  auto head = raw_exchange(port, "HEAD /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + auth + "\r\n");
  CHECK(status_of(head) == 200);
  CHECK_THAT(head, !Contains("{\"path\""));
  CHECK(status_of(get(port, "/x?a=%zz", auth)) == 400);
  CHECK(status_of(get(port, "/throw", auth)) == 500);
  CHECK(status_of(raw_exchange(port, "this is not http\r\n\r\n")) == 400);
  CHECK(status_of(get(port, "/x", auth + "X-Big: " + std::string(16384, 'x') + "\r\n")) == 431);
  CHECK(status_of(raw_exchange(port, "POST /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + auth +
                                       "Content-Length: 5000\r\n\r\n" + std::string(5000, 'b'))) == 413);
  CHECK(status_of(get(port, "/after", auth)) == 200);

  // Garbage of every kind: answered or dropped, never a crash.
  std::mt19937 rng{21};
  for (int i = 0; i < 100; ++i) {
    std::string junk(rng() % 600, '\0');
    for (auto& c : junk)
      c = static_cast<char>(rng() % 256);
    const std::string prefixes[] = {"", "GET ", "GET /x HTTP/1.1\r\n", "GET /%"};
    raw_exchange(port, prefixes[i % 4] + junk + "\r\n\r\n");
  }
  CHECK(status_of(get(port, "/still", auth)) == 200);

  // Keep-alive: two requests on one connection.
  auto two = raw_exchange(port, "GET /one HTTP/1.1\r\nHost: x\r\n" + auth + "\r\nGET /two HTTP/1.1\r\nHost: x\r\n" +
                                  "Connection: close\r\n" + auth + "\r\n");
  CHECK_THAT(two, Contains("/one"));
  CHECK_THAT(two, Contains("/two"));

  // A client that sends nothing is cut off after the read timeout.
  {
    asio::io_context io;
    asio::ip::tcp::socket idle{io};
    idle.connect({asio::ip::make_address("127.0.0.1"), port});
    const auto start = std::chrono::steady_clock::now();
    std::string got;
    boost::system::error_code ec;
    asio::read(idle, asio::dynamic_buffer(got), ec);
    CHECK(ec); // closed by the server
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  }

  // Idle sockets wait in a pool of their own: over max_waiting_per_address
  // from one address the next gets 503, but a client from another address
  // is served (the oldest idle one makes way when the pool is full), and
  // the server serves again once they time out.
  {
    asio::io_context io;
    auto idle_from = [&](const char* from) {
      asio::ip::tcp::socket sock{io};
      sock.open(asio::ip::tcp::v4());
      sock.bind({asio::ip::make_address(from), 0});
      sock.connect({asio::ip::make_address("127.0.0.1"), port});
      return sock;
    };
    std::vector<asio::ip::tcp::socket> held;
    for (int i = 0; i < 3; ++i)
      held.push_back(idle_from("127.0.0.2"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto over = idle_from("127.0.0.2");
    std::string got;
    boost::system::error_code ec;
    asio::read(over, asio::dynamic_buffer(got), ec);
    CHECK(status_of(got) == 503);
    CHECK(status_of(get(port, "/x", auth)) == 200);
    CHECK(status_of(get(port, "/healthz")) == 200);
    for (int i = 0; i < 3; ++i)
      held.push_back(idle_from("127.0.0.3")); // 6 waiting: the oldest from .2 make way
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(status_of(get(port, "/x", auth)) == 200);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500)); // the held ones time out
  CHECK(status_of(get(port, "/x", auth)) == 200);

  (*srv)->stop();
  (*srv)->stop(); // idempotent
  asio::io_context io;
  asio::ip::tcp::socket late{io};
  boost::system::error_code ec;
  late.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  CHECK(ec); // nothing listens any more
}

TEST_CASE("http server: a port in use or a bad address is one line", "[http]") {
  server_settings s;
  auto first = server::start(s, [](const request_target&) { return reply{}; });
  REQUIRE(first);
  s.port = (*first)->port();
  auto second = server::start(s, [](const request_target&) { return reply{}; });
  REQUIRE_FALSE(second);
  CHECK_THAT(second.error(), Contains("cannot listen on 127.0.0.1:"));
  s.address = "not-an-address";
  auto bad = server::start(s, [](const request_target&) { return reply{}; });
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error(), Contains("is not an IP address"));
}

TEST_CASE("node metrics: every node's gauges, the job's on the coordinator", "[http]") {
  metrics_input plain;
  plain.node = "shard-a";
  CHECK_THAT(render_metrics(plain), Contains("gridvec_up{node=\"shard-a\"} 0\n"));
  plain.self = node_status{};
  plain.self->rss_bytes = 1000;
  auto text = render_metrics(plain);
  CHECK_THAT(text, Contains("gridvec_up{node=\"shard-a\"} 1\n"));
  CHECK_THAT(text, Contains("gridvec_node_resident_memory_bytes{node=\"shard-a\"} 1000\n"));
  CHECK_THAT(text, !Contains("gridvec_job_"));

  metrics_input coord = plain;
  coord.node = "coord";
  coord.job = job_status{};
  coord.job->phase = "training";
  coord.job->words_per_second = 12345;
  coord.job->loss = 2.5;
  coord.job->recoveries = 2;
  coord.job->traffic_messages = {1, 2, 3, 4};
  coord.job->traffic_bytes = {10, 20, 30, 40};
  shard_status shard;
  shard.node = "shard-a";
  shard.bytes = 4096;
  coord.shards = {shard};
  learner_status learner;
  learner.node = "learn-a";
  learner.words_per_second = 99;
  coord.learners = {learner};
  text = render_metrics(coord);
  for (const char* line :
       {"# TYPE gridvec_job_words_per_second gauge\ngridvec_job_words_per_second 12345\n", "gridvec_job_loss 2.5\n",
        "# TYPE gridvec_job_recoveries_total counter\ngridvec_job_recoveries_total 2\n",
        "gridvec_job_phase{phase=\"training\"} 1\n", "gridvec_message_bytes_total{kind=\"dotprod_request\"} 10\n",
        "gridvec_messages_total{kind=\"adjust_reply\"} 4\n",
        "gridvec_shard_memory_bytes{shard=\"0\",node=\"shard-a\"} 4096\n",
        "gridvec_learner_words_per_second{learner=\"0\",node=\"learn-a\"} 99\n"})
    CHECK_THAT(text, Contains(line));
}
