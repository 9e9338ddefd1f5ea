// _gridvec.TableClient and _gridvec.Table: the parameter server's tables on
// a running cluster (docs/tables.md), through the client of
// <gridvec/tables.hpp>, with numpy arrays for keys (uint64) and rows
// (float32, keys x dim).
#include "python/src/cluster_session.hpp"

#include <pybind11/stl.h>

#include <gridvec/tables.hpp>

namespace gridvec::python {

namespace {

using keys_array = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>;
using rows_input = py::array_t<float, py::array::c_style | py::array::forcecast>;

std::span<const uint64_t> key_span(const keys_array& keys) {
  if (keys.ndim() != 1)
    throw py::value_error("keys must be one-dimensional, not of shape with " + std::to_string(keys.ndim()) +
                          " dimensions");
  return {keys.data(), static_cast<size_t>(keys.shape(0))};
}

// The table client and the session it lives in; the lock makes Python
// threads take turns (the client owns one scoped actor).
struct tables_core {
  std::shared_ptr<cluster_session> session;
  std::unique_ptr<table_client> client;
  std::mutex mutex;

  ~tables_core() { client.reset(); } // before the session may drop the actor system

  template <class F>
  auto call(F&& request) {
    py::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> one_at_a_time{mutex};
    return request();
  }
};

py::dict spec_dict(const table_spec& s) {
  py::dict d;
  d["name"] = s.name;
  d["kind"] = std::string{to_string(s.kind)};
  d["rows"] = s.rows;
  d["dim"] = s.dim;
  d["layout"] = std::string{to_string(s.layout)};
  d["dense"] = s.dense;
  d["init"] = std::string{to_string(s.init)};
  d["scale"] = s.init_scale;
  d["seed"] = s.seed;
  d["optimizer"] = std::string{to_string(s.optimizer)};
  d["lr"] = s.learning_rate;
  d["beta1"] = s.beta1;
  d["beta2"] = s.beta2;
  d["epsilon"] = s.epsilon;
  d["description"] = describe(s);
  return d;
}

py::dict info_dict(const table_info& i) {
  py::dict d;
  d["name"] = i.spec.name;
  d["shard"] = i.shard;
  d["shards"] = i.shards;
  d["first_column"] = i.first_column;
  d["width"] = i.width;
  d["rows"] = i.rows;
  d["memory_bytes"] = i.memory_bytes;
  d["description"] = describe(i.spec);
  return d;
}

py::list info_list(const std::vector<table_info>& infos) {
  py::list out;
  for (const auto& i : infos)
    out.append(info_dict(i));
  return out;
}

py::array_t<bool> bool_array(const std::vector<bool>& flags) {
  py::array_t<bool> out(static_cast<py::ssize_t>(flags.size()));
  auto view = out.mutable_unchecked<1>();
  for (size_t i = 0; i < flags.size(); ++i)
    view(static_cast<py::ssize_t>(i)) = flags[i];
  return out;
}

class py_table {
public:
  py_table(std::shared_ptr<tables_core> core, table t) : core_(std::move(core)), table_(std::move(t)) {}

  std::string name() const { return table_.name(); }
  uint32_t dim() const { return table_.spec().dim; }
  py::dict spec() const { return spec_dict(table_.spec()); }

  py::array_t<float> get(const keys_array& keys) {
    auto k = key_span(keys);
    auto rows = take(core_->call([&] { return table_.get(k); }));
    return rows_array(std::move(rows), k.size(), dim());
  }
  void put(const keys_array& keys, const rows_input& values) {
    auto k = key_span(keys);
    auto v = row_span(values, k.size(), "values");
    check(core_->call([&] { return table_.put(k, v); }));
  }
  py::array_t<bool> set_if_absent(const keys_array& keys, const rows_input& values) {
    auto k = key_span(keys);
    auto v = row_span(values, k.size(), "values");
    return bool_array(take(core_->call([&] { return table_.set_if_absent(k, v); })));
  }
  py::array_t<bool> remove(const keys_array& keys) {
    auto k = key_span(keys);
    return bool_array(take(core_->call([&] { return table_.remove(k); })));
  }
  void push(const keys_array& keys, const rows_input& gradients) {
    auto k = key_span(keys);
    auto g = row_span(gradients, k.size(), "gradients");
    check(core_->call([&] { return table_.push(k, g); }));
  }
  void add(const keys_array& keys, const rows_input& deltas) {
    auto k = key_span(keys);
    auto d = row_span(deltas, k.size(), "deltas");
    check(core_->call([&] { return table_.add(k, d); }));
  }
  // Values (keys x dim), optimizer slots (keys x slots x dim: adagrad's G,
  // adam's m and s) and adam's step counts, as arrays.
  py::tuple fetch(const keys_array& keys) {
    auto k = key_span(keys);
    auto rows = take(core_->call([&] { return table_.fetch(k); }));
    const size_t d = dim(), slots = slots_per_column(table_.spec().optimizer);
    std::vector<float> values(rows.size() * d), slot_values(rows.size() * slots * d);
    py::array_t<uint32_t> steps(static_cast<py::ssize_t>(rows.size()));
    auto step_view = steps.mutable_unchecked<1>();
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].value.size() != d || rows[i].slots.size() != slots * d)
        throw gridvec_error("table " + name() + ": a shard answered fetch with a row of the wrong width");
      std::copy(rows[i].value.begin(), rows[i].value.end(), values.begin() + static_cast<std::ptrdiff_t>(i * d));
      std::copy(rows[i].slots.begin(), rows[i].slots.end(),
                slot_values.begin() + static_cast<std::ptrdiff_t>(i * slots * d));
      step_view(static_cast<py::ssize_t>(i)) = rows[i].step;
    }
    return py::make_tuple(rows_array(std::move(values), rows.size(), d),
                          owned_array(std::move(slot_values), {rows.size(), slots, d}), steps);
  }
  py::array_t<double> dot(const keys_array& a, const keys_array& b) {
    auto x = key_span(a), y = key_span(b);
    auto d = take(core_->call([&] { return table_.dot(x, y); }));
    py::array_t<double> out(static_cast<py::ssize_t>(d.size()));
    std::copy(d.begin(), d.end(), out.mutable_data());
    return out;
  }
  void axpy(float alpha, const keys_array& x, const keys_array& y) {
    auto a = key_span(x), b = key_span(y);
    check(core_->call([&] { return table_.axpy(alpha, a, b); }));
  }
  void scal(float alpha, const keys_array& keys) {
    auto k = key_span(keys);
    check(core_->call([&] { return table_.scal(alpha, k); }));
  }
  void copy(const keys_array& from, const keys_array& to) {
    auto a = key_span(from), b = key_span(to);
    check(core_->call([&] { return table_.copy(a, b); }));
  }
  py::array_t<double> reduce(const std::string& what) {
    auto r = take(core_->call([&] { return table_.reduce(what); }));
    py::array_t<double> out(static_cast<py::ssize_t>(r.size()));
    std::copy(r.begin(), r.end(), out.mutable_data());
    return out;
  }
  py::list info() {
    return info_list(take(core_->call([&] { return table_.info(); })));
  }
  void save() {
    check(core_->call([&] { return table_.save(); }));
  }
  void drop() {
    check(core_->call([&] { return table_.drop(); }));
  }

private:
  // keys.size() x dim floats: an array of that shape, or flat.
  std::span<const float> row_span(const rows_input& values, size_t keys, const char* what) const {
    const size_t d = dim();
    const bool shaped =
      values.ndim() == 2 && static_cast<size_t>(values.shape(0)) == keys && static_cast<size_t>(values.shape(1)) == d;
    const bool flat = values.ndim() == 1 && static_cast<size_t>(values.shape(0)) == keys * d;
    if (!shaped && !flat)
      throw py::value_error(std::string{what} + " must have shape (" + std::to_string(keys) + ", " + std::to_string(d) +
                            "): one row of " + std::to_string(d) + " floats per key");
    return {values.data(), keys * d};
  }

  std::shared_ptr<tables_core> core_;
  table table_;
};

template <class E>
E parse_enum(expected<E> parsed) {
  if (!parsed)
    throw py::value_error(parsed.error());
  return *parsed;
}

class py_tables {
public:
  explicit py_tables(std::shared_ptr<tables_core> core) : core_(std::move(core)) {}

  uint32_t shards() const { return core_->client->shards(); }

  // As the shell's `table create`: a table with rows is a matrix, else a map.
  py_table open(const std::string& name, uint32_t dim, uint64_t rows, const std::string& layout, bool dense,
                const std::string& init, float scale, uint64_t seed, const std::string& optimizer, float lr,
                float beta1, float beta2, float epsilon) {
    table_spec spec;
    spec.name = name;
    spec.dim = dim;
    spec.kind = rows > 0 ? table_kind::matrix : table_kind::map;
    spec.rows = rows;
    spec.layout = parse_enum(parse_table_layout(layout));
    spec.dense = dense;
    spec.init = parse_enum(parse_table_init(init));
    spec.init_scale = scale;
    spec.seed = seed;
    spec.optimizer = parse_enum(parse_table_optimizer(optimizer));
    spec.learning_rate = lr;
    spec.beta1 = beta1;
    spec.beta2 = beta2;
    spec.epsilon = epsilon;
    if (auto ok = validate_table_spec(spec); !ok)
      throw py::value_error(ok.error());
    return py_table{core_, take(core_->call([&] { return core_->client->open(spec); }))};
  }

  py_table find(const std::string& name) {
    return py_table{core_, take(core_->call([&] { return core_->client->find(name); }))};
  }

  py::list list() {
    return info_list(take(core_->call([&] { return core_->client->list(); })));
  }

private:
  std::shared_ptr<tables_core> core_;
};

} // namespace

py::object open_tables(const std::shared_ptr<cluster_session>& session, double timeout) {
  auto core = std::make_shared<tables_core>();
  core->session = session;
  auto shards = core->call([&] { return connect_table_shards(*session->sys, session->config); });
  if (!shards)
    throw gridvec_error(shards.error());
  core->client = std::make_unique<table_client>(*session->sys, std::move(*shards),
                                                std::chrono::milliseconds(static_cast<int64_t>(timeout * 1000)));
  return py::cast(py_tables{std::move(core)});
}

void bind_tables(py::module_& m) {
  m.def(
    "table_key", [](const std::string& text) { return table_key(text); }, py::arg("text"),
    "The 64-bit key of a string key of a map table (FNV-1a of its bytes).");
  py::class_<py_tables>(m, "TableClient")
    .def_property_readonly("shards", &py_tables::shards)
    .def("open", &py_tables::open, py::arg("name"), py::arg("dim"), py::arg("rows") = 0, py::arg("layout") = "rows",
         py::arg("dense") = false, py::arg("init") = "zeros", py::arg("scale") = 0.0f, py::arg("seed") = 1,
         py::arg("optimizer") = "sgd", py::arg("lr") = 0.01f, py::arg("beta1") = 0.9f, py::arg("beta2") = 0.999f,
         py::arg("epsilon") = 1e-8f)
    .def("find", &py_tables::find, py::arg("name"))
    .def("list", &py_tables::list);
  py::class_<py_table>(m, "Table")
    .def_property_readonly("name", &py_table::name)
    .def_property_readonly("dim", &py_table::dim)
    .def_property_readonly("spec", &py_table::spec)
    .def("get", &py_table::get, py::arg("keys"))
    .def("put", &py_table::put, py::arg("keys"), py::arg("values"))
    .def("set_if_absent", &py_table::set_if_absent, py::arg("keys"), py::arg("values"))
    .def("remove", &py_table::remove, py::arg("keys"))
    .def("push", &py_table::push, py::arg("keys"), py::arg("gradients"))
    .def("add", &py_table::add, py::arg("keys"), py::arg("deltas"))
    .def("fetch", &py_table::fetch, py::arg("keys"))
    .def("dot", &py_table::dot, py::arg("a"), py::arg("b"))
    .def("axpy", &py_table::axpy, py::arg("alpha"), py::arg("x"), py::arg("y"))
    .def("scal", &py_table::scal, py::arg("alpha"), py::arg("keys"))
    .def("copy", &py_table::copy, py::arg("source"), py::arg("target"))
    .def("reduce", &py_table::reduce, py::arg("what"))
    .def("info", &py_table::info)
    .def("save", &py_table::save)
    .def("drop", &py_table::drop);
}

} // namespace gridvec::python
