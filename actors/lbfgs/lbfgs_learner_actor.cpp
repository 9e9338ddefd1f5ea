#include <gridvec/roles/lbfgs_learner.hpp>

#include <spdlog/spdlog.h>

#include <cmath>
#include <map>
#include <optional>

#include <gridvec/core/table_spec.hpp>
#include <gridvec/tables/client.hpp>

#include "actors/connect.hpp"
#include "actors/lbfgs/table_model.hpp"
#include "src/lbfgs/learner_share.hpp"
#include "src/lbfgs/svm_data.hpp"

namespace gridvec {

namespace {

// Bounds on what a request may ask, checked before anything is done.
constexpr size_t max_shards = 1024;
constexpr size_t max_name = 255;
constexpr size_t max_path = 4096;
constexpr uint32_t max_shares = 4096;
constexpr size_t max_steps = 32;
constexpr uint32_t max_timeout_ms = 86'400'000;

struct learner_state {
  cluster_config cluster;
  caf::actor_addr driver; // the only process it answers
  std::unique_ptr<table_client> client;
  std::optional<table> model;
  std::map<uint32_t, logistic_part> shares;
  table_client::traffic_count reported; // the client's traffic already sent with an answer
  static inline const char* name = "lbfgs-learner";
};

using learner_ptr = lbfgs_learner_actor::stateful_pointer<learner_state>;

// Whether the sender is this learner's driver; the first sender becomes it.
bool from_driver(learner_ptr self) {
  auto& st = self->state;
  auto sender = self->current_sender();
  if (!sender)
    return false;
  if (!st.driver) {
    st.driver = sender->address();
    self->monitor(caf::actor_cast<caf::actor>(sender));
  }
  return sender->address() == st.driver;
}

void answer(learner_ptr self, uint64_t tag, std::vector<double> values, std::string error = {}) {
  if (auto to = caf::actor_cast<caf::actor>(self->current_sender()))
    caf::anon_send(to, lbfgs_atom::value, tag, std::move(values), std::move(error));
}

std::string check_steps(const std::vector<double>& steps) {
  if (steps.size() > max_steps)
    return std::to_string(steps.size()) + " steps, more than " + std::to_string(max_steps);
  for (double s : steps)
    if (!std::isfinite(s))
      return "a step that is not a finite number";
  return {};
}

lbfgs_learner_actor::behavior_type learner_behavior(learner_ptr self, cluster_config cluster) {
  self->state.cluster = std::move(cluster);
  self->set_down_handler([self](const caf::down_msg& dm) {
    if (dm.source == self->state.driver)
      self->quit(); // the driver is gone: nothing here is of use any more
  });
  return {
    [self](table_atom, uint64_t tag, const std::vector<std::string>& hosts, const std::vector<uint16_t>& ports,
           const std::string& name, uint32_t timeout_ms) {
      if (!from_driver(self))
        return;
      auto& st = self->state;
      if (hosts.empty() || hosts.size() > max_shards || hosts.size() != ports.size() || name.empty() ||
          name.size() > max_name || timeout_ms == 0 || timeout_ms > max_timeout_ms)
        return answer(self, tag, {}, "lbfgs learner: a table request out of bounds");
      // Straight to each shard node (a shard handed on by the driver would
      // be reached through the driver's connection, which a client may not
      // route), and only to the cluster's own shard nodes.
      std::vector<table_shard_actor> shards;
      const auto connect_timeout = std::chrono::milliseconds(st.cluster.connect_timeout_ms);
      for (size_t i = 0; i < hosts.size(); ++i) {
        const node_spec* node = nullptr;
        for (const auto& n : st.cluster.nodes)
          if (n.host == hosts[i] && n.port == ports[i] && n.has(node_role::shard))
            node = &n;
        if (!node)
          return answer(self, tag, {},
                        hosts[i] + ":" + std::to_string(ports[i]) + " is no shard node of " + st.cluster.source);
        auto shard = ask_node<table_shard_actor>(self->system(), node->host, node->port, connect_timeout,
                                                 tables_atom::value, "table shard");
        if (!shard)
          return answer(self, tag, {}, "table shard node " + node->name + ": " + shard.error());
        shards.push_back(*shard);
      }
      st.model.reset();
      st.client = std::make_unique<table_client>(self->system(), shards, std::chrono::milliseconds(timeout_ms));
      st.reported = {};
      auto t = st.client->find(name);
      if (!t)
        return answer(self, tag, {}, t.error());
      if (t->spec().layout != table_layout::columns || !t->spec().dense || t->spec().rows < lbfgs_rows::count(1))
        return answer(self, tag, {}, "table " + name + " is not an L-BFGS model table");
      st.model.emplace(std::move(*t));
      answer(self, tag, {});
    },
    [self](load_atom, uint64_t tag, uint32_t share, const std::string& path, uint32_t features, uint64_t begin,
           uint64_t end) {
      if (!from_driver(self))
        return;
      auto& st = self->state;
      if (share >= max_shares || path.empty() || path.size() > max_path || features == 0 || features > max_vector_dim ||
          begin > end)
        return answer(self, tag, {}, "lbfgs learner: a share request out of bounds");
      if (st.shares.size() >= max_shares && !st.shares.count(share))
        return answer(self, tag, {}, "lbfgs learner: too many shares");
      // Opened under this node's allowed directories, as a corpus is.
      uint64_t n = 0;
      auto data = read_svm_range(path, features, begin, end, n);
      if (!data)
        return answer(self, tag, {}, data.error());
      if (end > n)
        return answer(self, tag, {},
                      path + " has " + std::to_string(n) + " examples here, not the " + std::to_string(end) +
                        " asked for: the nodes must see the same file");
      st.shares[share] = make_logistic_part(*data, 0, data->examples());
      spdlog::info("lbfgs learner: share {} is examples {} to {} of {}", share, begin, end, path);
      answer(self, tag, {double(n)});
    },
    [self](lbfgs_atom, uint64_t tag, uint8_t what, uint32_t share, const std::vector<double>& steps) {
      if (!from_driver(self))
        return;
      auto& st = self->state;
      auto part = st.shares.find(share);
      if (part == st.shares.end())
        return answer(self, tag, {}, "lbfgs learner: share " + std::to_string(share) + " is not loaded here");
      if (!st.model)
        return answer(self, tag, {}, "lbfgs learner: no table yet");
      if (auto bad = check_steps(steps); !bad.empty())
        return answer(self, tag, {}, "lbfgs learner: " + bad);
      // The request's tag is its writer token: a pass done again after a
      // lost learner fences the table above every earlier attempt's tags.
      table_model model{*st.model, tag};
      // Its client's traffic since the last answer, then the values.
      std::vector<double> values(2, 0.0);
      std::string error;
      switch (static_cast<lbfgs_pass>(what)) {
        case lbfgs_pass::line:
          if (auto v = share_line(model, part->second, steps); !v)
            error = v.error();
          else {
            values.insert(values.end(), v->loss.begin(), v->loss.end());
            values.insert(values.end(), v->slope.begin(), v->slope.end());
          }
          break;
        case lbfgs_pass::gradient:
          if (auto v = share_gradient(model, part->second); !v)
            error = v.error();
          else
            values.push_back(*v);
          break;
        case lbfgs_pass::correct:
          if (auto v = share_correct(model, part->second); !v)
            error = v.error();
          else
            values.push_back(double(*v));
          break;
        default: error = "lbfgs learner: no pass " + std::to_string(what);
      }
      auto now = st.client->traffic();
      values[0] = double(now.requests - st.reported.requests);
      values[1] = double(now.bytes_sent + now.bytes_received - st.reported.bytes_sent - st.reported.bytes_received);
      st.reported = now;
      if (!error.empty())
        values.clear();
      answer(self, tag, std::move(values), std::move(error));
    },
    caf::after(std::chrono::minutes(10)) >>
      [self] {
        if (!self->state.driver)
          self->quit(); // asked for but never used
      },
  };
}

} // namespace

lbfgs_learner_actor spawn_lbfgs_learner(caf::actor_system& sys, cluster_config cluster) {
  return sys.spawn<caf::detached>(learner_behavior, std::move(cluster));
}

} // namespace gridvec
