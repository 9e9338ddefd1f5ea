#include <gridvec/tables/client.hpp>

#include <optional>
#include <unordered_map>

#include "actors/connect.hpp"
#include "src/table/table_service.hpp"

namespace gridvec {

namespace {

// A table's requests for one call: which shard each goes to, its keys, and
// (rows layout) where each key stands in the caller's list. In the columns
// layout every shard gets every key, in order, and `positions` is empty.
struct routing {
  std::vector<uint32_t> targets;
  std::vector<std::vector<uint64_t>> keys;
  std::vector<std::vector<size_t>> positions;
};

routing route(const table_spec& spec, uint32_t shards, std::span<const uint64_t> keys) {
  routing r;
  if (spec.layout == table_layout::columns || shards == 1) {
    for (uint32_t s = 0; s < shards; ++s) {
      r.targets.push_back(s);
      r.keys.emplace_back(keys.begin(), keys.end());
      r.positions.emplace_back();
    }
    return r;
  }
  std::vector<std::vector<uint64_t>> by_shard(shards);
  std::vector<std::vector<size_t>> at(shards);
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t s = shard_of_key(keys[i], shards);
    by_shard[s].push_back(keys[i]);
    at[s].push_back(i);
  }
  for (uint32_t s = 0; s < shards; ++s)
    if (!by_shard[s].empty()) {
      r.targets.push_back(s);
      r.keys.push_back(std::move(by_shard[s]));
      r.positions.push_back(std::move(at[s]));
    }
  return r;
}

// The columns shard s holds of rows of `dim` floats (all of them in the rows layout).
column_range held_columns(const table_spec& spec, uint32_t s, uint32_t shards) {
  if (spec.layout == table_layout::columns)
    return columns_of_shard(spec.dim, s, shards);
  return {0, spec.dim};
}

size_t position(const routing& r, size_t request, size_t j) {
  return r.positions[request].empty() ? j : r.positions[request][j];
}

// The part of `values` (rows of spec.dim) that request `i` carries.
std::vector<float> values_for(const table_spec& spec, uint32_t shards, const routing& r, size_t i,
                              std::span<const float> values) {
  auto cols = held_columns(spec, r.targets[i], shards);
  std::vector<float> out(r.keys[i].size() * cols.width);
  for (size_t j = 0; j < r.keys[i].size(); ++j) {
    const float* row = values.data() + position(r, i, j) * spec.dim + cols.first;
    std::copy(row, row + cols.width, out.data() + j * cols.width);
  }
  return out;
}

status check_values(const table_spec& spec, size_t keys, size_t floats) {
  if (floats != keys * spec.dim)
    return failure{"table " + spec.name + ": " + std::to_string(floats) + " floats for " + std::to_string(keys) +
                   " keys of " + std::to_string(spec.dim) + " (expected " + std::to_string(keys * spec.dim) + ")"};
  return {};
}

status needs_columns(const table_spec& spec, uint32_t shards, const char* what) {
  if (spec.layout != table_layout::columns && shards > 1)
    return failure{"table " + spec.name + ": " + what +
                   " needs the columns layout, where every shard holds a slice of every row (this table has the rows "
                   "layout)"};
  return {};
}

status check_pairs(const table_spec& spec, size_t a, size_t b) {
  if (a != b)
    return failure{"table " + spec.name + ": " + std::to_string(a) + " left keys and " + std::to_string(b) +
                   " right keys"};
  return {};
}

// The table_infos of every shard's reply, in shard order.
expected<std::vector<table_info>> every_table_info(const expected<std::vector<table_reply>>& replies) {
  if (!replies)
    return failure{replies.error()};
  std::vector<table_info> out;
  for (auto& r : *replies)
    out.insert(out.end(), r.tables.begin(), r.tables.end());
  return out;
}

} // namespace

struct table_client::core {
  core(caf::actor_system& sys, std::vector<table_shard_actor> shards, std::chrono::milliseconds timeout)
    : shards(std::move(shards)), timeout(timeout), self(sys), gone(this->shards.size()) {
    // A message to a shard whose node has gone is dropped without a word in
    // CAF 0.17: without this, a call would wait for its whole timeout.
    for (auto& shard : this->shards)
      self->monitor(shard);
  }

  std::vector<table_shard_actor> shards;
  std::chrono::milliseconds timeout;
  caf::scoped_actor self;
  std::vector<std::string> gone; // why shard i is gone; empty while it lives
  table_client::traffic_count traffic;

  uint32_t count() const { return static_cast<uint32_t>(shards.size()); }

  /// Takes note of the shards reported down since the last call.
  void note_downs() {
    for (bool more = true; more;)
      self->receive(
        [&](caf::down_msg& down) {
          for (size_t i = 0; i < shards.size(); ++i)
            if (shards[i].address() == down.source)
              gone[i] = down.reason == caf::exit_reason::remote_link_unreachable ? "its node cannot be reached"
                        : down.reason                                            ? error_text(down.reason)
                                                                                 : "it stopped";
        },
        caf::after(std::chrono::seconds(0)) >> [&] { more = false; });
  }

  /// Sends every request at once (requests[i] to shards[targets[i]]) and
  /// waits for all replies; the first error is the result.
  /// Sends every request at once (requests[i] to shards[targets[i]]) and
  /// waits for all replies, as they came; a shard that does not answer is
  /// the result (the first such).
  expected<std::vector<wire_bytes>> ask_raw(const std::vector<uint32_t>& targets, std::vector<wire_bytes> requests) {
    note_downs();
    for (uint32_t t : targets)
      if (!gone[t].empty())
        return failure{"table shard " + std::to_string(t) + " is gone (" + gone[t] +
                       "); connect to the table shards again once its node is back"};
    using handle_type = decltype(self->request(shards[0], timeout, table_atom::value, wire_bytes{}));
    std::vector<handle_type> handles;
    handles.reserve(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      ++traffic.requests;
      traffic.bytes_sent += requests[i].size();
      handles.push_back(self->request(shards[targets[i]], timeout, table_atom::value, std::move(requests[i])));
    }
    std::vector<wire_bytes> replies(requests.size());
    std::optional<std::string> first_error;
    for (size_t i = 0; i < handles.size(); ++i)
      handles[i].receive(
        [&](wire_bytes& bytes) {
          traffic.bytes_received += bytes.size();
          replies[i] = std::move(bytes);
        },
        [&](caf::error& err) {
          std::string why = err == caf::sec::request_timeout
                              ? "no answer within " + std::to_string(timeout.count()) + " ms"
                              : error_text(err);
          first_error = first_error.value_or("table shard " + std::to_string(targets[i]) + ": " + why);
        });
    if (first_error)
      return failure{*first_error};
    return replies;
  }

  /// ask_raw, each reply decoded; an error reply (or one of another kind
  /// than `expect`) is the result.
  expected<std::vector<table_reply>> ask(const std::vector<uint32_t>& targets, std::vector<wire_bytes> requests,
                                         table_reply::kind expect) {
    auto raw = ask_raw(targets, std::move(requests));
    if (!raw)
      return failure{raw.error()};
    std::vector<table_reply> replies(raw->size());
    for (size_t i = 0; i < raw->size(); ++i) {
      auto reply = decode_table_reply((*raw)[i]);
      if (!reply)
        return failure{reply.error()};
      if (reply->what == table_reply::kind::error)
        return failure{reply->error, reply->code};
      if (reply->what != expect)
        return failure{"table shard " + std::to_string(targets[i]) + " sent a reply of another kind"};
      replies[i] = std::move(*reply);
    }
    return replies;
  }

  /// The same request to every shard.
  expected<std::vector<table_reply>> ask_all(const wire_bytes& request, table_reply::kind expect) {
    std::vector<uint32_t> targets;
    std::vector<wire_bytes> requests;
    for (uint32_t s = 0; s < count(); ++s) {
      targets.push_back(s);
      requests.push_back(request);
    }
    return ask(targets, std::move(requests), expect);
  }
};

table_client::table_client(caf::actor_system& sys, std::vector<table_shard_actor> shards,
                           std::chrono::milliseconds timeout)
  : core_(std::make_shared<core>(sys, std::move(shards), timeout)) {}

uint32_t table_client::shards() const { return core_->count(); }

table_client::traffic_count table_client::traffic() const { return core_->traffic; }

std::vector<uint32_t> table_client::lost_shards() {
  core_->note_downs();
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < core_->count(); ++i)
    if (!core_->gone[i].empty())
      out.push_back(i);
  return out;
}

expected<table> table_client::open(const table_spec& spec) {
  if (core_->shards.empty())
    return failure{"there are no table shards to open table " + spec.name + " on"};
  if (auto ok = validate_table_spec(spec); !ok)
    return failure{ok.error()};
  auto replies = core_->ask_all(encode_table_create(spec), table_reply::kind::done);
  if (!replies)
    return failure{replies.error()};
  return table{core_, spec};
}

expected<table> table_client::find(const std::string& name) {
  if (core_->shards.empty())
    return failure{"there are no table shards"};
  auto replies = core_->ask({0}, {encode_table_simple(table_op::info, name)}, table_reply::kind::tables);
  if (!replies)
    return failure{replies.error()};
  if ((*replies)[0].tables.size() != 1)
    return failure{"table shard 0 described table " + name + " badly"};
  return table{core_, (*replies)[0].tables[0].spec};
}

expected<std::vector<table_info>> table_client::list() {
  return every_table_info(core_->ask_all(encode_table_simple(table_op::list, ""), table_reply::kind::tables));
}

uint32_t table::shards() const { return core_->count(); }

expected<std::vector<float>> table::get(std::span<const uint64_t> keys) {
  auto batches = get_batches({std::vector<uint64_t>(keys.begin(), keys.end())});
  if (!batches)
    return failure{batches.error()};
  return std::move((*batches)[0]);
}

expected<std::vector<std::vector<float>>> table::get_batches(const std::vector<std::vector<uint64_t>>& batches) {
  const uint32_t shards = core_->count();
  std::vector<routing> routes;
  std::vector<uint32_t> targets;
  std::vector<wire_bytes> requests;
  for (auto& keys : batches) {
    routes.push_back(route(spec_, shards, keys));
    for (size_t i = 0; i < routes.back().targets.size(); ++i) {
      targets.push_back(routes.back().targets[i]);
      requests.push_back(encode_table_keys(table_op::get, spec_.name, routes.back().keys[i]));
    }
  }
  // The floats are copied once, from the reply's bytes to their places.
  auto replies = core_->ask_raw(targets, std::move(requests));
  if (!replies)
    return failure{replies.error()};
  std::vector<std::vector<float>> out;
  size_t next = 0;
  for (size_t b = 0; b < batches.size(); ++b) {
    const routing& r = routes[b];
    std::vector<float> values(batches[b].size() * spec_.dim);
    for (size_t i = 0; i < r.targets.size(); ++i) {
      const auto cols = held_columns(spec_, r.targets[i], shards);
      auto read = read_table_floats((*replies)[next++], [&](const float* floats, size_t count) -> status {
        if (count != r.keys[i].size() * cols.width)
          return failure{"table shard " + std::to_string(r.targets[i]) + " sent " + std::to_string(count) +
                         " floats for " + std::to_string(r.keys[i].size()) + " keys"};
        for (size_t j = 0; j < r.keys[i].size(); ++j)
          std::copy(floats + j * cols.width, floats + (j + 1) * cols.width,
                    values.data() + position(r, i, j) * spec_.dim + cols.first);
        return {};
      });
      if (!read)
        return failure{read.error()};
    }
    out.push_back(std::move(values));
  }
  return out;
}

// put, push, add, set_if_absent: keys with values, split as the keys are.
namespace {

expected<std::vector<table_reply>> send_values(table_client::core& core, const table_spec& spec, table_op op,
                                               const std::vector<std::span<const uint64_t>>& key_batches,
                                               const std::vector<std::span<const float>>& value_batches,
                                               table_reply::kind expect, std::vector<routing>* routes_out = nullptr) {
  const uint32_t shards = core.count();
  std::vector<uint32_t> targets;
  std::vector<wire_bytes> requests;
  for (size_t b = 0; b < key_batches.size(); ++b) {
    if (auto ok = check_values(spec, key_batches[b].size(), value_batches[b].size()); !ok)
      return failure{ok.error()};
    routing r = route(spec, shards, key_batches[b]);
    for (size_t i = 0; i < r.targets.size(); ++i) {
      targets.push_back(r.targets[i]);
      requests.push_back(
        encode_table_values(op, spec.name, r.keys[i], values_for(spec, shards, r, i, value_batches[b])));
    }
    if (routes_out)
      routes_out->push_back(std::move(r));
  }
  return core.ask(targets, std::move(requests), expect);
}

status as_status(const expected<std::vector<table_reply>>& replies) {
  if (!replies)
    return failure{replies.error()};
  return {};
}

// Per-key flags back in the caller's order (columns layout: shard 0's).
std::vector<bool> gather_flags(const routing& r, const std::vector<table_reply>& replies, size_t keys) {
  std::vector<bool> out(keys, false);
  for (size_t i = 0; i < r.targets.size(); ++i) {
    if (r.positions[i].empty() && i > 0)
      break;
    for (size_t j = 0; j < r.keys[i].size() && j < replies[i].flags.size(); ++j)
      out[position(r, i, j)] = replies[i].flags[j] != 0;
  }
  return out;
}

} // namespace

status table::put(std::span<const uint64_t> keys, std::span<const float> values) {
  return as_status(send_values(*core_, spec_, table_op::put, {keys}, {values}, table_reply::kind::done));
}

status table::put_batches(const std::vector<std::vector<uint64_t>>& batches,
                          const std::vector<std::vector<float>>& values) {
  if (batches.size() != values.size())
    return failure{"table " + spec_.name + ": " + std::to_string(batches.size()) + " key batches and " +
                   std::to_string(values.size()) + " value batches"};
  std::vector<std::span<const uint64_t>> k(batches.begin(), batches.end());
  std::vector<std::span<const float>> v(values.begin(), values.end());
  return as_status(send_values(*core_, spec_, table_op::put, k, v, table_reply::kind::done));
}

status table::push(std::span<const uint64_t> keys, std::span<const float> gradients) {
  return as_status(send_values(*core_, spec_, table_op::push, {keys}, {gradients}, table_reply::kind::done));
}

status table::add(std::span<const uint64_t> keys, std::span<const float> deltas) {
  return as_status(send_values(*core_, spec_, table_op::add, {keys}, {deltas}, table_reply::kind::done));
}

expected<std::vector<bool>> table::set_if_absent(std::span<const uint64_t> keys, std::span<const float> values) {
  const uint32_t shards = core_->count();
  if (spec_.layout != table_layout::columns || shards == 1) { // each key has one shard: it decides
    std::vector<routing> routes;
    auto replies =
      send_values(*core_, spec_, table_op::set_if_absent, {keys}, {values}, table_reply::kind::flags, &routes);
    if (!replies)
      return failure{replies.error()};
    return gather_flags(routes[0], *replies, keys.size());
  }
  // Columns layout: every shard holds a slice of each row, and shards that
  // decided on their own could each let another caller's value win (two
  // racing callers left a row half one's, half the other's). Shard 0
  // decides; the winners' other columns are then put on the other shards.
  if (auto ok = check_values(spec_, keys.size(), values.size()); !ok)
    return failure{ok.error()};
  routing all = route(spec_, shards, keys);
  auto decided = core_->ask(
    {0},
    {encode_table_values(table_op::set_if_absent, spec_.name, all.keys[0], values_for(spec_, shards, all, 0, values))},
    table_reply::kind::flags);
  if (!decided)
    return failure{decided.error()};
  const auto& flags = (*decided)[0].flags;
  if (flags.size() != keys.size())
    return failure{"table shard 0 sent " + std::to_string(flags.size()) + " flags for " + std::to_string(keys.size()) +
                   " keys"};
  std::vector<bool> set(keys.size());
  std::vector<uint64_t> won;
  std::vector<float> won_values;
  for (size_t i = 0; i < keys.size(); ++i)
    if ((set[i] = flags[i] != 0)) {
      won.push_back(keys[i]);
      won_values.insert(won_values.end(), values.begin() + i * spec_.dim, values.begin() + (i + 1) * spec_.dim);
    }
  if (won.empty())
    return set;
  routing rest = route(spec_, shards, won);
  std::vector<uint32_t> targets;
  std::vector<wire_bytes> requests;
  for (size_t i = 1; i < rest.targets.size(); ++i) {
    targets.push_back(rest.targets[i]);
    requests.push_back(
      encode_table_values(table_op::put, spec_.name, rest.keys[i], values_for(spec_, shards, rest, i, won_values)));
  }
  if (auto put = core_->ask(targets, std::move(requests), table_reply::kind::done); !put)
    return failure{put.error()};
  return set;
}

expected<std::vector<bool>> table::remove(std::span<const uint64_t> keys) {
  routing r = route(spec_, core_->count(), keys);
  std::vector<wire_bytes> requests;
  for (auto& k : r.keys)
    requests.push_back(encode_table_keys(table_op::remove, spec_.name, k));
  auto replies = core_->ask(r.targets, std::move(requests), table_reply::kind::flags);
  if (!replies)
    return failure{replies.error()};
  return gather_flags(r, *replies, keys.size());
}

expected<std::vector<table_row>> table::fetch(std::span<const uint64_t> keys) {
  const uint32_t shards = core_->count();
  const uint32_t slots = slots_per_column(spec_.optimizer);
  routing r = route(spec_, shards, keys);
  std::vector<wire_bytes> requests;
  for (auto& k : r.keys)
    requests.push_back(encode_table_keys(table_op::fetch, spec_.name, k));
  auto replies = core_->ask(r.targets, std::move(requests), table_reply::kind::floats);
  if (!replies)
    return failure{replies.error()};
  std::vector<table_row> out(keys.size());
  for (auto& row : out) {
    row.value.resize(spec_.dim);
    row.slots.resize(size_t{slots} * spec_.dim);
  }
  for (size_t i = 0; i < r.targets.size(); ++i) {
    const auto cols = held_columns(spec_, r.targets[i], shards);
    const size_t stride = size_t{cols.width} * (1 + slots);
    const auto& floats = (*replies)[i].floats;
    const auto& steps = (*replies)[i].steps;
    if (floats.size() != r.keys[i].size() * stride || steps.size() != r.keys[i].size())
      return failure{"table shard " + std::to_string(r.targets[i]) + " sent a fetch reply of the wrong size"};
    for (size_t j = 0; j < r.keys[i].size(); ++j) {
      table_row& row = out[position(r, i, j)];
      const float* src = floats.data() + j * stride;
      std::copy(src, src + cols.width, row.value.data() + cols.first);
      for (uint32_t k = 0; k < slots; ++k)
        std::copy(src + (1 + k) * cols.width, src + (2 + k) * cols.width,
                  row.slots.data() + size_t{k} * spec_.dim + cols.first);
      row.step = steps[j];
    }
  }
  return out;
}

expected<std::vector<double>> table::dot(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  if (auto ok = needs_columns(spec_, core_->count(), "dot"); !ok)
    return failure{ok.error()};
  if (auto ok = check_pairs(spec_, a.size(), b.size()); !ok)
    return failure{ok.error()};
  auto replies = core_->ask_all(encode_table_pairs(table_op::dot, spec_.name, a, b), table_reply::kind::sums);
  if (!replies)
    return failure{replies.error()};
  std::vector<double> out(a.size(), 0.0);
  for (auto& reply : *replies) {
    if (reply.sums.size() != a.size())
      return failure{"a table shard sent " + std::to_string(reply.sums.size()) + " partial dot products for " +
                     std::to_string(a.size()) + " pairs"};
    for (size_t i = 0; i < a.size(); ++i)
      out[i] += reply.sums[i];
  }
  return out;
}

status table::axpy(float alpha, std::span<const uint64_t> x, std::span<const uint64_t> y) {
  if (auto ok = needs_columns(spec_, core_->count(), "axpy"); !ok)
    return ok;
  if (auto ok = check_pairs(spec_, x.size(), y.size()); !ok)
    return ok;
  return as_status(
    core_->ask_all(encode_table_pairs(table_op::axpy, spec_.name, x, y, alpha), table_reply::kind::done));
}

status table::copy(std::span<const uint64_t> from, std::span<const uint64_t> to) {
  if (auto ok = needs_columns(spec_, core_->count(), "copy"); !ok)
    return ok;
  if (auto ok = check_pairs(spec_, from.size(), to.size()); !ok)
    return ok;
  return as_status(core_->ask_all(encode_table_pairs(table_op::copy, spec_.name, from, to), table_reply::kind::done));
}

status table::scal(float alpha, std::span<const uint64_t> keys) {
  routing r = route(spec_, core_->count(), keys);
  std::vector<wire_bytes> requests;
  for (auto& k : r.keys)
    requests.push_back(encode_table_scal(spec_.name, alpha, k));
  return as_status(core_->ask(r.targets, std::move(requests), table_reply::kind::done));
}

namespace {

// The shard that holds column c of rows of `dim` floats split over `shards`.
uint32_t shard_of_column(uint32_t dim, uint32_t c, uint32_t shards) {
  uint32_t s = static_cast<uint32_t>(std::min<uint64_t>(shards - 1, uint64_t{c} * shards / dim));
  while (s > 0 && columns_of_shard(dim, s, shards).first > c)
    --s;
  while (s + 1 < shards && columns_of_shard(dim, s + 1, shards).first <= c)
    ++s;
  return s;
}

// One sparse request: to `target`, rows `rows` (their places in the
// caller's list) and the columns at `at` of the caller's indices.
struct sparse_part {
  uint32_t target = 0;
  std::vector<uint64_t> rows;
  std::vector<size_t> row_at;
  std::vector<uint32_t> indices;
  std::vector<size_t> at;
};

status check_indices(const table_spec& spec, std::span<const uint32_t> indices) {
  for (uint32_t c : indices)
    if (c >= spec.dim)
      return failure{"table " + spec.name + ": column " + std::to_string(c) + " is outside its " +
                     std::to_string(spec.dim) + " columns"};
  return {};
}

// The parts of a sparse call: rows grouped by the shard that holds them
// (every shard, in the columns layout, for its own columns), the columns
// cut into pieces that each fit a request's bounds.
std::vector<sparse_part> sparse_parts(const table_spec& spec, uint32_t shards, std::span<const uint64_t> rows,
                                      std::span<const uint32_t> indices) {
  const bool columns = spec.layout == table_layout::columns && shards > 1;
  std::vector<std::vector<size_t>> rows_of(shards), cols_of(shards);
  for (size_t i = 0; i < rows.size(); ++i)
    rows_of[columns || shards == 1 ? 0 : shard_of_key(rows[i], shards)].push_back(i);
  for (size_t j = 0; j < indices.size(); ++j)
    cols_of[columns ? shard_of_column(spec.dim, indices[j], shards) : 0].push_back(j);
  std::vector<sparse_part> parts;
  for (uint32_t s = 0; s < shards; ++s) {
    const auto& my_rows = rows_of[columns ? 0 : s];
    const auto& my_cols = cols_of[columns ? s : 0];
    if (my_rows.empty() || my_cols.empty())
      continue;
    const size_t piece =
      std::max<size_t>(1, std::min(max_request_keys, max_request_floats / std::max<size_t>(1, my_rows.size())));
    for (size_t from = 0; from < my_cols.size(); from += piece) {
      sparse_part p;
      p.target = s;
      for (size_t i : my_rows) {
        p.rows.push_back(rows[i]);
        p.row_at.push_back(i);
      }
      for (size_t j = from; j < std::min(my_cols.size(), from + piece); ++j) {
        p.indices.push_back(indices[my_cols[j]]);
        p.at.push_back(my_cols[j]);
      }
      parts.push_back(std::move(p));
    }
  }
  return parts;
}

} // namespace

expected<std::vector<float>> table::fetch(uint64_t row, std::span<const uint32_t> indices) {
  return fetch_rows(std::span<const uint64_t>(&row, 1), indices);
}

expected<std::vector<float>> table::fetch_rows(std::span<const uint64_t> rows, std::span<const uint32_t> indices) {
  if (auto ok = check_indices(spec_, indices); !ok)
    return failure{ok.error()};
  if (rows.size() > max_request_floats)
    return failure{"table " + spec_.name + ": " + std::to_string(rows.size()) + " rows in one sparse fetch"};
  auto parts = sparse_parts(spec_, core_->count(), rows, indices);
  std::vector<uint32_t> targets;
  std::vector<wire_bytes> requests;
  for (auto& p : parts) {
    targets.push_back(p.target);
    requests.push_back(encode_table_sparse_get(spec_.name, p.rows, p.indices));
  }
  auto replies = core_->ask_raw(targets, std::move(requests));
  if (!replies)
    return failure{replies.error()};
  const size_t n = indices.size();
  std::vector<float> out(rows.size() * n);
  for (size_t k = 0; k < parts.size(); ++k) {
    const sparse_part& p = parts[k];
    auto read = read_table_floats((*replies)[k], [&](const float* floats, size_t count) -> status {
      if (count != p.rows.size() * p.indices.size())
        return failure{"table shard " + std::to_string(p.target) + " sent " + std::to_string(count) + " floats for " +
                       std::to_string(p.rows.size()) + " rows x " + std::to_string(p.indices.size()) + " columns"};
      for (size_t i = 0; i < p.rows.size(); ++i)
        for (size_t j = 0; j < p.indices.size(); ++j)
          out[p.row_at[i] * n + p.at[j]] = floats[i * p.indices.size() + j];
      return {};
    });
    if (!read)
      return failure{read.error()};
  }
  return out;
}

status table::increment(uint64_t row, std::span<const uint32_t> indices, std::span<const float> values,
                        uint64_t writer) {
  if (values.size() != indices.size())
    return failure{"table " + spec_.name + ": " + std::to_string(values.size()) + " values for " +
                   std::to_string(indices.size()) + " columns"};
  if (auto ok = check_indices(spec_, indices); !ok)
    return ok;
  auto parts = sparse_parts(spec_, core_->count(), std::span<const uint64_t>(&row, 1), indices);
  std::vector<uint32_t> targets;
  std::vector<wire_bytes> requests;
  std::vector<float> part_values;
  for (auto& p : parts) {
    part_values.resize(p.at.size());
    for (size_t j = 0; j < p.at.size(); ++j)
      part_values[j] = values[p.at[j]];
    targets.push_back(p.target);
    requests.push_back(encode_table_sparse_add(spec_.name, row, p.indices, part_values, writer));
  }
  return as_status(core_->ask(targets, std::move(requests), table_reply::kind::done));
}

expected<uint64_t> table::fence(uint64_t fence) {
  auto replies = core_->ask_all(encode_table_fence(spec_.name, fence), table_reply::kind::done);
  if (!replies)
    return failure{replies.error(), replies.code()};
  uint64_t highest = 0;
  for (const auto& r : *replies)
    highest = std::max(highest, r.fence);
  return highest;
}

expected<std::vector<float>> table::lookup(const std::vector<std::vector<uint64_t>>& examples,
                                           table_combiner combiner) {
  // The distinct ids, and each example's as positions among them.
  std::vector<uint64_t> unique;
  std::unordered_map<uint64_t, uint32_t> index;
  std::vector<std::vector<uint32_t>> at(examples.size());
  for (size_t e = 0; e < examples.size(); ++e)
    for (uint64_t k : examples[e]) {
      auto [it, added] = index.try_emplace(k, static_cast<uint32_t>(unique.size()));
      if (added)
        unique.push_back(k);
      at[e].push_back(it->second);
    }
  const uint32_t shards = core_->count();
  routing r = route(spec_, shards, unique);
  std::vector<uint32_t> counts(examples.size());
  for (size_t e = 0; e < examples.size(); ++e)
    counts[e] = static_cast<uint32_t>(examples[e].size());
  std::vector<wire_bytes> requests;
  for (size_t i = 0; i < r.targets.size(); ++i) {
    // Positions among this shard's keys (rows layout: only the ids it holds).
    std::vector<uint32_t> local(unique.size(), UINT32_MAX);
    for (size_t j = 0; j < r.keys[i].size(); ++j)
      local[position(r, i, j)] = static_cast<uint32_t>(j);
    std::vector<uint32_t> offsets{0}, positions;
    for (size_t e = 0; e < examples.size(); ++e) {
      for (uint32_t p : at[e])
        if (local[p] != UINT32_MAX)
          positions.push_back(local[p]);
      offsets.push_back(static_cast<uint32_t>(positions.size()));
    }
    requests.push_back(encode_table_lookup(spec_.name, combiner, r.keys[i], offsets, positions, counts));
  }
  auto replies = core_->ask_raw(r.targets, std::move(requests));
  if (!replies)
    return failure{replies.error()};
  std::vector<float> out(examples.size() * spec_.dim, 0.0f);
  for (size_t i = 0; i < r.targets.size(); ++i) {
    const auto cols = held_columns(spec_, r.targets[i], shards);
    auto read = read_table_floats((*replies)[i], [&](const float* floats, size_t count) -> status {
      if (count != examples.size() * cols.width)
        return failure{"table shard " + std::to_string(r.targets[i]) + " sent " + std::to_string(count) +
                       " floats for a lookup of " + std::to_string(examples.size()) + " examples"};
      for (size_t e = 0; e < examples.size(); ++e)
        for (uint32_t c = 0; c < cols.width; ++c)
          out[e * spec_.dim + cols.first + c] += floats[e * cols.width + c];
      return {};
    });
    if (!read)
      return failure{read.error()};
  }
  return out;
}

expected<std::vector<double>> table::reduce(const std::string& what) {
  auto replies = core_->ask_all(encode_table_reduce(spec_.name, what), table_reply::kind::sums);
  if (!replies)
    return failure{replies.error()};
  const uint32_t shards = core_->count();
  const bool columns = spec_.layout == table_layout::columns && shards > 1;
  if (what == "sum" && columns) {
    std::vector<double> out(spec_.dim, 0.0);
    for (uint32_t s = 0; s < shards; ++s) {
      auto cols = columns_of_shard(spec_.dim, s, shards);
      const auto& sums = (*replies)[s].sums;
      if (sums.size() != cols.width)
        return failure{"table shard " + std::to_string(s) + " sent a reduction of the wrong size"};
      std::copy(sums.begin(), sums.end(), out.begin() + cols.first);
    }
    return out;
  }
  if (what == "count" && columns) // every shard holds every row
    return (*replies)[0].sums;
  std::vector<double> out = (*replies)[0].sums;
  for (uint32_t s = 1; s < shards; ++s) {
    const auto& sums = (*replies)[s].sums;
    if (sums.size() != out.size())
      return failure{"table shard " + std::to_string(s) + " sent a reduction of the wrong size"};
    for (size_t i = 0; i < out.size(); ++i)
      out[i] += sums[i];
  }
  return out;
}

expected<std::vector<wire_bytes>> table::call(const std::string& operation, const wire_bytes& args) {
  auto replies = core_->ask_all(encode_table_call(spec_.name, operation, args), table_reply::kind::result);
  if (!replies)
    return failure{replies.error()};
  std::vector<wire_bytes> out;
  for (auto& r : *replies)
    out.push_back(std::move(r.result));
  return out;
}

expected<std::vector<table_info>> table::info() {
  return every_table_info(core_->ask_all(encode_table_simple(table_op::info, spec_.name), table_reply::kind::tables));
}

status table::for_each_row(const std::function<void(uint64_t, const float*)>& visit, uint32_t page) {
  const uint32_t shards = core_->count();
  // In the columns layout every shard holds every row: shard 0's keys,
  // then the whole rows by get.
  const bool columns = spec_.layout == table_layout::columns && shards > 1;
  for (uint32_t s = 0; s < (columns ? 1 : shards); ++s) {
    for (uint64_t cursor = 0; cursor != table_slice::scan_end;) {
      auto replies =
        core_->ask({s}, {encode_table_scan(spec_.name, cursor, std::max(page, 1u))}, table_reply::kind::floats);
      if (!replies)
        return failure{replies.error()};
      const table_reply& r = (*replies)[0];
      cursor = r.next;
      if (r.keys.empty())
        continue;
      std::vector<float> rows;
      if (columns) {
        auto got = get(r.keys);
        if (!got)
          return failure{got.error()};
        rows = std::move(*got);
      } else {
        rows = r.floats;
      }
      if (rows.size() != r.keys.size() * spec_.dim)
        return failure{"table shard " + std::to_string(s) + " sent a scan page of the wrong size"};
      for (size_t i = 0; i < r.keys.size(); ++i)
        visit(r.keys[i], rows.data() + i * spec_.dim);
    }
  }
  return {};
}

status table::save(uint32_t slot) {
  if (slot >= max_table_slots)
    return failure{"table " + spec_.name + ": no save slot " + std::to_string(slot) + " (there are " +
                   std::to_string(max_table_slots) + ")"};
  return as_status(core_->ask_all(encode_table_simple(table_op::save, spec_.name, slot), table_reply::kind::done));
}

status table::load(uint32_t slot) {
  if (slot >= max_table_slots)
    return failure{"table " + spec_.name + ": no save slot " + std::to_string(slot) + " (there are " +
                   std::to_string(max_table_slots) + ")"};
  return as_status(core_->ask_all(encode_table_simple(table_op::load, spec_.name, slot), table_reply::kind::done));
}

status table::drop() {
  return as_status(core_->ask_all(encode_table_simple(table_op::drop, spec_.name), table_reply::kind::done));
}

expected<std::vector<table_shard_actor>> connect_table_shards(caf::actor_system& sys, const cluster_config& cluster) {
  const auto timeout = std::chrono::milliseconds(cluster.connect_timeout_ms);
  std::vector<table_shard_actor> out;
  for (const node_spec* node : cluster.table_shard_nodes()) {
    auto got = ask_node<table_shard_actor>(sys, node->host, node->port, timeout, tables_atom::value, "table shard");
    if (!got)
      return failure{"table shard node " + node->name + " (" + cluster.source + "): " + got.error()};
    out.push_back(*got);
  }
  if (out.empty())
    return failure{cluster.source + " has no shard node to hold tables"};
  return out;
}

expected<table_shard_actor> take_over_table_shard(caf::actor_system& sys, const cluster_config& cluster,
                                                  const node_spec& standby, uint32_t index, uint32_t count,
                                                  std::chrono::milliseconds load_timeout) {
  const auto timeout = std::chrono::milliseconds(cluster.connect_timeout_ms);
  const std::string where = "standby node " + standby.name + " (" + cluster.source + ")";
  if (!standby.standby || !standby.has(node_role::shard))
    return failure{where + " is not a standby shard node"};
  auto spare = ask_node<table_shard_actor>(sys, standby.host, standby.port, timeout, tables_atom::value, "table shard");
  if (!spare)
    return failure{where + ": " + spare.error()};
  // Loading the slices takes as long as reading them: the caller's timeout.
  caf::scoped_actor self{sys};
  std::optional<std::string> refused;
  self->request(*spare, load_timeout, table_atom::value, encode_table_take_over(index, count))
    .receive(
      [&](wire_bytes& bytes) {
        auto reply = decode_table_reply(bytes);
        if (!reply)
          refused = reply.error();
        else if (reply->what == table_reply::kind::error)
          refused = reply->error;
        else if (reply->what != table_reply::kind::done)
          refused = "it sent a reply of another kind";
      },
      [&](caf::error& err) {
        refused = err == caf::sec::request_timeout ? "no answer within " + std::to_string(load_timeout.count()) + " ms"
                                                   : error_text(err);
      });
  if (refused)
    return failure{where + " did not take over table shard " + std::to_string(index) + ": " + *refused};
  return *spare;
}

} // namespace gridvec
