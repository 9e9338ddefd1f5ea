#include "src/table/table_service.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <shared_mutex>

#include <unistd.h>

#include "schema/table.capnp.h"
#include "src/formats/capnp_bytes.hpp"
#include "src/table/slice_file.hpp"
#include <gridvec/core/table_operations.hpp>
#include "src/table/table_wire_spec.hpp"

namespace gridvec {

namespace {

namespace fs = std::filesystem;

// The keys of a request, copied out of the message.
std::vector<uint64_t> keys_of(capnp::List<uint64_t>::Reader list) {
  std::vector<uint64_t> keys;
  get_list(list, keys);
  return keys;
}

// One reply: `fill` sets its root; `words` sizes the first segment so that
// one segment holds it.
template <class Fill>
wire_bytes make_reply(size_t words, Fill&& fill) {
  wire_message message(static_cast<unsigned>(16 + words));
  auto& builder = message.builder();
  fill(builder.initRoot<wire::TableReply>());
  return message.finish();
}

wire_bytes error_reply(const failure& why) {
  return make_reply(why.message.size() / 8, [&](wire::TableReply::Builder r) {
    r.setError(why.message);
    r.setErrorCode(static_cast<uint8_t>(why.code));
  });
}

wire_bytes done_reply() {
  return make_reply(0, [](wire::TableReply::Builder r) { r.setDone(); });
}

// `count` floats, which `write` puts straight into the reply's bytes (a
// multi-get is mostly this copy), then whatever `more` sets beside them.
template <class Write, class More>
wire_bytes floats_reply(size_t count, size_t more_words, Write&& write, More&& more) {
  return make_reply(count / 2 + more_words, [&](wire::TableReply::Builder r) {
    auto data = r.initFloats(static_cast<unsigned>(count * sizeof(float)));
    write(reinterpret_cast<float*>(data.begin())); // Data is word-aligned in the message
    more(r);
  });
}

wire_bytes flags_reply(const std::vector<uint8_t>& flags) {
  return make_reply(flags.size() / 8, [&](wire::TableReply::Builder r) {
    copy_into(r.initFlags(static_cast<unsigned>(flags.size())), flags.data(), flags.size());
  });
}

wire_bytes sums_reply(const std::vector<double>& sums) {
  return make_reply(
    sums.size(), [&](wire::TableReply::Builder r) { set_list(r.initSums(static_cast<unsigned>(sums.size())), sums); });
}

wire_bytes result_reply(const wire_bytes& result) {
  return make_reply(result.size() / 8, [&](wire::TableReply::Builder r) {
    copy_into(r.initResult(static_cast<unsigned>(result.size())), result.data(), result.size());
  });
}

wire_bytes tables_reply(const std::vector<table_info>& infos) {
  return make_reply(infos.size() * 32, [&](wire::TableReply::Builder r) {
    auto list = r.initTables(static_cast<unsigned>(infos.size()));
    for (unsigned i = 0; i < infos.size(); ++i)
      write_table_info(list[i], infos[i]);
  });
}

// The bounds every keyed request is held to, then the slice's own check.
status check_request(const table_slice& slice, size_t keys, uint32_t floats_per_key) {
  if (keys > max_request_keys)
    return failure{"table " + slice.spec().name + ": " + std::to_string(keys) + " keys in one request, more than " +
                   std::to_string(max_request_keys)};
  if (keys * uint64_t{floats_per_key} > max_request_floats)
    return failure{"table " + slice.spec().name + ": " + std::to_string(keys) + " keys of " +
                   std::to_string(floats_per_key) + " floats is more than one request may touch (" +
                   std::to_string(max_request_floats) + " floats); split it"};
  return {};
}

// The values of a KeyValues request, checked against the keys: the floats
// where they lie in the message (Data is word-aligned), valid while it is.
expected<const float*> values_of(const table_slice& slice, wire::KeyValues::Reader kv) {
  auto data = kv.getValues();
  const uint64_t expect = uint64_t{kv.getKeys().size()} * slice.width() * sizeof(float);
  if (data.size() != expect)
    return failure{"table " + slice.spec().name + ": " + std::to_string(data.size()) + " bytes of values for " +
                   std::to_string(kv.getKeys().size()) + " keys of " + std::to_string(slice.width()) +
                   " floats (expected " + std::to_string(expect) + ")"};
  return reinterpret_cast<const float*>(data.begin());
}

} // namespace

table_service::table_service(uint32_t shard, uint32_t shards, std::string dir, uint64_t dense_limit)
  : shard_(shards == 0 ? 0 : shard), shards_(shards), dir_(std::move(dir)), dense_limit_(dense_limit),
    was_spare_(shards == 0) {}

table_info table_service::info_of(const table_slice& slice) const {
  table_info info;
  info.spec = slice.spec();
  info.shard = shard_;
  info.shards = shards_;
  info.first_column = slice.first_column();
  info.width = slice.width();
  info.stride = slice.stride();
  info.rows = slice.rows();
  info.memory_bytes = slice.memory_bytes();
  return info;
}

std::vector<table_info> table_service::tables() const {
  std::shared_lock map_lock(map_mode_);
  return tables_locked();
}

std::vector<table_info> table_service::tables_locked() const {
  std::vector<table_info> out;
  for (auto& [name, entry] : tables_) {
    std::shared_lock lock(entry->mode);
    out.push_back(info_of(*entry->slice));
  }
  return out;
}

bool table_service::took_over(uint32_t& shard, uint32_t& shards, std::vector<std::string>& lines) {
  std::unique_lock map_lock(map_mode_);
  if (!take_over_unreported_)
    return false;
  take_over_unreported_ = false;
  shard = shard_;
  shards = shards_;
  lines = std::move(take_over_lines_);
  return true;
}

std::vector<std::string> table_service::restore() {
  std::unique_lock map_lock(map_mode_);
  return restore_locked();
}

std::vector<std::string> table_service::restore_locked() {
  std::vector<std::string> lines;
  std::error_code ec;
  if (spare() || dir_.empty() || !fs::is_directory(dir_, ec))
    return lines;
  for (auto& entry : fs::directory_iterator(dir_, ec)) {
    if (!entry.is_directory())
      continue;
    const std::string name = entry.path().filename().string();
    // The newest of the table's save slots: its last save (a checkpointing
    // client then loads the slot of its last whole checkpoint itself).
    std::vector<std::pair<fs::file_time_type, uint32_t>> saves;
    for (uint32_t slot = 0; slot < max_table_slots; ++slot) {
      std::error_code missing;
      const auto when = fs::last_write_time(table_slice_path(dir_, name, shard_, shards_, slot), missing);
      if (!missing)
        saves.emplace_back(when, slot);
    }
    std::sort(saves.rbegin(), saves.rend());
    if (saves.empty()) {
      // Slices saved by a cluster of another size cannot be split anew.
      for (auto& file : fs::directory_iterator(entry.path(), ec))
        if (file.path().extension() == ".slice") {
          lines.push_back("table " + name + " not restored: " + entry.path().string() + " holds slices of " +
                          file.path().filename().string() + ", and this cluster has " + std::to_string(shards_) +
                          " table shards");
          break;
        }
      continue;
    }
    // A damaged newest save falls back to an older slot; the newest's
    // error is the line when none reads.
    std::string why;
    for (const auto& [when, slot] : saves) {
      const std::string path = table_slice_path(dir_, name, shard_, shards_, slot);
      auto slice = read_table_slice(path);
      if (slice && ((*slice)->spec().name != name || (*slice)->shard() != shard_ || (*slice)->shards() != shards_))
        slice = failure{path + " holds another table or shard"};
      if (!slice) {
        if (why.empty())
          why = slice.error();
        continue;
      }
      lines.push_back("table " + name + " restored from " + path + " (" + std::to_string((*slice)->rows()) + " rows)" +
                      (why.empty() ? "" : "; a newer save did not read: " + why));
      auto table = std::make_shared<table_entry>();
      table->slice = std::move(*slice);
      tables_[name] = std::move(table);
      why.clear();
      break;
    }
    if (!why.empty())
      lines.push_back("table " + name + " not restored: " + why);
  }
  return lines;
}

uint64_t default_dense_limit() { return uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE)) / 2; }

status dense_slice_fits(const table_spec& spec, uint32_t shards, uint64_t limit) {
  if (spec.rows > max_slice_rows)
    return failure{"table " + spec.name + ": a dense matrix has at most " + std::to_string(max_slice_rows) +
                   " rows, not " + std::to_string(spec.rows)};
  // The widest shard's columns.
  const uint32_t width = spec.layout == table_layout::columns ? (spec.dim + shards - 1) / shards : spec.dim;
  const double bytes = double(spec.rows) * width * (1 + slots_per_column(spec.optimizer)) * sizeof(float);
  if (bytes > double(limit))
    return failure{"table " + spec.name + ": a dense slice of " + std::to_string(uint64_t(bytes) >> 20) +
                   " MiB is more than this shard allows (" + std::to_string(limit >> 20) +
                   " MiB); make it lazy or use more shards"};
  return {};
}

wire_bytes table_service::handle(const wire_bytes& request) {
  requests_.fetch_add(1, std::memory_order_relaxed);
  wire_bytes reply;
  auto run = [&](wire::TableRequest::Reader r) -> status {
    const std::string name = r.getTable().cStr();
    using R = wire::TableRequest;
    const auto what = r.which();
    // The locks (table_service.hpp): the map exclusive for the requests that
    // change it, else shared; then the table shared for per-key requests,
    // exclusive for the rest.
    const bool changes_map = what == R::TAKE_OVER || what == R::CREATE || what == R::DROP || what == R::LOAD;
    const bool per_key = what == R::GET || what == R::FETCH || what == R::PUT || what == R::PUSH || what == R::ADD ||
                         what == R::SPARSE_GET || what == R::SPARSE_ADD || what == R::LOOKUP || what == R::INFO;
    std::unique_lock map_exclusive(map_mode_, std::defer_lock);
    std::shared_lock map_shared(map_mode_, std::defer_lock);
    if (changes_map)
      map_exclusive.lock();
    else
      map_shared.lock();
    if (what == R::TAKE_OVER) {
      const uint32_t shard = r.getTakeOver().getShard(), shards = r.getTakeOver().getShards();
      if (!was_spare_)
        return failure{"table shard " + std::to_string(shard_) + " of " + std::to_string(shards_) +
                       " is not a standby's spare; it takes over no other shard"};
      if (!spare()) {
        if (shard == shard_ && shards == shards_) {
          reply = done_reply();
          return {};
        }
        return failure{"this standby took over table shard " + std::to_string(shard_) + " of " +
                       std::to_string(shards_) + " already"};
      }
      if (shards == 0 || shard >= shards)
        return failure{"there is no table shard " + std::to_string(shard) + " of " + std::to_string(shards)};
      shard_ = shard;
      shards_ = shards;
      take_over_lines_ = restore_locked();
      take_over_unreported_ = true;
      reply = done_reply();
      return {};
    }
    if (spare())
      return failure{"this is a standby node's spare table shard: it holds no tables until it takes over a lost one"};
    if (r.which() == R::LIST) {
      reply = tables_reply(tables_locked());
      return {};
    }
    if (r.which() == R::CREATE) {
      table_spec spec = read_table_spec(r.getCreate());
      if (spec.name != name)
        return failure{"create: the request names table '" + name + "' and its spec '" + spec.name + "'"};
      if (auto valid = validate_table_spec(spec); !valid)
        return valid;
      if (spec.layout == table_layout::columns && spec.dim < shards_)
        return failure{"table " + name + ": " + std::to_string(spec.dim) + " columns cannot be split over " +
                       std::to_string(shards_) + " shards (columns layout)"};
      if (auto it = tables_.find(name); it != tables_.end()) {
        if (it->second->slice->spec() == spec) {
          reply = done_reply();
          return {};
        }
        return failure{"table " + name + " exists as " + describe(it->second->slice->spec()) + ", not " +
                       describe(spec)};
      }
      if (tables_.size() >= max_tables)
        return failure{"this shard holds " + std::to_string(max_tables) + " tables already; drop one first"};
      if (spec.dense)
        if (auto fits = dense_slice_fits(spec, shards_, dense_limit_); !fits)
          return fits;
      auto entry = std::make_shared<table_entry>();
      entry->slice = std::make_shared<table_slice>(spec, shard_, shards_);
      tables_[name] = std::move(entry);
      reply = done_reply();
      return {};
    }
    auto it = tables_.find(name);
    if (it == tables_.end())
      return failure{"no table '" + name + "' on shard " + std::to_string(shard_), error_code::not_found};
    table_entry& entry = *it->second;
    std::unique_lock table_exclusive(entry.mode, std::defer_lock);
    std::shared_lock table_shared(entry.mode, std::defer_lock);
    if (per_key)
      table_shared.lock();
    else if (!changes_map) // drop and load hold the whole map
      table_exclusive.lock();
    table_slice& slice = *entry.slice;
    const uint32_t width = slice.width();
    // A per-key request runs shared only if all its rows exist; one that
    // creates rows (the index and pages grow) runs with the table to itself,
    // as the whole-table requests do.
    auto ensure_rows = [&](std::span<const uint64_t> keys) {
      if (table_shared.owns_lock() && !slice.has_rows(keys)) {
        table_shared.unlock();
        table_exclusive.lock();
      }
    };
    // Keys, checked for bounds and ownership.
    auto checked = [&](std::vector<uint64_t> keys, uint32_t floats_per_key) -> expected<std::vector<uint64_t>> {
      if (auto ok = check_request(slice, keys.size(), floats_per_key); !ok)
        return failure{ok.error()};
      // Rows are numbered with 32 bits on a shard (key_index); counted as
      // if every key were new, which only matters near the limit.
      if (!slice.spec().dense && slice.rows() + keys.size() > max_slice_rows)
        return failure{"table " + name + ": shard " + std::to_string(shard_) + " holds " +
                       std::to_string(slice.rows()) + " rows, near the most one shard may hold (" +
                       std::to_string(max_slice_rows) + "); use more shards"};
      if (auto ok = slice.check_keys(keys); !ok)
        return failure{ok.error()};
      return keys;
    };
    auto pairs = [&](wire::KeyPairs::Reader p) -> expected<std::pair<std::vector<uint64_t>, std::vector<uint64_t>>> {
      if (p.getA().size() != p.getB().size())
        return failure{"table " + name + ": " + std::to_string(p.getA().size()) + " left keys and " +
                       std::to_string(p.getB().size()) + " right keys"};
      auto a = checked(keys_of(p.getA()), 2 * slice.stride());
      if (!a)
        return failure{a.error()};
      auto b = checked(keys_of(p.getB()), 0);
      if (!b)
        return failure{b.error()};
      return std::make_pair(std::move(*a), std::move(*b));
    };
    // Column numbers of a sparse request: each one this shard's.
    auto columns_of = [&](capnp::List<uint32_t>::Reader list) -> expected<std::vector<uint32_t>> {
      std::vector<uint32_t> indices;
      get_list(list, indices);
      const uint64_t first = slice.first_column(), end = first + width;
      for (uint32_t c : indices)
        if (c < first || c >= end)
          return failure{"table " + name + ": column " + std::to_string(c) + " is not on shard " +
                         std::to_string(shard_) + " (it holds columns " + std::to_string(first) + " to " +
                         std::to_string(end - 1) + " of " + std::to_string(slice.spec().dim) + ")"};
      return indices;
    };
    switch (r.which()) {
      case R::GET: {
        auto keys = checked(keys_of(r.getGet()), slice.stride());
        if (!keys)
          return failure{keys.error()};
        ensure_rows(*keys);
        reply = floats_reply(
          keys->size() * width, 0, [&](float* out) { slice.get(*keys, out); }, [](wire::TableReply::Builder) {});
        return {};
      }
      case R::FETCH: {
        auto keys = checked(keys_of(r.getFetch()), slice.stride());
        if (!keys)
          return failure{keys.error()};
        std::vector<uint32_t> steps(keys->size());
        ensure_rows(*keys);
        reply = floats_reply(
          keys->size() * slice.stride(), steps.size(), [&](float* out) { slice.fetch(*keys, out, steps.data()); },
          [&](wire::TableReply::Builder r) { set_list(r.initSteps(static_cast<unsigned>(steps.size())), steps); });
        return {};
      }
      case R::REMOVE: {
        auto keys = checked(keys_of(r.getRemove()), 0);
        if (!keys)
          return failure{keys.error()};
        std::vector<uint8_t> flags;
        slice.remove(*keys, flags);
        reply = flags_reply(flags);
        return {};
      }
      case R::PUT:
      case R::SET_IF_ABSENT:
      case R::PUSH:
      case R::ADD: {
        auto kv = r.which() == R::PUT             ? r.getPut()
                  : r.which() == R::SET_IF_ABSENT ? r.getSetIfAbsent()
                  : r.which() == R::PUSH          ? r.getPush()
                                                  : r.getAdd();
        auto keys = checked(keys_of(kv.getKeys()), slice.stride());
        if (!keys)
          return failure{keys.error()};
        auto values = values_of(slice, kv);
        if (!values)
          return failure{values.error()};
        if (r.which() == R::SET_IF_ABSENT) {
          std::vector<uint8_t> flags;
          slice.set_if_absent(*keys, *values, flags);
          reply = flags_reply(flags);
          return {};
        }
        ensure_rows(*keys);
        if (r.which() == R::PUT)
          slice.put(*keys, *values);
        else if (r.which() == R::PUSH)
          slice.push(*keys, *values);
        else
          slice.add(*keys, *values);
        reply = done_reply();
        return {};
      }
      case R::DOT:
      case R::COPY:
      case R::AXPY: {
        if (slice.spec().layout != table_layout::columns && shards_ > 1)
          return failure{"table " + name +
                         ": dot, axpy and copy need the columns layout, where every shard holds a "
                         "slice of every row (this table has the rows layout)"};
        auto p = pairs(r.which() == R::DOT ? r.getDot() : r.which() == R::COPY ? r.getCopy() : r.getAxpy().getPairs());
        if (!p)
          return failure{p.error()};
        auto& [a, b] = *p;
        if (r.which() == R::DOT) {
          std::vector<double> out(a.size());
          slice.dot(a, b, out.data());
          reply = sums_reply(out);
          return {};
        }
        if (r.which() == R::COPY)
          slice.copy(a, b);
        else
          slice.axpy(r.getAxpy().getAlpha(), a, b);
        reply = done_reply();
        return {};
      }
      case R::SCAL: {
        auto keys = checked(keys_of(r.getScal().getKeys()), slice.stride());
        if (!keys)
          return failure{keys.error()};
        slice.scal(r.getScal().getAlpha(), *keys);
        reply = done_reply();
        return {};
      }
      case R::REDUCE: {
        std::vector<double> out;
        if (!slice.reduce(r.getReduce().cStr(), out))
          return failure{"table " + name + ": unknown reduction '" + std::string{r.getReduce().cStr()} +
                         "' (sum, sumsq or count)"};
        reply = sums_reply(out);
        return {};
      }
      case R::CALL: {
        const std::string op_name = r.getCall().getOperation().cStr();
        auto op = find_table_operation(op_name);
        if (!op)
          return failure{"no table operation '" + op_name + "' on shard " + std::to_string(shard_),
                         error_code::not_found};
        wire_bytes args;
        copy_from(r.getCall().getArgs(), args);
        expected<wire_bytes> result = failure{""};
        try {
          result = op(slice, args);
        } catch (const std::exception& e) {
          return failure{"table operation '" + op_name + "' failed: " + e.what()};
        }
        if (!result)
          return failure{"table operation '" + op_name + "': " + result.error()};
        reply = result_reply(*result);
        return {};
      }
      case R::SCAN: {
        // At most as many rows as a request may carry.
        const uint64_t limit = std::min<uint64_t>(
          {r.getScan().getLimit(), max_request_keys, max_request_floats / std::max<uint32_t>(width, 1)});
        if (limit == 0 && r.getScan().getLimit() > 0)
          return failure{"table " + name + ": rows of " + std::to_string(width) +
                         " floats on a shard are too long to scan whole; read them by columns (sparse fetch)"};
        std::vector<uint64_t> keys;
        std::vector<float> values;
        const uint64_t next = slice.scan(r.getScan().getCursor(), static_cast<uint32_t>(limit), keys, values);
        reply = floats_reply(
          values.size(), keys.size(), [&](float* out) { std::copy(values.begin(), values.end(), out); },
          [&](wire::TableReply::Builder r) {
            set_list(r.initKeys(static_cast<unsigned>(keys.size())), keys);
            r.setNext(next);
          });
        return {};
      }
      case R::SPARSE_GET: {
        auto sparse = r.getSparseGet();
        auto rows = checked(keys_of(sparse.getRows()), 0);
        if (!rows)
          return failure{rows.error()};
        const size_t n = sparse.getIndices().size();
        // rows x indices floats come back: bounded before anything is made.
        if (n > max_request_keys || rows->size() * uint64_t{n} > max_request_floats)
          return failure{"table " + name + ": " + std::to_string(rows->size()) + " rows x " + std::to_string(n) +
                         " columns is more than one request may read (" + std::to_string(max_request_floats) +
                         " floats); split it"};
        auto indices = columns_of(sparse.getIndices());
        if (!indices)
          return failure{indices.error()};
        ensure_rows(*rows);
        reply = floats_reply(
          rows->size() * n, 0, [&](float* out) { slice.get_columns(*rows, *indices, out); },
          [](wire::TableReply::Builder) {});
        return {};
      }
      case R::SPARSE_ADD: {
        auto sparse = r.getSparseAdd();
        const uint64_t row = sparse.getRow();
        auto keys = checked(std::vector<uint64_t>{row}, 0);
        if (!keys)
          return failure{keys.error()};
        const size_t n = sparse.getIndices().size();
        if (n > max_request_keys)
          return failure{"table " + name + ": " + std::to_string(n) + " columns in one increment, more than " +
                         std::to_string(max_request_keys)};
        if (sparse.getValues().size() != n * sizeof(float))
          return failure{"table " + name + ": " + std::to_string(sparse.getValues().size()) + " bytes of values for " +
                         std::to_string(n) + " columns (expected " + std::to_string(n * sizeof(float)) + ")"};
        auto indices = columns_of(sparse.getIndices());
        if (!indices)
          return failure{indices.error()};
        ensure_rows(*keys);
        // Checked under the lock it is applied under (ensure_rows may have
        // let go of the table for a moment): a fence raised before this
        // point refuses it, one raised after waits for it.
        if (r.getWriter() != 0 && r.getWriter() < entry.fence)
          return failure{"table " + name + ": an increment of writer " + std::to_string(r.getWriter()) +
                         " refused: the table is fenced at " + std::to_string(entry.fence) +
                         " (its writer was given up)"};
        slice.add_columns(row, *indices, reinterpret_cast<const float*>(sparse.getValues().begin()));
        reply = done_reply();
        return {};
      }
      case R::LOOKUP: {
        auto lookup = r.getLookup();
        auto keys = checked(keys_of(lookup.getKeys()), slice.stride());
        if (!keys)
          return failure{keys.error()};
        // Every size is checked before the reply (examples x width) is made.
        const size_t examples = lookup.getCounts().size();
        const size_t n_positions = lookup.getPositions().size();
        if (lookup.getOffsets().size() != examples + 1)
          return failure{"table " + name + ": a lookup of " + std::to_string(examples) + " examples needs " +
                         std::to_string(examples + 1) + " offsets, not " + std::to_string(lookup.getOffsets().size())};
        if (n_positions > max_request_keys || examples * uint64_t{width} > max_request_floats)
          return failure{"table " + name + ": a lookup of " + std::to_string(examples) + " examples and " +
                         std::to_string(n_positions) + " ids is more than one request may hold; split it"};
        std::vector<uint32_t> offsets, positions, counts;
        get_list(lookup.getOffsets(), offsets);
        get_list(lookup.getPositions(), positions);
        get_list(lookup.getCounts(), counts);
        if (offsets[0] != 0 || offsets.back() != n_positions)
          return failure{"table " + name + ": lookup offsets must run from 0 to " + std::to_string(n_positions)};
        for (size_t e = 0; e < examples; ++e)
          if (offsets[e + 1] < offsets[e])
            return failure{"table " + name + ": lookup offsets go down at example " + std::to_string(e)};
        for (uint32_t p : positions)
          if (p >= keys->size())
            return failure{"table " + name + ": lookup position " + std::to_string(p) + " is past its " +
                           std::to_string(keys->size()) + " keys"};
        const auto combiner = lookup.getCombiner();
        if (combiner != wire::Combiner::SUM && combiner != wire::Combiner::MEAN && combiner != wire::Combiner::SQRTN)
          return failure{"table " + name + ": unknown combiner"};
        // Each distinct row is read once, then combined per example.
        std::vector<float> rows(keys->size() * width);
        ensure_rows(*keys);
        slice.get(*keys, rows.data());
        reply = floats_reply(
          examples * width, 0,
          [&](float* out) {
            for (size_t e = 0; e < examples; ++e) {
              float* o = out + e * width;
              std::fill(o, o + width, 0.0f);
              for (uint32_t j = offsets[e]; j < offsets[e + 1]; ++j) {
                const float* row = rows.data() + size_t{positions[j]} * width;
                for (uint32_t c = 0; c < width; ++c)
                  o[c] += row[c];
              }
              const double scale = counts[e] == 0                     ? 0.0
                                   : combiner == wire::Combiner::SUM  ? 1.0
                                   : combiner == wire::Combiner::MEAN ? 1.0 / counts[e]
                                                                      : 1.0 / std::sqrt(double(counts[e]));
              for (uint32_t c = 0; c < width; ++c)
                o[c] = static_cast<float>(o[c] * scale);
            }
          },
          [](wire::TableReply::Builder) {});
        return {};
      }
      case R::FENCE: {
        entry.fence = std::max(entry.fence, r.getFence());
        wire_message message(16);
        auto& builder = message.builder();
        auto done = builder.initRoot<wire::TableReply>();
        done.setDone();
        done.setFence(entry.fence);
        reply = message.finish();
        return {};
      }
      case R::INFO: reply = tables_reply({info_of(slice)}); return {};
      case R::DROP: {
        if (!dir_.empty()) {
          std::error_code ec;
          for (uint32_t slot = 0; slot < max_table_slots; ++slot)
            fs::remove(table_slice_path(dir_, name, shard_, shards_, slot), ec);
        }
        tables_.erase(it);
        reply = done_reply();
        return {};
      }
      case R::SAVE: {
        if (r.getSlot() >= max_table_slots)
          return failure{"table " + name + ": no save slot " + std::to_string(r.getSlot()) + " (there are " +
                         std::to_string(max_table_slots) + ")"};
        if (dir_.empty())
          return failure{"shard " + std::to_string(shard_) +
                         " has no table directory to save to (table-dir in the "
                         "cluster config)"};
        std::error_code ec;
        fs::create_directories(dir_ + "/" + name, ec);
        if (ec)
          return failure{"cannot create " + dir_ + "/" + name + ": " + ec.message()};
        auto written = write_table_slice(table_slice_path(dir_, name, shard_, shards_, r.getSlot()), slice);
        if (!written)
          return failure{written.error()};
        reply = done_reply();
        return {};
      }
      case R::LOAD: {
        // Back to the last save: the slice file replaces the rows held now,
        // and only if it is whole and of this very table and shard.
        if (r.getSlot() >= max_table_slots)
          return failure{"table " + name + ": no save slot " + std::to_string(r.getSlot()) + " (there are " +
                         std::to_string(max_table_slots) + ")"};
        if (dir_.empty())
          return failure{"shard " + std::to_string(shard_) +
                         " has no table directory to load from (table-dir in the cluster config)"};
        const std::string path = table_slice_path(dir_, name, shard_, shards_, r.getSlot());
        auto saved = read_table_slice(path);
        if (!saved)
          return failure{"table " + name + " not loaded: " + saved.error()};
        if (!((*saved)->spec() == slice.spec()) || (*saved)->shard() != shard_ || (*saved)->shards() != shards_)
          return failure{"table " + name + " not loaded: " + path + " holds another table or shard"};
        entry.slice = std::move(*saved);
        reply = done_reply();
        return {};
      }
      default: return failure{"table " + name + ": unknown operation (a newer client?)"};
    }
  };
  auto ran = with_reader<wire::TableRequest>(request, "table request", run);
  if (!ran)
    return error_reply(ran.why());
  return reply;
}

} // namespace gridvec
