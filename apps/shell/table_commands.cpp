#include "apps/shell/table_commands.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>

#include <gridvec/tables.hpp>

#include "apps/shell/shell_format.hpp"
#include "src/util/atomic_file.hpp"

namespace gridvec {

const char* const table_commands_usage =
  "  list                              every table: spec, rows, memory\n"
  "  create NAME DIM [KEY=VALUE...]    rows=N (a matrix), layout=rows|columns, storage=lazy|dense,\n"
  "                                    init=zeros|uniform|normal, scale=S, seed=N, optimizer=sgd|adagrad|adam, lr=X\n"
  "  info NAME                         each shard's rows, columns and memory\n"
  "  get NAME KEY...                   the rows' values, one line per key\n"
  "  put NAME KEY V1 ... Vdim          write one row\n"
  "  push NAME KEY G1 ... Gdim         one optimizer step with this gradient\n"
  "  fetch NAME KEY                    value, optimizer slots and step count\n"
  "  save NAME                         each shard writes its slice to the cluster's table-dir\n"
  "  export NAME FILE                  every row to FILE, word2vec text format with the key as the word\n"
  "  drop NAME                         remove the table (and its saved slices)\n"
  "A KEY of digits only is that number; any other KEY is a string key (hashed).\n";

namespace {

using words = std::vector<std::string>;

uint64_t parse_key(const std::string& text) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec == std::errc{} && end == text.data() + text.size() && !text.empty())
    return n;
  return table_key(text);
}

expected<uint64_t> parse_count(const std::string& what, const std::string& text) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty())
    return failure{what + " must be a whole number, not '" + text + "'"};
  return n;
}

expected<float> parse_float(const std::string& what, const std::string& text) {
  try {
    size_t used = 0;
    float x = std::stof(text, &used);
    if (used == text.size() && std::isfinite(x))
      return x;
  } catch (const std::exception&) {
  }
  return failure{what + " must be a number, not '" + text + "'"};
}

std::string row_text(const float* v, size_t n) {
  std::string s;
  char buf[32];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%s%.6g", i ? " " : "", static_cast<double>(v[i]));
    s += buf;
  }
  return s;
}

status need(const words& w, size_t at_least, const char* usage) {
  if (w.size() < at_least)
    return failure{std::string{"usage: "} + usage};
  return {};
}

status run_create(table_client& client, const words& w, std::ostream& out) {
  if (auto ok = need(w, 3, "create NAME DIM [KEY=VALUE...]"); !ok)
    return ok;
  table_spec spec;
  spec.name = w[1];
  auto dim = parse_count("DIM", w[2]);
  if (!dim)
    return failure{dim.error()};
  spec.dim = static_cast<uint32_t>(std::min<uint64_t>(*dim, uint64_t{max_table_dim} + 1));
  for (size_t i = 3; i < w.size(); ++i) {
    auto eq = w[i].find('=');
    if (eq == std::string::npos)
      return failure{"'" + w[i] + "' is not KEY=VALUE (rows, layout, storage, init, scale, seed, optimizer, lr)"};
    const std::string key = w[i].substr(0, eq), value = w[i].substr(eq + 1);
    if (key == "rows") {
      auto n = parse_count("rows", value);
      if (!n)
        return failure{n.error()};
      spec.kind = table_kind::matrix;
      spec.rows = *n;
    } else if (key == "seed") {
      auto n = parse_count("seed", value);
      if (!n)
        return failure{n.error()};
      spec.seed = *n;
    } else if (key == "layout") {
      auto l = parse_table_layout(value);
      if (!l)
        return failure{l.error()};
      spec.layout = *l;
    } else if (key == "storage") {
      if (value != "dense" && value != "lazy")
        return failure{"storage is dense or lazy, not '" + value + "'"};
      spec.dense = value == "dense";
    } else if (key == "init") {
      auto i = parse_table_init(value);
      if (!i)
        return failure{i.error()};
      spec.init = *i;
    } else if (key == "optimizer") {
      auto o = parse_table_optimizer(value);
      if (!o)
        return failure{o.error()};
      spec.optimizer = *o;
    } else if (key == "scale" || key == "lr") {
      auto x = parse_float(key, value);
      if (!x)
        return failure{x.error()};
      (key == "scale" ? spec.init_scale : spec.learning_rate) = *x;
    } else {
      return failure{"unknown setting '" + key + "' (rows, layout, storage, init, scale, seed, optimizer, lr)"};
    }
  }
  auto t = client.open(spec);
  if (!t)
    return failure{t.error()};
  out << "table " << spec.name << ": " << describe(spec) << ", on " << client.shards() << " shards\n";
  return {};
}

status run_list(table_client& client, std::ostream& out) {
  auto infos = client.list();
  if (!infos)
    return failure{infos.error()};
  // One line per table: rows held (the most any shard holds in the columns
  // layout, where every shard holds every row; the sum otherwise), memory summed.
  std::map<std::string, std::pair<table_info, std::pair<uint64_t, uint64_t>>> tables;
  for (auto& info : *infos) {
    auto& [first, totals] = tables.try_emplace(info.spec.name, info, std::pair<uint64_t, uint64_t>{0, 0}).first->second;
    totals.first =
      info.spec.layout == table_layout::columns ? std::max(totals.first, info.rows) : totals.first + info.rows;
    totals.second += info.memory_bytes;
  }
  if (tables.empty()) {
    out << "no tables\n";
    return {};
  }
  std::vector<std::vector<std::string>> rows;
  for (auto& [name, entry] : tables)
    rows.push_back(
      {name, describe(entry.first.spec), std::to_string(entry.second.first), human_bytes(entry.second.second)});
  out << render_table({"table", "spec", "rows", "memory"}, rows);
  return {};
}

status run_info(table& t, const words& w, std::ostream& out) {
  auto infos = t.info();
  if (!infos)
    return failure{infos.error()};
  out << "table " << t.name() << ": " << describe(t.spec()) << "\n";
  std::vector<std::vector<std::string>> rows;
  for (auto& i : *infos)
    rows.push_back({std::to_string(i.shard),
                    std::to_string(i.first_column) + ".." + std::to_string(i.first_column + i.width),
                    std::to_string(i.rows), human_bytes(i.memory_bytes)});
  out << render_table({"shard", "columns", "rows", "memory"}, rows);
  return {};
}

status run_get(table& t, const words& w, std::ostream& out) {
  std::vector<uint64_t> keys;
  for (size_t i = 2; i < w.size(); ++i)
    keys.push_back(parse_key(w[i]));
  auto values = t.get(keys);
  if (!values)
    return failure{values.error()};
  for (size_t i = 0; i < keys.size(); ++i)
    out << w[2 + i] << " " << row_text(values->data() + i * t.spec().dim, t.spec().dim) << "\n";
  return {};
}

status run_put_or_push(table& t, const words& w, std::ostream& out) {
  const bool push = w[0] == "push";
  if (w.size() - 3 != t.spec().dim)
    return failure{"table " + t.name() + " has " + std::to_string(t.spec().dim) + " floats per row; " +
                   std::to_string(w.size() - 3) + " given"};
  std::vector<float> values;
  for (size_t i = 3; i < w.size(); ++i) {
    auto x = parse_float("a value", w[i]);
    if (!x)
      return failure{x.error()};
    values.push_back(*x);
  }
  const uint64_t key = parse_key(w[2]);
  status done =
    push ? t.push(std::span<const uint64_t>{&key, 1}, values) : t.put(std::span<const uint64_t>{&key, 1}, values);
  if (!done)
    return done;
  out << (push ? "pushed " : "put ") << w[2] << "\n";
  return {};
}

status run_fetch(table& t, const words& w, std::ostream& out) {
  const uint64_t key = parse_key(w[2]);
  auto rows = t.fetch(std::span<const uint64_t>{&key, 1});
  if (!rows)
    return failure{rows.error()};
  const auto& row = (*rows)[0];
  const uint32_t dim = t.spec().dim;
  out << "value " << row_text(row.value.data(), dim) << "\n";
  const char* names[] = {"G", "m", "s"};
  const bool adam = t.spec().optimizer == table_optimizer::adam;
  for (size_t k = 0; k * dim < row.slots.size(); ++k)
    out << "slot " << names[adam ? 1 + k : k] << " " << row_text(row.slots.data() + k * dim, dim) << "\n";
  if (adam)
    out << "step " << row.step << "\n";
  return {};
}

// Every row, as word2vec's text format with the key in the word's place
// (gensim's KeyedVectors loads it). The header's row count is known only at
// the end: it is written padded and filled in then.
status run_export(table& t, const words& w, std::ostream& out) {
  auto file = atomic_file::create(w[2]);
  if (!file)
    return failure{file.error()};
  std::FILE* f = file->stream();
  const uint32_t dim = t.spec().dim;
  std::fprintf(f, "%-20s %u\n", "0", dim);
  uint64_t rows = 0;
  auto visited = t.for_each_row([&](uint64_t key, const float* row) {
    std::fprintf(f, "%llu %s\n", static_cast<unsigned long long>(key), row_text(row, dim).c_str());
    ++rows;
  });
  if (!visited)
    return visited;
  std::fseek(f, 0, SEEK_SET);
  std::fprintf(f, "%-20llu", static_cast<unsigned long long>(rows));
  if (auto done = file->commit(); !done)
    return done;
  out << rows << " rows of table " << w[1] << " written to " << w[2] << "\n";
  return {};
}

status run_save(table& t, const words& w, std::ostream& out) {
  if (auto done = t.save(); !done)
    return done;
  out << "table " << t.name() << " saved by " << t.shards() << " shards\n";
  return {};
}

status run_drop(table& t, const words& w, std::ostream& out) {
  if (auto done = t.drop(); !done)
    return done;
  out << "table " << t.name() << " dropped from " << t.shards() << " shards\n";
  return {};
}

// The commands on one table: at least `min_words` words (the command's,
// the table's name, its arguments), `usage` otherwise; `run` gets the table.
struct table_command {
  std::string_view name;
  size_t min_words;
  const char* usage;
  status (*run)(table& t, const words& w, std::ostream& out);
};

const table_command on_a_table[] = {
  {"info", 2, "info NAME", run_info},
  {"get", 3, "get NAME KEY...", run_get},
  {"put", 4, "put NAME KEY V1 ... Vdim", run_put_or_push},
  {"push", 4, "push NAME KEY G1 ... Gdim", run_put_or_push},
  {"fetch", 3, "fetch NAME KEY", run_fetch},
  {"save", 2, "save NAME", run_save},
  {"export", 3, "export NAME FILE", run_export},
  {"drop", 2, "drop NAME", run_drop},
};

} // namespace

status run_table_command(table_client& client, const std::vector<std::string>& w, std::ostream& out) {
  if (w.empty())
    return failure{"which table command? (list, create, info, get, put, push, fetch, save, export, drop)"};
  const std::string& c = w[0];
  if (c == "list")
    return run_list(client, out);
  if (c == "create")
    return run_create(client, w, out);
  for (const auto& command : on_a_table)
    if (command.name == c) {
      if (auto ok = need(w, command.min_words, command.usage); !ok)
        return ok;
      auto t = client.find(w[1]);
      if (!t)
        return failure{t.error()};
      return command.run(*t, w, out);
    }
  return failure{"unknown table command '" + c + "' (list, create, info, get, put, push, fetch, save, export, drop)"};
}

} // namespace gridvec
