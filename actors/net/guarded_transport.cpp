#include "actors/net/guarded_transport.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/detail/socket_guard.hpp>
#include <caf/io/basp_broker.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor_impl.hpp>
#include <caf/io/network/default_multiplexer.hpp>
#include <caf/io/network/doorman_impl.hpp>
#include <caf/io/network/stream_impl.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/session.hpp>
#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "actors/net/bounded_decoders.hpp"
#include "actors/net/limited_log.hpp"
#include "src/net/frame_guard.hpp"

namespace gridvec::net {

namespace {

using caf::io::network::native_socket;
using caf::io::network::rw_state;
using clock_type = std::chrono::steady_clock;

// --- what each actor system was configured with ---------------------------

std::mutex registry_mutex;
std::map<const caf::actor_system_config*, transport_settings> settings_by_config;
std::map<std::string, std::string> failures_by_endpoint;

void record_failure(const std::string& endpoint, const std::string& why) {
  std::lock_guard<std::mutex> guard{registry_mutex};
  failures_by_endpoint[endpoint] = why;
}

// --- the bytes under the handshake: plain TCP, or TLS ------------------------

class channel {
public:
  explicit channel(caf::openssl::session_ptr tls) : tls_(std::move(tls)) {}

  rw_state read(size_t& n, native_socket fd, void* buf, size_t len) {
    if (tls_)
      return tls_->read_some(n, fd, buf, len);
    n = 0;
    auto r = ::recv(fd, buf, len, 0);
    if (r > 0) {
      n = static_cast<size_t>(r);
      return rw_state::success;
    }
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return rw_state::success;
    return rw_state::failure; // closed by the peer, or an error
  }

  rw_state write(size_t& n, native_socket fd, const void* buf, size_t len) {
    if (tls_)
      return tls_->write_some(n, fd, buf, len);
    n = 0;
    auto r = ::send(fd, buf, len, MSG_NOSIGNAL);
    if (r >= 0) {
      n = static_cast<size_t>(r);
      return rw_state::success;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
      return rw_state::success;
    return rw_state::failure;
  }

  bool must_read_more(native_socket fd, size_t threshold) { return tls_ && tls_->must_read_more(fd, threshold); }

  bool tls() const { return tls_ != nullptr; }

private:
  caf::openssl::session_ptr tls_;
};

// --- the caps on connections --------------------------------------------------

class guarded_connection;

/// Counts a node's connections (in total and per peer address) and closes
/// those whose handshake is overdue. Shared by the doorman, every
/// connection and the middleman actor; used from the network thread and the
/// middleman actor's thread, hence the mutex.
class connection_registry {
public:
  explicit connection_registry(const transport_settings& s) : settings_(s) {}

  /// Counts a new connection from `address`, or says why it is refused.
  bool admit(const std::string& address, std::string& why) {
    sweep();
    std::lock_guard<std::mutex> guard{mutex_};
    if (total_ >= settings_.max_connections) {
      why = "too many connections (" + std::to_string(total_) + ", max-connections)";
      return false;
    }
    if (per_address_[address] >= settings_.max_connections_per_address) {
      why = "too many connections from " + address + " (" + std::to_string(per_address_[address]) +
            ", max-connections-per-address)";
      return false;
    }
    ++total_;
    ++per_address_[address];
    return true;
  }

  void release(const std::string& address) {
    std::lock_guard<std::mutex> guard{mutex_};
    if (total_ > 0)
      --total_;
    auto i = per_address_.find(address);
    if (i != per_address_.end() && --i->second == 0)
      per_address_.erase(i);
  }

  void expect_handshake(native_socket fd, std::weak_ptr<guarded_connection> c) {
    std::lock_guard<std::mutex> guard{mutex_};
    pending_.push_back(
      {fd, std::move(c), clock_type::now() + std::chrono::milliseconds(settings_.handshake_timeout_ms)});
  }

  /// Shuts the socket of every connection whose handshake is overdue: the
  /// network thread then sees it closed and CAF drops it as usual.
  void sweep();

private:
  struct pending_handshake {
    native_socket fd;
    std::weak_ptr<guarded_connection> connection;
    clock_type::time_point deadline;
  };
  transport_settings settings_;
  std::mutex mutex_;
  uint32_t total_ = 0;
  std::map<std::string, uint32_t> per_address_;
  std::vector<pending_handshake> pending_;
};

// --- one connection -----------------------------------------------------------

/// The state of one connection under CAF's stream: the handshake, then the
/// frame guard on everything CAF reads. Bytes that CAF writes before the
/// handshake is done are held back (CAF's server side greets a new
/// connection at once; that greeting must not reach an unproven peer).
class guarded_connection {
public:
  guarded_connection(std::shared_ptr<connection_registry> registry, std::string counted_as,
                     const transport_settings& settings, auth_handshake::role role, std::string peer,
                     caf::openssl::session_ptr tls)
    : registry_(std::move(registry)), counted_as_(std::move(counted_as)), role_(role), peer_(std::move(peer)),
      channel_(std::move(tls)), guard_(settings.max_message_bytes) {
    if (settings.secret) {
      handshake_.emplace(role, *settings.secret);
      handshake_out_ = handshake_->hello();
    } else {
      open_ = true; // TLS with mutual verification is the only proof
    }
  }

  ~guarded_connection() {
    if (registry_)
      registry_->release(counted_as_);
  }

  /// Set by the scribe: asks CAF's stream for a write event, for bytes that
  /// wait here while CAF has nothing to write.
  std::function<void()> request_write;

  rw_state read_some(size_t& result, native_socket fd, void* buf, size_t len) {
    result = 0;
    if (failed_)
      return rw_state::failure;
    if (!open_) {
      if (!advance_handshake(fd))
        return rw_state::failure;
      if (!open_)
        return rw_state::success;
    }
    auto st = channel_.read(result, fd, buf, len);
    if (st == rw_state::success && result > 0 && !guard_.inspect(static_cast<const uint8_t*>(buf), result)) {
      fail("closed the connection with " + peer_ + ": " + guard_.failure());
      result = 0;
      return rw_state::failure;
    }
    return st;
  }

  rw_state write_some(size_t& result, native_socket fd, const void* buf, size_t len) {
    result = 0;
    if (failed_ || !flush(fd))
      return rw_state::failure;
    if (len == 0) // a write event CAF forced for us: keep it only for CAF's own bytes
      return open_ && !held_.empty() ? rw_state::success : rw_state::indeterminate;
    if (!open_) {
      // Held back until the peer has proven the secret; CAF is told they
      // went out, so it does not keep asking (advance_handshake sends them).
      auto p = static_cast<const uint8_t*>(buf);
      held_.insert(held_.end(), p, p + len);
      result = len;
      return rw_state::success;
    }
    if (!held_.empty()) // the socket is full: again at the next write event
      return rw_state::success;
    return channel_.write(result, fd, buf, len);
  }

  bool must_read_more(native_socket fd, size_t threshold) { return channel_.must_read_more(fd, threshold); }

  bool open() const { return open_; }

private:
  // Reads the peer's side of the handshake (no more bytes than it has, so
  // none of CAF's bytes are taken) and sends ours.
  bool advance_handshake(native_socket fd) {
    if (!flush(fd))
      return false;
    uint8_t in[auth_handshake::hello_size + auth_handshake::proof_size];
    while (!open_) {
      size_t n = 0;
      auto st = channel_.read(n, fd, in, sizeof in - received_);
      if (st == rw_state::failure) {
        if (channel_.tls() && received_ == 0) {
          fail(tls_failure());
          return false;
        }
        fail(role_ == auth_handshake::role::connector
               ? "the node at " + peer_ +
                   " closed the connection during the handshake: it refused this "
                   "process (a different cluster secret, a certificate it does not trust, or too many "
                   "connections; the node's log says which)"
               : "the peer " + peer_ + " closed the connection during the handshake");
        return false;
      }
      if (n == 0)
        break;
      received_ += n;
      handshake_->feed(in, n, handshake_out_);
      if (handshake_->current() == auth_handshake::state::failed) {
        // Our proof still goes out (best effort): the other end then logs
        // what was wrong instead of a connection closed mid-handshake.
        flush(fd);
        fail(role_ == auth_handshake::role::acceptor
               ? "refused the connection from " + peer_ + ": " + handshake_->failure()
               : "the node at " + peer_ + " failed the handshake: " + handshake_->failure());
        return false;
      }
      if (handshake_->current() == auth_handshake::state::done)
        open_ = true;
    }
    if (!flush(fd))
      return false;
    if ((!handshake_out_.empty() || (open_ && !held_.empty())) && request_write)
      request_write();
    return true;
  }

  // Sends the handshake's bytes, then (once open) what CAF wrote meanwhile,
  // as far as the socket takes them.
  bool flush(native_socket fd) {
    for (auto* out : {&handshake_out_, &held_}) {
      if (out == &held_ && !open_)
        break;
      while (!out->empty()) {
        size_t n = 0;
        if (channel_.write(n, fd, out->data(), out->size()) == rw_state::failure) {
          fail(channel_.tls() && received_ == 0 ? tls_failure()
                                                : "lost the connection with " + peer_ + " during the handshake");
          return false;
        }
        if (n == 0)
          return true;
        out->erase(out->begin(), out->begin() + static_cast<long>(n));
      }
    }
    return true;
  }

  // Nothing of our handshake arrived through TLS: TLS itself failed.
  std::string tls_failure() const {
    return "the TLS handshake with " + peer_ +
           " failed (no TLS, or a certificate not signed by the other side's tls-ca)";
  }

  void fail(const std::string& why) {
    failed_ = true;
    if (role_ == auth_handshake::role::acceptor)
      warn_limited(why);
    else
      record_failure(peer_, why);
  }

  std::shared_ptr<connection_registry> registry_; // null for outgoing connections
  std::string counted_as_;                        // the address the registry counted it under
  auth_handshake::role role_;
  std::string peer_; // host:port, for messages
  channel channel_;
  std::optional<auth_handshake> handshake_;
  frame_guard guard_;
  std::vector<uint8_t> handshake_out_; // our handshake bytes not yet sent
  std::vector<uint8_t> held_;          // CAF's bytes not yet sent
  size_t received_ = 0;                // handshake bytes from the peer
  bool open_ = false;
  bool failed_ = false;
};

void connection_registry::sweep() {
  std::vector<native_socket> overdue;
  std::vector<std::shared_ptr<guarded_connection>> alive;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    auto now = clock_type::now();
    std::vector<pending_handshake> keep;
    for (auto& p : pending_) {
      auto c = p.connection.lock();
      if (!c || c->open())
        continue;
      if (now >= p.deadline) {
        overdue.push_back(p.fd);
        alive.push_back(std::move(c)); // its socket stays ours until shut
      } else {
        keep.push_back(std::move(p));
      }
    }
    pending_.swap(keep);
  }
  for (auto fd : overdue) {
    warn_limited("closing a connection that did not finish the handshake within " +
                 std::to_string(settings_.handshake_timeout_ms) + " ms");
    ::shutdown(fd, SHUT_RDWR);
  }
}

// --- CAF's side: policy, scribe, doorman, middleman actor ---------------------

struct guarded_policy {
  explicit guarded_policy(std::shared_ptr<guarded_connection> c) : connection(std::move(c)) {}

  rw_state read_some(size_t& result, native_socket fd, void* buf, size_t len) {
    return connection->read_some(result, fd, buf, len);
  }
  rw_state write_some(size_t& result, native_socket fd, const void* buf, size_t len) {
    return connection->write_some(result, fd, buf, len);
  }
  bool must_read_more(native_socket fd, size_t threshold) { return connection->must_read_more(fd, threshold); }

  std::shared_ptr<guarded_connection> connection;
};

using default_mpx = caf::io::network::default_multiplexer;

/// CAF's scribe (one connection as a broker sees it) over a guarded stream;
/// the same as the OpenSSL module's, with our policy.
class guarded_scribe : public caf::io::scribe {
public:
  guarded_scribe(default_mpx& mpx, native_socket fd, std::shared_ptr<guarded_connection> c)
    : caf::io::scribe(caf::io::network::conn_hdl_from_socket(fd)), stream_(mpx, fd, c) {
    c->request_write = [this] { stream_.force_empty_write(this); };
  }

  ~guarded_scribe() override = default;

  void configure_read(caf::io::receive_policy::config config) override {
    stream_.configure_read(config);
    if (!launched_)
      launch();
  }
  void ack_writes(bool enable) override { stream_.ack_writes(enable); }
  std::vector<char>& wr_buf() override { return stream_.wr_buf(); }
  std::vector<char>& rd_buf() override { return stream_.rd_buf(); }
  void graceful_shutdown() override {
    stream_.graceful_shutdown();
    detach(&stream_.backend(), false);
  }
  void flush() override { stream_.flush(this); }
  std::string addr() const override {
    auto x = caf::io::network::remote_addr_of_fd(stream_.fd());
    return x ? *x : std::string{};
  }
  uint16_t port() const override {
    auto x = caf::io::network::remote_port_of_fd(stream_.fd());
    return x ? *x : 0;
  }
  void launch() {
    launched_ = true;
    stream_.start(this);
    // A write event right away: our hello (and TLS's first flight) goes
    // out without waiting for CAF to write something.
    stream_.force_empty_write(this);
  }
  void add_to_loop() override { stream_.activate(this); }
  void remove_from_loop() override { stream_.passivate(); }

private:
  bool launched_ = false;
  caf::io::network::stream_impl<guarded_policy> stream_;
};

caf::openssl::session_ptr make_tls(caf::actor_system& sys, const transport_settings& s, native_socket fd,
                                   bool accepted) {
  if (!s.tls())
    return nullptr;
  // CAF's OpenSSL module throws on a certificate or key it cannot load
  // (this runs on the network thread: uncaught, it would end the process).
  try {
    return caf::openssl::make_session(sys, fd, accepted);
  } catch (const std::exception& e) {
    warn_limited(std::string{"TLS cannot start: "} + e.what() + " (tls-certificate, tls-key, tls-ca)");
    return nullptr;
  }
}

/// Accepts connections on a published port: admits or refuses each one,
/// then hands CAF a guarded scribe.
class guarded_doorman : public caf::io::network::doorman_impl {
public:
  guarded_doorman(default_mpx& mpx, native_socket fd, transport_settings settings,
                  std::shared_ptr<connection_registry> registry)
    : caf::io::network::doorman_impl(mpx, fd), settings_(std::move(settings)), registry_(std::move(registry)) {}

  bool new_connection() override {
    if (detached())
      return false;
    auto& mpx = acceptor_.backend();
    auto fd = acceptor_.accepted_socket();
    caf::detail::socket_guard closer{fd};
    caf::io::network::nonblocking(fd, true);
    auto host = caf::io::network::remote_addr_of_fd(fd);
    auto port = caf::io::network::remote_port_of_fd(fd);
    std::string address = host ? *host : "?";
    std::string peer = address + ":" + std::to_string(port ? *port : 0);
    std::string why;
    if (!registry_->admit(address, why)) {
      warn_limited("refused the connection from " + peer + ": " + why);
      return false;
    }
    auto tls = make_tls(parent()->system(), settings_, fd, true);
    if (settings_.tls() && !tls) {
      registry_->release(address);
      warn_limited("refused the connection from " + peer + ": TLS failed to start");
      return false;
    }
    auto connection = std::make_shared<guarded_connection>(registry_, address, settings_,
                                                           auth_handshake::role::acceptor, peer, std::move(tls));
    registry_->expect_handshake(fd, connection);
    auto scribe = caf::make_counted<guarded_scribe>(mpx, fd, std::move(connection));
    closer.release();
    auto hdl = scribe->hdl();
    parent()->add_scribe(std::move(scribe));
    return doorman::new_connection(&mpx, hdl);
  }

private:
  transport_settings settings_;
  std::shared_ptr<connection_registry> registry_;
};

class guarded_middleman_actor : public caf::io::middleman_actor_impl {
public:
  guarded_middleman_actor(caf::actor_config& cfg, caf::actor default_broker, transport_settings settings)
    : caf::io::middleman_actor_impl(cfg, std::move(default_broker)), settings_(std::move(settings)),
      registry_(std::make_shared<connection_registry>(settings_)) {}

  const char* name() const override { return "gridvec::guarded_middleman_actor"; }

  behavior_type make_behavior() override {
    // It ends with CAF's own middleman actor, which the system kills at
    // shutdown (and the system waits for every detached actor).
    if (auto plain = system().middleman().actor_handle())
      link_to(plain);
    else
      quit(); // spawned while the system was shutting down
    return caf::io::middleman_actor_impl::make_behavior();
  }

protected:
  caf::expected<caf::io::scribe_ptr> connect(const std::string& host, uint16_t port) override {
    auto fd = caf::io::network::new_tcp_connection(host, port);
    if (!fd)
      return std::move(fd.error());
    caf::io::network::nonblocking(*fd, true);
    const std::string peer = host + ":" + std::to_string(port);
    {
      std::lock_guard<std::mutex> guard{registry_mutex};
      failures_by_endpoint.erase(peer);
    }
    auto tls = make_tls(system(), settings_, *fd, false);
    if (settings_.tls() && !tls) {
      caf::io::network::close_socket(*fd);
      record_failure(peer, "the TLS handshake with " + peer + " failed (certificates not trusted by each other?)");
      return caf::sec::cannot_connect_to_node;
    }
    // Outgoing connections are not capped: this process chose to make them.
    auto connection = std::make_shared<guarded_connection>(nullptr, "", settings_, auth_handshake::role::connector,
                                                           peer, std::move(tls));
    return caf::make_counted<guarded_scribe>(mpx(), *fd, std::move(connection));
  }

  caf::expected<caf::io::doorman_ptr> open(uint16_t port, const char* addr, bool reuse) override {
    auto fd = caf::io::network::new_tcp_acceptor_impl(port, addr, reuse);
    if (!fd)
      return std::move(fd.error());
    return caf::make_counted<guarded_doorman>(mpx(), *fd, settings_, registry_);
  }

private:
  default_mpx& mpx() { return static_cast<default_mpx&>(system().middleman().backend()); }

  transport_settings settings_;
  std::shared_ptr<connection_registry> registry_;
};

} // namespace

void use_transport(caf::actor_system_config& cfg, const transport_settings& settings) {
  if (settings.tls()) {
    cfg.load<caf::openssl::manager>();
    cfg.openssl_certificate = settings.tls_certificate;
    cfg.openssl_key = settings.tls_key;
    cfg.openssl_cafile = settings.tls_ca;
  }
  std::lock_guard<std::mutex> guard{registry_mutex};
  settings_by_config[&cfg] = settings;
}

transport_settings transport_of(const caf::actor_system& sys) {
  std::lock_guard<std::mutex> guard{registry_mutex};
  auto i = settings_by_config.find(&sys.config());
  if (i != settings_by_config.end())
    return i->second;
  transport_settings plain;
  plain.insecure = true;
  return plain;
}

caf::io::middleman_actor transport_actor(caf::actor_system& sys) {
  // Before the first connection: CAF's own decoders of byte buffers and
  // config values are not safe against a peer (bounded_decoders.hpp).
  harden_builtin_decoders(sys);
  auto settings = transport_of(sys);
  if (!settings.guarded())
    return sys.middleman().actor_handle();
  // The system's registry holds it while it runs (an actor that nothing
  // refers to ends) and lets it go when it ends: a detached actor's thread
  // stops only once the actor is destroyed, and the system's shutdown
  // waits for that thread.
  static const auto key = caf::atom("GvTranspor");
  std::lock_guard<std::mutex> guard{registry_mutex};
  if (auto existing = sys.registry().get(key))
    return caf::actor_cast<caf::io::middleman_actor>(existing);
  if (!sys.middleman().actor_handle())
    return {};
  auto broker = sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  // Detached, as CAF's own: connect() blocks in the OS until the peer answers.
  auto actor = sys.spawn<guarded_middleman_actor, caf::detached + caf::hidden>(std::move(broker), settings);
  sys.registry().put(key, caf::actor_cast<caf::strong_actor_ptr>(actor));
  actor->attach_functor([&sys] { sys.registry().erase(key); });
  return actor;
}

expected<uint16_t> publish(caf::actor_system& sys, caf::strong_actor_ptr whom, const std::string& host, uint16_t port) {
  auto transport = transport_actor(sys);
  if (!transport)
    return failure{"the actor system is shutting down"};
  caf::scoped_actor self{sys};
  std::optional<expected<uint16_t>> out;
  self
    ->request(transport, caf::infinite, caf::publish_atom::value, port, std::move(whom), std::set<std::string>{}, host,
              true)
    .receive([&](uint16_t actual) { out.emplace(actual); },
             [&](caf::error& err) { out.emplace(failure{sys.render(err)}); });
  return std::move(*out);
}

std::string last_handshake_failure(const std::string& host, uint16_t port) {
  std::lock_guard<std::mutex> guard{registry_mutex};
  auto i = failures_by_endpoint.find(host + ":" + std::to_string(port));
  return i == failures_by_endpoint.end() ? std::string{} : i->second;
}

} // namespace gridvec::net
