#include <gridvec/roles/lbfgs_learner.hpp>

#include <spdlog/spdlog.h>

#include <map>
#include <optional>

#include "actors/connect.hpp"
#include "src/lbfgs/learner_share.hpp"

namespace gridvec {

namespace {

const char* pass_name(lbfgs_pass what) {
  switch (what) {
    case lbfgs_pass::line: return "line-search";
    case lbfgs_pass::gradient: return "gradient";
    case lbfgs_pass::correct: return "accuracy";
  }
  return "data";
}

} // namespace

struct node_learners::state {
  // A learner's pass is at most two calls to the table shards (a fetch, an
  // increment), each given `timeout`: it is given that, and some slack, to
  // answer, so that a shard's loss reaches the driver as the learner's
  // error line naming that shard.
  state(caf::actor_system& sys, std::chrono::milliseconds timeout)
    : sys(sys), self(sys), timeout(timeout), answer_timeout(2 * timeout + std::chrono::seconds(10)) {}

  struct learner {
    lbfgs_learner_actor actor;
    std::string node;
    std::string gone; // why it is lost; empty while it lives
  };
  // A standby learner node not used up yet: it gives a new learner to each
  // lost one, up to its `learners`.
  struct spare {
    std::string name, host;
    uint16_t port = 0;
    uint32_t left = 0;
  };
  caf::actor_system& sys;
  caf::scoped_actor self;
  std::chrono::milliseconds timeout, answer_timeout, connect_timeout{0};
  std::vector<learner> learners;
  std::vector<spare> spares;
  std::vector<uint32_t> owner; // share k's learner
  std::string path;
  uint32_t features = 0;
  uint64_t examples = 0;
  std::vector<std::string> hosts;
  std::vector<uint16_t> ports;
  std::string table;
  uint64_t next_tag = 1;
  double requests = 0, bytes = 0;

  std::string name(uint32_t l) const { return "learner " + std::to_string(l) + " on node " + learners[l].node; }

  void lost(uint32_t l, const caf::error& reason) {
    if (!learners[l].gone.empty())
      return;
    learners[l].gone = reason == caf::exit_reason::remote_link_unreachable ? "its node cannot be reached"
                       : reason                                            ? error_text(reason)
                                                                           : "it stopped";
  }

  void on_down(const caf::down_msg& down) {
    for (uint32_t l = 0; l < learners.size(); ++l)
      if (learners[l].actor.address() == down.source)
        lost(l, down.reason);
  }

  /// Takes note of the learners reported down since the last look.
  void note_downs() {
    for (bool more = true; more;)
      self->receive([&](caf::down_msg& down) { on_down(down); },
                    caf::after(std::chrono::seconds(0)) >> [&] { more = false; });
  }

  /// What one request waits for: its learner and what it asked.
  struct pending {
    uint32_t learner = 0;
    uint32_t share = 0;
  };

  /// Waits until every request of `out` is answered or its learner is lost.
  /// Answers go to `done(request, values)`; the first error line (a
  /// learner's own, or none within the timeout) is the result. Every live
  /// learner's request is waited for even after an error, so that nothing
  /// of this round still runs when the caller goes on.
  status wait(std::map<uint64_t, pending>& out, const std::function<void(const pending&, std::vector<double>&)>& done) {
    std::optional<std::string> error;
    auto drop_lost = [&] {
      for (auto i = out.begin(); i != out.end();)
        i = learners[i->second.learner].gone.empty() ? std::next(i) : out.erase(i);
    };
    drop_lost();
    bool timed_out = false;
    self->receive_while([&] { return !out.empty() && !timed_out; })(
      [&](lbfgs_atom, uint64_t tag, std::vector<double>& values, std::string& why) {
        auto i = out.find(tag);
        if (i == out.end())
          return; // from a round given up on
        if (!why.empty())
          error = error.value_or(name(i->second.learner) + ": " + why);
        else
          done(i->second, values);
        out.erase(i);
      },
      [&](caf::down_msg& down) {
        on_down(down);
        drop_lost();
      },
      caf::after(answer_timeout) >> [&] { timed_out = true; });
    if (timed_out) {
      const auto& p = out.begin()->second;
      return failure{name(p.learner) + ": no answer within " + std::to_string(answer_timeout.count()) + " ms"};
    }
    if (error)
      return failure{*error};
    return {};
  }

  /// Learner l reads share k.
  void send_load(std::map<uint64_t, pending>& out, uint32_t l, uint32_t k) {
    const auto r = share_of(examples, k, static_cast<uint32_t>(owner.size()));
    const uint64_t tag = next_tag++;
    self->send(learners[l].actor, load_atom::value, tag, k, path, features, r.begin, r.end);
    out[tag] = {l, k};
  }

  status check_examples(const pending& p, const std::vector<double>& values) {
    if (values.size() != 1 || values[0] != double(examples))
      return failure{name(p.learner) + " reads " +
                     (values.empty() ? std::string("no") : std::to_string(uint64_t(values[0]))) + " examples in " +
                     path + ", this process " + std::to_string(examples) + ": the nodes must see the same file"};
    return {};
  }

  /// Loads the shares of `moved` at their owners; a learner lost meanwhile
  /// has its shares moved again.
  status load_shares(std::vector<uint32_t> moved) {
    while (!moved.empty()) {
      std::map<uint64_t, pending> out;
      for (uint32_t k : moved)
        send_load(out, owner[k], k);
      status bad;
      auto ok = wait(out, [&](const pending& p, std::vector<double>& values) {
        if (bad)
          bad = check_examples(p, values);
      });
      if (!ok)
        return ok;
      if (!bad)
        return bad;
      moved = reassign();
      if (alive() == 0)
        return failure{"every learner node is lost"};
    }
    return {};
  }

  uint32_t alive() const {
    uint32_t n = 0;
    for (auto& l : learners)
      n += l.gone.empty() ? 1 : 0;
    return n;
  }

  /// A new learner on the next standby learner node, connected to the
  /// table; none once every standby is used up (or cannot be reached).
  std::optional<uint32_t> learner_from_spare() {
    while (!spares.empty()) {
      spare& s = spares.front();
      auto got =
        ask_node<lbfgs_learner_actor>(sys, s.host, s.port, connect_timeout, lbfgs_atom::value, "L-BFGS learner");
      const std::string name = s.name;
      if (!got || --s.left == 0)
        spares.erase(spares.begin());
      if (!got) {
        spdlog::warn("standby learner node {} cannot replace a lost learner: {}", name, got.error());
        continue;
      }
      self->monitor(*got);
      learners.push_back({*got, name, {}});
      const uint32_t l = static_cast<uint32_t>(learners.size() - 1);
      if (!table.empty())
        if (auto ok = connect_tables({l}); !ok) {
          spdlog::warn("standby learner node {} cannot replace a lost learner: {}", name, ok.error());
          learners[l].gone = ok.error();
          continue;
        }
      return l;
    }
    return std::nullopt;
  }

  /// Each lost learner that still holds shares hands them all to a new
  /// learner on a standby learner node, while there are any: the cluster
  /// keeps its number of learners, and no live learner takes on twice its
  /// work.
  void replace_from_spares() {
    for (uint32_t l = 0; l < learners.size() && !spares.empty(); ++l) {
      if (learners[l].gone.empty())
        continue;
      std::vector<uint32_t> held;
      for (uint32_t k = 0; k < owner.size(); ++k)
        if (owner[k] == l)
          held.push_back(k);
      if (held.empty())
        continue;
      auto fresh = learner_from_spare();
      if (!fresh)
        return;
      for (uint32_t k : held) {
        spdlog::info("{} is lost ({}); share {} goes to {}, a standby", name(l), learners[l].gone, k, name(*fresh));
        owner[k] = *fresh;
      }
    }
  }

  /// Gives the shares of lost learners to standby learners, else to live
  /// ones; the shares moved.
  std::vector<uint32_t> reassign() {
    const std::vector<uint32_t> before = owner;
    replace_from_spares();
    std::vector<bool> live(learners.size());
    for (size_t l = 0; l < learners.size(); ++l)
      live[l] = learners[l].gone.empty();
    auto next = reassign_shares(owner, live);
    std::vector<uint32_t> moved;
    if (!next.empty()) {
      for (uint32_t k = 0; k < owner.size(); ++k)
        if (next[k] != owner[k])
          spdlog::info("{} is lost ({}); share {} goes to {}", name(owner[k]), learners[owner[k]].gone, k,
                       name(next[k]));
      owner = std::move(next);
    }
    for (uint32_t k = 0; k < owner.size(); ++k)
      if (owner[k] != before[k])
        moved.push_back(k);
    return moved;
  }

  status connect_tables(const std::vector<uint32_t>& which) {
    std::map<uint64_t, pending> out;
    for (uint32_t l : which) {
      if (!learners[l].gone.empty())
        continue;
      const uint64_t tag = next_tag++;
      self->send(learners[l].actor, table_atom::value, tag, hosts, ports, table,
                 static_cast<uint32_t>(timeout.count()));
      out[tag] = {l, 0};
    }
    return wait(out, [](const pending&, std::vector<double>&) {});
  }
};

node_learners::node_learners(std::unique_ptr<state> s) : s_(std::move(s)) {}

node_learners::~node_learners() = default; // the scoped actor ends; the learners see their driver go and stop

expected<std::unique_ptr<node_learners>> node_learners::connect(caf::actor_system& sys, const cluster_config& cluster,
                                                                std::chrono::milliseconds timeout) {
  auto s = std::make_unique<state>(sys, timeout);
  const auto connect_timeout = std::chrono::milliseconds(cluster.connect_timeout_ms);
  s->connect_timeout = connect_timeout;
  for (const node_spec* node : cluster.with_role(node_role::learner)) {
    if (node->standby) { // asked only when a learner is lost
      s->spares.push_back({node->name, node->host, node->port, node->learners});
      continue;
    }
    for (uint32_t i = 0; i < node->learners; ++i) {
      auto got = ask_node<lbfgs_learner_actor>(sys, node->host, node->port, connect_timeout, lbfgs_atom::value,
                                               "L-BFGS learner");
      if (!got)
        return failure{"learner node " + node->name + " (" + cluster.source + "): " + got.error()};
      s->self->monitor(*got);
      s->learners.push_back({*got, node->name, {}});
    }
  }
  if (s->learners.empty())
    return failure{cluster.source + " has no learner node"};
  return std::unique_ptr<node_learners>(new node_learners(std::move(s)));
}

uint32_t node_learners::size() const { return static_cast<uint32_t>(s_->learners.size()); }
void node_learners::tokens_above(uint64_t fence) { s_->next_tag = std::max(s_->next_tag, fence + 1); }
uint32_t node_learners::alive() const { return s_->alive(); }
double node_learners::requests() const { return s_->requests; }
double node_learners::bytes() const { return s_->bytes; }
uint32_t node_learners::replacements() const { return size() - alive(); }

status node_learners::use_table(const std::vector<const node_spec*>& shard_nodes, const std::string& table) {
  auto& s = *s_;
  s.hosts.clear();
  s.ports.clear();
  for (const node_spec* n : shard_nodes) {
    s.hosts.push_back(n->host);
    s.ports.push_back(n->port);
  }
  s.table = table;
  std::vector<uint32_t> all;
  for (uint32_t l = 0; l < s.learners.size(); ++l)
    all.push_back(l);
  return s.connect_tables(all);
}

status node_learners::load(const std::string& path, uint32_t features, uint64_t examples) {
  auto& s = *s_;
  s.path = path;
  s.features = features;
  s.examples = examples;
  const uint32_t count = static_cast<uint32_t>(std::min<uint64_t>(s.learners.size(), examples));
  s.owner.clear();
  std::vector<uint32_t> all;
  for (uint32_t k = 0; k < count; ++k) {
    s.owner.push_back(k);
    all.push_back(k);
  }
  s.note_downs();
  s.reassign();
  if (s.alive() == 0)
    return failure{"every learner node is lost"};
  return s.load_shares(all);
}

expected<std::vector<std::vector<double>>> node_learners::pass(lbfgs_pass what, std::span<const double> steps,
                                                               const std::function<status(uint64_t)>& before_redo) {
  auto& s = *s_;
  const std::vector<double> step_list(steps.begin(), steps.end());
  for (;;) {
    s.note_downs();
    std::vector<std::vector<double>> values(s.owner.size());
    std::map<uint64_t, state::pending> out;
    if (s.alive() < s.learners.size()) {
      // A learner lost between passes: its shares move before the pass.
      auto moved = s.reassign();
      if (s.alive() == 0)
        return failure{"every learner node is lost"};
      if (auto ok = s.load_shares(moved); !ok)
        return failure{ok.error()};
    }
    for (uint32_t k = 0; k < s.owner.size(); ++k) {
      const uint64_t tag = s.next_tag++;
      s.self->send(s.learners[s.owner[k]].actor, lbfgs_atom::value, tag, static_cast<uint8_t>(what), k, step_list);
      out[tag] = {s.owner[k], k};
    }
    const uint32_t alive_before = s.alive();
    auto ok = s.wait(out, [&](const state::pending& p, std::vector<double>& v) {
      if (v.size() >= 2) {
        s.requests += v[0];
        s.bytes += v[1];
        values[p.share].assign(v.begin() + 2, v.end());
      }
    });
    if (!ok)
      return failure{ok.error()};
    if (s.alive() == alive_before) {
      for (uint32_t k = 0; k < values.size(); ++k)
        if (values[k].empty())
          return failure{"share " + std::to_string(k) + " of the " + pass_name(what) + " pass got no values"};
      return values;
    }
    // A learner was lost during the pass: every other learner has finished
    // its part of it (wait() waited for them), so nothing of it is still
    // being written. Its shares go to the live learners, the driver resets
    // what the pass wrote, and the whole pass is done again.
    const auto started = std::chrono::steady_clock::now();
    auto moved = s.reassign();
    if (s.alive() == 0)
      return failure{"every learner node is lost during a " + std::string(pass_name(what)) + " pass"};
    if (auto loaded = s.load_shares(moved); !loaded)
      return failure{loaded.error()};
    // Every request of the attempts so far has a tag below next_tag; the
    // redo's will not.
    if (before_redo)
      if (auto reset = before_redo(s.next_tag); !reset)
        return failure{reset.error()};
    spdlog::info("learner replaced: {} share{} moved in {:.1f} s; the {} pass is done again", moved.size(),
                 moved.size() == 1 ? "" : "s",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), pass_name(what));
  }
}

} // namespace gridvec
