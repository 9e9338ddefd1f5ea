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
#include <caf/binary_serializer.hpp>
#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "actors/net/bounded_decoders.hpp"
#include "actors/net/limited_log.hpp"
#include "src/net/client_gate.hpp"
#include "src/net/frame_guard.hpp"
#include "src/net/session_cipher.hpp"
#include <gridvec/protocol.hpp>

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

// --- who clients may reach -------------------------------------------------

// Per actor system (a process may run several, tests do): the actors that
// clients may message (src/net/client_gate.hpp).
struct client_exposure {
  std::map<uint64_t, client_access::level> actors;
};
std::map<const caf::actor_system*, client_exposure> exposure_by_system;

// The requests a client may send to a node's published actor, as CAF
// serializes them: an empty forwarding stack and the message.
const std::vector<std::vector<uint8_t>>& entry_payloads(caf::actor_system& sys) {
  static std::vector<std::vector<uint8_t>> payloads;
  static std::once_flag once;
  std::call_once(once, [&] {
    for (auto msg : {caf::make_message(controller_atom::value), caf::make_message(tables_atom::value),
                     caf::make_message(lbfgs_atom::value)}) {
      std::vector<char> buf;
      caf::binary_serializer sink{sys, buf};
      std::vector<caf::strong_actor_ptr> stack;
      if (auto err = sink(stack, msg))
        throw std::runtime_error("cannot serialize a client request: " + sys.render(err));
      payloads.emplace_back(buf.begin(), buf.end());
    }
  });
  return payloads;
}

// The one message CAF sends to a named actor of every peer it meets: its
// spawn server's "info" (basp_broker_state::learned_new_node, CAF 0.17).
const std::vector<std::vector<uint8_t>>& spawn_info_payload(caf::actor_system& sys) {
  static std::vector<std::vector<uint8_t>> payloads;
  static std::once_flag once;
  std::call_once(once, [&] {
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    std::vector<caf::strong_actor_ptr> stack;
    auto msg = caf::make_message(caf::sys_atom::value, caf::get_atom::value, "info");
    if (auto err = sink(stack, msg))
      throw std::runtime_error("cannot serialize CAF's info request: " + sys.render(err));
    payloads.emplace_back(buf.begin(), buf.end());
  });
  return payloads;
}

client_access access_of(caf::actor_system& sys, uint64_t id, bool named) {
  if (named) {
    client_access a;
    if (id == static_cast<uint64_t>(caf::atom("SpawnServ"))) {
      a.what = client_access::level::listed_payloads;
      a.payloads = &spawn_info_payload(sys);
    }
    return a;
  }
  std::lock_guard<std::mutex> guard{registry_mutex};
  auto& known = exposure_by_system[&sys].actors;
  auto i = known.find(id);
  if (i == known.end())
    return {};
  client_access a;
  a.what = i->second;
  if (a.what == client_access::level::listed_payloads)
    a.payloads = &entry_payloads(sys);
  return a;
}

// --- the caps on connections --------------------------------------------------

/// Counts a node's incoming connections in two pools: those still in their
/// handshake (max-handshakes, and per address) and those that finished it
/// (max-connections, and per address). A timer thread closes a handshake
/// that is overdue, whether or not anything else happens. It watches each
/// pending socket through a duplicate of its descriptor, so that it never
/// shuts a descriptor number that the network thread has closed and
/// reused. Used from the network thread, the middleman actor's thread and
/// its own, hence the mutex.
class connection_registry {
public:
  explicit connection_registry(const transport_settings& s) : settings_(s), timer_([this] { run_timer(); }) {}

  ~connection_registry() {
    {
      std::lock_guard<std::mutex> guard{mutex_};
      stopping_ = true;
    }
    wake_.notify_all();
    timer_.join();
    for (auto& [id, p] : pending_)
      ::close(p.watch_fd);
  }

  /// Counts a new connection from `address` as pending its handshake, or
  /// says why it is refused. Returns its ticket (0: refused).
  uint64_t admit(const std::string& address, native_socket fd, std::string& why) {
    std::lock_guard<std::mutex> guard{mutex_};
    if (pending_per_address_[address] >= settings_.max_handshakes_per_address) {
      why = "too many connections in their handshake from " + address + " (" +
            std::to_string(pending_per_address_[address]) + ", max-handshakes-per-address)";
      return 0;
    }
    if (pending_.size() >= settings_.max_handshakes) {
      // The pool is full (from many addresses): the oldest handshake makes
      // way, so that a flood cannot keep a quick, honest one out.
      auto oldest = pending_.begin();
      for (auto i = pending_.begin(); i != pending_.end(); ++i)
        if (i->second.deadline < oldest->second.deadline)
          oldest = i;
      evicted_ += 1;
      drop(oldest, true);
    }
    int watch = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (watch < 0) {
      why = std::string{"cannot watch its handshake: "} + std::strerror(errno);
      return 0;
    }
    uint64_t ticket = ++last_ticket_;
    pending_[ticket] = {watch, address, clock_type::now() + std::chrono::milliseconds(settings_.handshake_timeout_ms)};
    ++pending_per_address_[address];
    wake_.notify_all();
    return ticket;
  }

  /// The connection `ticket` finished its handshake: it moves to the
  /// authenticated pool, or is refused (false, `why`) when that is full.
  bool authenticated(uint64_t ticket, const std::string& address, std::string& why) {
    std::lock_guard<std::mutex> guard{mutex_};
    if (auto i = pending_.find(ticket); i != pending_.end())
      drop(i, false);
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

  /// The connection `ticket` is gone.
  void release(uint64_t ticket, const std::string& address, bool counted) {
    std::lock_guard<std::mutex> guard{mutex_};
    if (auto i = pending_.find(ticket); i != pending_.end())
      drop(i, false);
    if (!counted)
      return;
    if (total_ > 0)
      --total_;
    auto i = per_address_.find(address);
    if (i != per_address_.end() && --i->second == 0)
      per_address_.erase(i);
  }

private:
  struct pending_handshake {
    int watch_fd;
    std::string address;
    clock_type::time_point deadline;
  };
  using pending_map = std::map<uint64_t, pending_handshake>;

  // Ends a pending handshake's watch; with `shut`, shuts its socket too
  // (the network thread then sees it closed). Under the mutex.
  void drop(pending_map::iterator i, bool shut) {
    if (shut)
      ::shutdown(i->second.watch_fd, SHUT_RDWR);
    ::close(i->second.watch_fd);
    auto a = pending_per_address_.find(i->second.address);
    if (a != pending_per_address_.end() && --a->second == 0)
      pending_per_address_.erase(a);
    pending_.erase(i);
  }

  void run_timer() {
    std::unique_lock<std::mutex> lock{mutex_};
    while (!stopping_) {
      auto now = clock_type::now();
      auto next = now + std::chrono::seconds(1);
      size_t overdue = 0;
      for (auto i = pending_.begin(); i != pending_.end();) {
        if (i->second.deadline <= now) {
          auto gone = i++;
          // Shutting the socket wakes the network thread, which sees it
          // closed and drops the connection as usual.
          drop(gone, true);
          ++overdue;
        } else {
          next = std::min(next, i->second.deadline);
          ++i;
        }
      }
      if (overdue > 0 || evicted_ > 0) {
        auto evicted = evicted_;
        evicted_ = 0;
        lock.unlock();
        if (overdue > 0)
          warn_limited("closed " + std::to_string(overdue) +
                       " connection(s) that did not finish the handshake within " +
                       std::to_string(settings_.handshake_timeout_ms) + " ms");
        if (evicted > 0)
          warn_limited("closed " + std::to_string(evicted) +
                       " connection(s) still in their handshake to make room (max-handshakes)");
        lock.lock();
        continue;
      }
      wake_.wait_until(lock, next);
    }
  }

  transport_settings settings_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  uint64_t last_ticket_ = 0;
  uint32_t evicted_ = 0;
  pending_map pending_;
  std::map<std::string, uint32_t> pending_per_address_;
  uint32_t total_ = 0;
  std::map<std::string, uint32_t> per_address_;
  std::thread timer_; // last: it starts once everything above exists
};

// --- one connection -----------------------------------------------------------

/// The state of one connection under CAF's stream: the handshake; then,
/// without TLS, CAF's bytes sealed into records under the handshake's
/// session keys (src/net/session_cipher.hpp); and the frame guard (and for
/// a client, the client gate) on everything CAF reads. Bytes that CAF
/// writes before the handshake is done are held back (CAF's server side
/// greets a new connection at once; that greeting must not reach an
/// unproven peer).
class guarded_connection {
public:
  struct incoming {
    std::shared_ptr<connection_registry> registry;
    uint64_t ticket = 0;
    std::string address; // the address the registry counts it under
    caf::actor_system* system = nullptr;
  };

  guarded_connection(incoming in, const transport_settings& settings, auth_handshake::role role, std::string peer,
                     native_socket fd, caf::openssl::session_ptr tls)
    : in_(std::move(in)), role_(role), peer_(std::move(peer)), channel_(std::move(tls)),
      guard_(settings.max_message_bytes) {
    if (settings.keys) {
      auto local = socket_endpoint(fd, true), remote = socket_endpoint(fd, false);
      bool connecting = role == auth_handshake::role::connector;
      handshake_.emplace(role, *settings.keys, settings.kind, connecting ? local : remote, connecting ? remote : local);
      out_ = handshake_->hello();
    } else {
      // TLS with mutual verification is the only proof: every holder of a
      // certificate is a node. An incoming connection still counts as
      // pending until its first bytes come through TLS.
      open_ = true;
      tls_pending_ = role == auth_handshake::role::acceptor;
    }
  }

  ~guarded_connection() {
    if (in_.registry)
      in_.registry->release(in_.ticket, in_.address, counted_);
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
    auto* p = static_cast<uint8_t*>(buf);
    rw_state st = rw_state::success;
    if (cipher_) {
      if (plain_at_ == plain_.size() && !eof_) {
        plain_.clear();
        plain_at_ = 0;
        uint8_t in[session_cipher::max_record + session_cipher::overhead];
        size_t n = 0;
        if (channel_.read(n, fd, in, sizeof in) == rw_state::failure)
          eof_ = true;
        else if (n > 0 && !cipher_->open(in, n, plain_)) {
          fail("closed the connection with " + peer_ + ": " + cipher_->failure());
          return rw_state::failure;
        }
      }
      if (plain_at_ == plain_.size())
        return eof_ ? rw_state::failure : rw_state::success;
      result = std::min(len, plain_.size() - plain_at_);
      std::memcpy(p, plain_.data() + plain_at_, result);
      plain_at_ += result;
    } else {
      st = channel_.read(result, fd, buf, len);
      if (st == rw_state::success && result > 0 && tls_pending_) {
        tls_pending_ = false; // TLS is through and the peer speaks
        if (!admit_authenticated())
          return rw_state::failure;
      }
    }
    if (st == rw_state::success && result > 0) {
      if (!guard_.inspect(p, result)) {
        fail("closed the connection with " + peer_ + ": " + guard_.failure());
        result = 0;
        return rw_state::failure;
      }
      if (gate_ && !gate_->inspect(p, result)) {
        fail("closed the connection with " + peer_ + ": " + gate_->failure());
        result = 0;
        return rw_state::failure;
      }
    }
    return st;
  }

  rw_state write_some(size_t& result, native_socket fd, const void* buf, size_t len) {
    result = 0;
    if (failed_ || !flush(fd))
      return rw_state::failure;
    if (len == 0) // a write event CAF forced for us: keep it only for our own bytes
      return open_ && !out_.empty() ? rw_state::success : rw_state::indeterminate;
    auto p = static_cast<const uint8_t*>(buf);
    if (!open_) {
      // Held back until the peer has proven the secret; CAF is told they
      // went out, so it does not keep asking (open() sends them).
      held_.insert(held_.end(), p, p + len);
      result = len;
      return rw_state::success;
    }
    if (!cipher_) {
      if (!out_.empty()) // the socket is full: again at the next write event
        return rw_state::success;
      auto st = channel_.write(result, fd, buf, len);
      if (gate_ && st == rw_state::success)
        gate_->note_outgoing(p, result);
      return st;
    }
    // The first `sealed_` bytes of CAF's buffer are already records in
    // out_: CAF hears they are written once the records are out, so that
    // its write events go on until then. CAF's buffer stays put meanwhile.
    if (sealed_ == 0 && out_.empty()) {
      sealed_ = std::min(len, size_t{256} << 10);
      if (gate_)
        gate_->note_outgoing(p, sealed_);
      cipher_->seal(p, sealed_, out_);
      if (!flush(fd))
        return rw_state::failure;
    }
    if (sealed_ > 0 && out_.empty()) {
      result = sealed_;
      sealed_ = 0;
    }
    return rw_state::success;
  }

  bool must_read_more(native_socket fd, size_t threshold) {
    return plain_at_ < plain_.size() || channel_.must_read_more(fd, threshold);
  }

private:
  // Reads the peer's side of the handshake (no more bytes than it needs,
  // so none of what follows is taken) and sends ours.
  bool advance_handshake(native_socket fd) {
    if (!flush(fd))
      return false;
    uint8_t in[auth_handshake::acceptor_hello_size + auth_handshake::proof_size];
    while (!open_) {
      size_t n = 0;
      auto st = channel_.read(n, fd, in, std::min(sizeof in, handshake_->wanted()));
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
      handshake_->feed(in, n, out_);
      if (handshake_->current() == auth_handshake::state::failed) {
        // What the handshake still sends goes out (best effort): the other
        // end then logs what was wrong instead of a connection closed
        // mid-handshake.
        flush(fd);
        fail(role_ == auth_handshake::role::acceptor
               ? "refused the connection from " + peer_ + ": " + handshake_->failure()
               : "the node at " + peer_ + " failed the handshake: " + handshake_->failure());
        return false;
      }
      if (handshake_->current() == auth_handshake::state::done && !open())
        return false;
    }
    if (!flush(fd))
      return false;
    if (!out_.empty() && request_write)
      request_write();
    return true;
  }

  // The handshake is done: the session begins, CAF's held bytes go out.
  bool open() {
    open_ = true;
    if (role_ == auth_handshake::role::acceptor && handshake_->connector_kind() == peer_kind::client) {
      auto* sys = in_.system;
      gate_.emplace([sys](uint64_t id, bool named) { return access_of(*sys, id, named); });
    }
    if (!admit_authenticated())
      return false;
    if (!channel_.tls())
      cipher_.emplace(handshake_->send_key(), handshake_->receive_key());
    if (gate_)
      gate_->note_outgoing(held_.data(), held_.size());
    if (cipher_)
      cipher_->seal(held_.data(), held_.size(), out_);
    else
      out_.insert(out_.end(), held_.begin(), held_.end());
    held_.clear();
    held_.shrink_to_fit();
    return true;
  }

  // An incoming connection leaves the handshake pool for the pool of
  // authenticated ones, if that has room.
  bool admit_authenticated() {
    if (!in_.registry)
      return true;
    std::string why;
    if (!in_.registry->authenticated(in_.ticket, in_.address, why)) {
      fail("refused the connection from " + peer_ + ": " + why);
      return false;
    }
    counted_ = true;
    return true;
  }

  // Sends what waits in out_ (the handshake, then records or CAF's bytes),
  // as far as the socket takes it.
  bool flush(native_socket fd) {
    while (!out_.empty()) {
      size_t n = 0;
      if (channel_.write(n, fd, out_.data(), out_.size()) == rw_state::failure) {
        // An outgoing connection records no reason here: CAF may have
        // dropped it itself (its heartbeat check can drop a connection
        // still in its handshake), and connect_to_node retries those.
        if (role_ == auth_handshake::role::acceptor || (channel_.tls() && received_ == 0))
          fail(channel_.tls() && received_ == 0 ? tls_failure() : "lost the connection with " + peer_);
        failed_ = true;
        return false;
      }
      if (n == 0)
        return true;
      out_.erase(out_.begin(), out_.begin() + static_cast<long>(n));
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

  incoming in_; // empty for outgoing connections
  bool counted_ = false;
  auth_handshake::role role_;
  std::string peer_; // host:port, for messages
  channel channel_;
  std::optional<auth_handshake> handshake_;
  std::optional<session_cipher> cipher_;
  std::optional<client_gate> gate_;
  frame_guard guard_;
  std::vector<uint8_t> out_;   // bytes for the wire not yet sent
  std::vector<uint8_t> held_;  // CAF's bytes from before the handshake ended
  std::vector<uint8_t> plain_; // opened records not yet read by CAF
  size_t plain_at_ = 0;
  size_t sealed_ = 0;   // CAF's bytes already sealed into out_
  size_t received_ = 0; // handshake bytes from the peer
  bool open_ = false;
  bool tls_pending_ = false;
  bool eof_ = false;
  bool failed_ = false;
};

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
    auto ticket = registry_->admit(address, fd, why);
    if (ticket == 0) {
      warn_limited("refused the connection from " + peer + ": " + why);
      return false;
    }
    auto tls = make_tls(parent()->system(), settings_, fd, true);
    if (settings_.tls() && !tls) {
      registry_->release(ticket, address, false);
      warn_limited("refused the connection from " + peer + ": TLS failed to start");
      return false;
    }
    guarded_connection::incoming in{registry_, ticket, address, &parent()->system()};
    auto connection = std::make_shared<guarded_connection>(std::move(in), settings_, auth_handshake::role::acceptor,
                                                           peer, fd, std::move(tls));
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
    auto connection = std::make_shared<guarded_connection>(guarded_connection::incoming{}, settings_,
                                                           auth_handshake::role::connector, peer, *fd, std::move(tls));
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

transport_settings transport_of(const caf::actor_system& sys) { return transport_of_config(sys.config()); }

transport_settings transport_of_config(const caf::actor_system_config& cfg) {
  std::lock_guard<std::mutex> guard{registry_mutex};
  auto i = settings_by_config.find(&cfg);
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

void expose_to_clients(caf::actor_system& sys, uint64_t actor_id) {
  std::lock_guard<std::mutex> guard{registry_mutex};
  exposure_by_system[&sys].actors[actor_id] = client_access::level::any_request;
}

expected<uint16_t> publish(caf::actor_system& sys, caf::strong_actor_ptr whom, const std::string& host, uint16_t port) {
  if (whom) {
    entry_payloads(sys); // made once, before a client can ask
    spawn_info_payload(sys);
    std::lock_guard<std::mutex> guard{registry_mutex};
    exposure_by_system[&sys].actors[whom->id()] = client_access::level::listed_payloads;
  }
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
