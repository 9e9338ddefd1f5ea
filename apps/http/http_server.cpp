#include "apps/http/http_server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "src/http/http_token.hpp"
#include "src/http/json_text.hpp"

namespace gridvec::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

// One log line per this interval for refused tokens, whatever their
// number: a client hammering with a wrong token must not flood the log.
constexpr auto unauthorized_log_interval = std::chrono::seconds(10);

class refusal_log {
public:
  void note(const std::string& node, const std::string& peer) {
    std::lock_guard lock{mutex_};
    ++suppressed_;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < unauthorized_log_interval)
      return;
    spdlog::warn("node {}: http: refused {} request(s) without a valid bearer token (latest from {})", node,
                 suppressed_, peer);
    suppressed_ = 0;
    last_ = now;
  }

private:
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_{};
  uint64_t suppressed_ = 0;
};

} // namespace

struct server::impl {
  // Declared so that the io_context, whose destructor destroys the
  // sessions still queued in it, goes before what they touch.
  server_settings settings;
  handler handle;
  std::atomic<bool> stopped{false};
  // Two pools, touched only by the I/O thread. Waiting: connections that
  // have not sent a whole request yet (new, half-sent, or idle between
  // requests), capped in total and per address; the oldest makes way when
  // it is full. Serving: connections with a request being answered,
  // capped by max_connections. So silent or slow sockets cannot take the
  // place of a client that sends its request.
  std::map<uint64_t, std::function<void()>> waiting; // by ticket: oldest first; closes it
  std::map<std::string, size_t> waiting_per_address;
  uint64_t last_ticket = 0;
  size_t serving = 0;
  uint64_t refused_per_address = 0, evicted = 0;
  std::chrono::steady_clock::time_point last_flood_log{};
  refusal_log refusals;
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::thread_pool workers;
  std::thread io_thread;

  impl(server_settings s, handler h)
    : settings(std::move(s)), handle(std::move(h)), workers(std::max<size_t>(1, settings.workers)) {}

  void accept();
  void note_flood();
};

namespace {

bhttp::response<bhttp::string_body> make_response(unsigned version, bool keep_alive, const reply& r) {
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), version};
  res.set(bhttp::field::server, "gridvec");
  res.set(bhttp::field::content_type, r.content_type);
  res.set(bhttp::field::cache_control, "no-store");
  res.keep_alive(keep_alive);
  for (const auto& [name, value] : r.headers)
    res.set(name, value);
  res.body() = r.body;
  res.prepare_payload();
  return res;
}

reply error_reply(unsigned status, std::string_view line) { return {status, "application/json", json_error(line)}; }

// One connection: read a request, answer it, and again while the client
// keeps the connection alive. Lives as long as an operation holds it.
class session : public std::enable_shared_from_this<session> {
public:
  session(tcp::socket socket, server::impl& srv, std::string peer)
    : stream_(std::move(socket)), srv_(srv), peer_(std::move(peer)) {}
  ~session() {
    stop_waiting();
    stop_serving();
  }

  void read() {
    start_waiting();
    parser_.emplace();
    parser_->header_limit(srv_.settings.header_limit);
    parser_->body_limit(srv_.settings.body_limit);
    stream_.expires_after(std::chrono::milliseconds(srv_.settings.read_timeout_ms));
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
  }

private:
  void start_waiting() {
    ticket_ = ++srv_.last_ticket;
    srv_.waiting[ticket_] = [weak = weak_from_this()] {
      if (auto self = weak.lock())
        self->close();
    };
    ++srv_.waiting_per_address[peer_];
  }

  void stop_waiting() {
    if (ticket_ == 0)
      return;
    srv_.waiting.erase(ticket_);
    ticket_ = 0;
    auto i = srv_.waiting_per_address.find(peer_);
    if (i != srv_.waiting_per_address.end() && --i->second == 0)
      srv_.waiting_per_address.erase(i);
  }

  void stop_serving() {
    if (serving_) {
      serving_ = false;
      --srv_.serving;
    }
  }

  void on_read(beast::error_code ec) {
    stop_waiting();
    if (ec == bhttp::error::header_limit)
      return fail(431, "the request's header is larger than " + std::to_string(srv_.settings.header_limit) + " bytes");
    if (ec == bhttp::error::body_limit)
      return fail(413, "the request's body is larger than " + std::to_string(srv_.settings.body_limit) + " bytes");
    if (ec == bhttp::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::operation_aborted ||
        ec == asio::error::connection_reset || ec == asio::error::eof)
      return close();
    if (ec)
      return fail(400, "malformed HTTP request (" + ec.message() + ")");
    stream_.expires_never();
    if (srv_.serving >= srv_.settings.max_connections)
      return fail(503, "too many requests under way; try again");
    serving_ = true;
    ++srv_.serving;
    const auto& req = parser_->get();
    version_ = req.version();
    keep_alive_ = req.keep_alive();
    head_ = req.method() == bhttp::verb::head;
    if (req.method() != bhttp::verb::get && !head_)
      return respond(error_reply(405, "only GET is served"), {{"Allow", "GET, HEAD"}});
    auto target = parse_target(std::string_view{req.target().data(), req.target().size()});
    if (!target)
      return respond(error_reply(400, target.error()));
    // /healthz answers without a token (load balancers and process
    // supervisors probe it, and it tells nothing but "alive"), and so do
    // the dashboard's static files: a browser loads the page before anyone
    // typed a token into it, and the page holds no data.
    const auto& token = srv_.settings.token;
    if (!token.empty() && !srv_.settings.public_paths.count(target->path)) {
      auto auth = req[bhttp::field::authorization];
      if (!bearer_matches(std::string_view{auth.data(), auth.size()}, token)) {
        srv_.refusals.note(srv_.settings.name, peer_);
        return respond(error_reply(401, auth.empty() ? "this cluster's HTTP API needs 'Authorization: Bearer TOKEN' "
                                                       "(gridvec keygen --http-token SECRET_FILE prints it)"
                                                     : "wrong bearer token"),
                       {{"WWW-Authenticate", "Bearer"}});
      }
    }
    // The handler may block on an actor: off the I/O thread, and back to
    // it for the write.
    asio::post(srv_.workers, [self = shared_from_this(), t = std::move(*target)] {
      reply r;
      try {
        r = self->srv_.handle(t);
      } catch (const std::exception& e) {
        r = error_reply(500, std::string{"internal error: "} + e.what());
      }
      asio::post(self->stream_.get_executor(), [self, r = std::move(r)] { self->respond(r); });
    });
  }

  void fail(unsigned status, const std::string& line) {
    // The request could not be read to its end: answer and close.
    keep_alive_ = false;
    respond(error_reply(status, line));
  }

  void respond(const reply& r, std::initializer_list<std::pair<const char*, const char*>> extra = {}) {
    if (srv_.stopped)
      return close();
    res_ = make_response(version_, keep_alive_, r);
    for (auto& [k, v] : extra)
      res_.set(k, v);
    if (head_)
      res_.body().clear(); // HEAD: the GET's headers (Content-Length included), no body
    stream_.expires_after(std::chrono::milliseconds(srv_.settings.read_timeout_ms));
    bhttp::async_write(stream_, res_, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->stop_serving();
      if (ec || !self->keep_alive_)
        return self->close();
      self->read();
    });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  server::impl& srv_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> res_;
  std::string peer_;
  uint64_t ticket_ = 0; // in the waiting pool while not 0
  bool serving_ = false;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  bool head_ = false;
};

} // namespace

void server::impl::accept() {
  // One I/O thread runs every session: no strands needed.
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec != asio::error::operation_aborted && !stopped)
        accept();
      return;
    }
    beast::error_code pec;
    auto ep = socket.remote_endpoint(pec);
    std::string peer = pec ? "?" : ep.address().to_string();
    if (waiting_per_address[peer] >= settings.max_waiting_per_address) {
      // Over the limit for its address: a short answer, then it goes.
      ++refused_per_address;
      note_flood();
      auto res = make_response(11, false, error_reply(503, "too many open connections from this address; try again"));
      socket.non_blocking(true, pec);
      beast::error_code wec;
      bhttp::write(socket, res, wec);
      socket.close(wec);
    } else {
      if (waiting.size() >= settings.max_waiting) {
        // The oldest waiting connection makes way (from another address:
        // this one is under its cap).
        auto oldest = waiting.begin()->second;
        waiting.erase(waiting.begin());
        ++evicted;
        note_flood();
        oldest();
      }
      std::make_shared<session>(std::move(socket), *this, std::move(peer))->read();
    }
    accept();
  });
}

void server::impl::note_flood() {
  auto now = std::chrono::steady_clock::now();
  if (now - last_flood_log < unauthorized_log_interval)
    return;
  spdlog::warn("node {}: http: refused {} connection(s) over max-waiting-per-address and closed {} waiting one(s) "
               "to make room (a flood of idle or half-sent requests?)",
               settings.name, refused_per_address, evicted);
  refused_per_address = evicted = 0;
  last_flood_log = now;
}

server::server(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

server::~server() { stop(); }

expected<std::unique_ptr<server>> server::start(server_settings settings, handler h) {
  auto p = std::make_unique<impl>(std::move(settings), std::move(h));
  const auto where = p->settings.address + ":" + std::to_string(p->settings.port);
  beast::error_code ec;
  auto address = asio::ip::make_address(p->settings.address, ec);
  if (ec)
    return failure{"http: '" + p->settings.address + "' is not an IP address"};
  tcp::endpoint endpoint{address, p->settings.port};
  p->acceptor.open(endpoint.protocol(), ec);
  if (!ec)
    p->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec)
    p->acceptor.bind(endpoint, ec);
  if (!ec)
    p->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return failure{"http: cannot listen on " + where + ": " + ec.message()};
  p->accept();
  auto* raw = p.get();
  p->io_thread = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<server>(new server(std::move(p)));
}

uint16_t server::port() const {
  beast::error_code ec;
  auto ep = impl_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

void server::stop() {
  if (!impl_ || impl_->stopped.exchange(true))
    return;
  // The I/O loop first, so that no new request reaches the workers; then
  // the handlers under way finish (an actor request has its own timeout)
  // and their replies are dropped with the sessions.
  impl_->io.stop();
  if (impl_->io_thread.joinable())
    impl_->io_thread.join();
  beast::error_code ec;
  impl_->acceptor.close(ec);
  impl_->workers.join();
}

} // namespace gridvec::http
