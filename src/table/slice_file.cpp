#include "src/table/slice_file.hpp"

#include <cstdio>
#include <cstring>

#include "src/formats/checkpoint.hpp" // crc32
#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

// Version 2 adds a flags byte after the optimizer (bit 0: dense); version
// 1 files still read, as tables without flags.
constexpr char magic[8] = {'G', 'V', 'T', 'A', 'B', 'L', 'E', '2'};
constexpr char magic_v1[8] = {'G', 'V', 'T', 'A', 'B', 'L', 'E', '1'};
constexpr uint8_t dense_flag = 1;

// Appends little-endian fields to a buffer (x86 and ARM are little-endian).
struct field_writer {
  std::string bytes;
  template <class T>
  void put(T x) {
    bytes.append(reinterpret_cast<const char*>(&x), sizeof x);
  }
  void put_raw(const void* p, size_t n) { bytes.append(static_cast<const char*>(p), n); }
};

// Reads fields from a file, keeping the running CRC.
struct field_reader {
  std::FILE* f;
  uint32_t crc = 0;
  bool ok = true;
  bool raw(void* p, size_t n) {
    if (!ok || std::fread(p, 1, n, f) != n)
      return ok = false;
    crc = crc32(p, n, crc);
    return true;
  }
  template <class T>
  T get() {
    T x{};
    raw(&x, sizeof x);
    return x;
  }
};

size_t header_bytes(size_t name_length, bool v1) {
  return 8 + 4 + name_length + 4 + (v1 ? 0 : 1) + 8 + 4 + 4 + 8 + 4 * 4 + 5 * 4 + 8;
}

} // namespace

std::string table_slice_path(const std::string& dir, const std::string& table, uint32_t shard, uint32_t shards,
                             uint32_t slot) {
  return dir + "/" + table + "/shard-" + std::to_string(shard) + "-of-" + std::to_string(shards) +
         (slot == 0 ? "" : ".slot-" + std::to_string(slot)) + ".slice";
}

expected<file_digest> write_table_slice(const std::string& path, const table_slice& slice) {
  auto file = atomic_file::create_own(path, "the table slice");
  if (!file)
    return failure{file.error()};
  const table_spec& s = slice.spec();
  field_writer w;
  w.put_raw(magic, 8);
  w.put(static_cast<uint32_t>(s.name.size()));
  w.put_raw(s.name.data(), s.name.size());
  w.put(static_cast<uint8_t>(s.kind));
  w.put(static_cast<uint8_t>(s.layout));
  w.put(static_cast<uint8_t>(s.init));
  w.put(static_cast<uint8_t>(s.optimizer));
  w.put(static_cast<uint8_t>(s.dense ? dense_flag : 0));
  w.put(s.rows);
  w.put(s.dim);
  w.put(s.init_scale);
  w.put(s.seed);
  w.put(s.learning_rate);
  w.put(s.beta1);
  w.put(s.beta2);
  w.put(s.epsilon);
  for (uint32_t x : {slice.shard(), slice.shards(), slice.first_column(), slice.width(), slice.stride()})
    w.put(x);
  w.put(slice.rows());
  uint32_t crc = 0;
  uint64_t total = 0;
  bool written = true;
  auto flush = [&] {
    crc = crc32(w.bytes.data(), w.bytes.size(), crc);
    total += w.bytes.size();
    written = written && std::fwrite(w.bytes.data(), 1, w.bytes.size(), file->stream()) == w.bytes.size();
    w.bytes.clear();
  };
  flush();
  const size_t row_bytes = size_t{slice.stride()} * sizeof(float);
  slice.for_each([&](uint64_t key, const float* row, uint32_t step) {
    w.put(key);
    w.put(step);
    w.put_raw(row, row_bytes);
    if (w.bytes.size() >= (1u << 20))
      flush();
  });
  flush();
  w.put(crc);
  written = written && std::fwrite(w.bytes.data(), 1, 4, file->stream()) == 4;
  if (!written)
    return failure{"cannot write " + path + ": " + std::strerror(errno)};
  if (auto ok = file->commit(); !ok)
    return failure{ok.error()};
  return file_digest{total + 4, crc};
}

expected<std::unique_ptr<table_slice>> read_table_slice(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    return failure{"cannot read table slice " + path + ": " + std::strerror(errno)};
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer{f, std::fclose};
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  const std::string bad = "table slice " + path + " is damaged or not a table slice";
  field_reader r{f};
  char head[8];
  if (!r.raw(head, 8) || (std::memcmp(head, magic, 8) != 0 && std::memcmp(head, magic_v1, 8) != 0))
    return failure{path + " is not a gridvec table slice"};
  const bool v1 = std::memcmp(head, magic_v1, 8) == 0;
  table_spec s;
  const uint32_t name_length = r.get<uint32_t>();
  if (!r.ok || name_length > max_table_name)
    return failure{bad + " (its table name)"};
  s.name.resize(name_length);
  r.raw(s.name.data(), name_length);
  s.kind = static_cast<table_kind>(r.get<uint8_t>());
  s.layout = static_cast<table_layout>(r.get<uint8_t>());
  s.init = static_cast<table_init>(r.get<uint8_t>());
  s.optimizer = static_cast<table_optimizer>(r.get<uint8_t>());
  const uint8_t flags = v1 ? 0 : r.get<uint8_t>();
  if (flags & ~dense_flag)
    return failure{bad + " (unknown flags)"};
  s.dense = flags & dense_flag;
  s.rows = r.get<uint64_t>();
  s.dim = r.get<uint32_t>();
  s.init_scale = r.get<float>();
  s.seed = r.get<uint64_t>();
  s.learning_rate = r.get<float>();
  s.beta1 = r.get<float>();
  s.beta2 = r.get<float>();
  s.epsilon = r.get<float>();
  uint32_t shard = r.get<uint32_t>(), shards = r.get<uint32_t>(), first = r.get<uint32_t>(), width = r.get<uint32_t>(),
           stride = r.get<uint32_t>();
  const uint64_t rows = r.get<uint64_t>();
  if (!r.ok)
    return failure{bad + " (truncated header)"};
  if (auto valid = validate_table_spec(s); !valid)
    return failure{bad + ": " + valid.error()};
  if (shards == 0 || shard >= shards)
    return failure{bad + " (shard " + std::to_string(shard) + " of " + std::to_string(shards) + ")"};
  const auto columns =
    s.layout == table_layout::columns ? columns_of_shard(s.dim, shard, shards) : column_range{0, s.dim};
  if (columns.first != first || columns.width != width || stride != width * (1 + slots_per_column(s.optimizer)))
    return failure{bad + " (its columns do not match its spec)"};
  // A dense slice saves every row.
  if (s.dense && rows != s.rows)
    return failure{bad + " (a dense table of " + std::to_string(s.rows) + " rows with " + std::to_string(rows) +
                   " saved)"};
  // The size must be exactly what the header says, before anything is
  // allocated for the rows (a dense slice allocates them all at once).
  const uint64_t row_bytes = 12 + uint64_t{stride} * sizeof(float);
  const uint64_t expect = header_bytes(name_length, v1) + rows * row_bytes + 4;
  if (rows > (uint64_t{1} << 40) || size < 0 || static_cast<uint64_t>(size) != expect)
    return failure{bad + " (" + std::to_string(size) + " bytes where its header needs " + std::to_string(expect) + ")"};
  auto slice = std::make_unique<table_slice>(s, shard, shards);
  std::vector<float> row(stride);
  for (uint64_t i = 0; i < rows; ++i) {
    const uint64_t key = r.get<uint64_t>();
    const uint32_t step = r.get<uint32_t>();
    r.raw(row.data(), stride * sizeof(float));
    if (!r.ok)
      return failure{bad + " (truncated rows)"};
    if (s.kind == table_kind::matrix && key >= s.rows)
      return failure{bad + " (row " + std::to_string(key) + " of a matrix of " + std::to_string(s.rows) + " rows)"};
    slice->restore(key, row.data(), step);
  }
  const uint32_t computed = r.crc;
  uint32_t stored = 0;
  if (std::fread(&stored, 1, 4, f) != 4 || stored != computed)
    return failure{bad + " (checksum mismatch)"};
  return slice;
}

} // namespace gridvec
