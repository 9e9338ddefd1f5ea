#pragma once
// A small HTTP/1.1 server on Boost.Beast for a node's /metrics, /healthz and
// JSON API (docs/http.md). It owns its threads: one I/O thread runs every
// connection (accept, read, write; never blocks), and a few worker threads
// run the handler, which may block on an actor request. So a slow query
// holds up neither other connections nor the actor system.
//
// Everything a client controls is bounded: headers (8 KiB, else 431),
// bodies (a GET has none: 1 KiB, else 413), the time to send a request
// (10 s, then the connection is closed), and one request in flight per
// connection. Connections waiting for a whole request (new, half-sent or
// idle) have a pool of their own: 64, and 8 from one address (the next
// from that address gets 503 and is closed; from another address, the
// oldest waiting one makes way); requests being answered another (64, the
// next gets 503). So a flood of silent sockets does not keep /healthz or an
// authorised client out. Only GET and HEAD are served (405).
// With a token, every path but the public ones (/healthz, and the
// dashboard's static files, which hold no data) needs "Authorization:
// Bearer TOKEN" (401, and one log line per 10 s for all refusals).
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "src/http/http_query.hpp"
#include <gridvec/core/expected.hpp>

namespace gridvec::http {

struct reply {
  using header_list = std::vector<std::pair<std::string, std::string>>;
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
  header_list headers; // besides Content-Type and the server's own

  reply() = default;
  reply(unsigned s, std::string type, std::string b, header_list h = {})
    : status(s), content_type(std::move(type)), body(std::move(b)), headers(std::move(h)) {}
};

/// Answers one authorised GET; runs on a worker thread and may block.
using handler = std::function<reply(const request_target&)>;

struct server_settings {
  std::string address = "127.0.0.1";
  uint16_t port = 0;                              // 0: any free port (tests)
  std::string token;                              // empty: no authentication (a cluster without secret)
  std::string name;                               // for log lines: the node
  std::set<std::string> public_paths{"/healthz"}; // served without the token
  size_t max_connections = 64;                    // requests being answered at once
  size_t max_waiting = 64;                        // connections waiting for a whole request
  size_t max_waiting_per_address = 8;             // of those, from one address
  size_t workers = 4;
  uint32_t header_limit = 8 * 1024;
  uint32_t body_limit = 1024;
  uint32_t read_timeout_ms = 10'000;
};

class server {
public:
  /// Binds and starts serving; a failure (address in use, bad address) is one line.
  static expected<std::unique_ptr<server>> start(server_settings settings, handler h);
  ~server(); // stop()s

  uint16_t port() const;
  /// Closes the listener and every connection, waits for the threads
  /// (a handler under way finishes first). Idempotent.
  void stop();

  struct impl;

private:
  explicit server(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

} // namespace gridvec::http
