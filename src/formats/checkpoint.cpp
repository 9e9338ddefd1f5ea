#include "src/formats/checkpoint.hpp"

#include <zlib.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/formats/manifest_key.hpp"
#include "src/util/atomic_file.hpp"

#include <openssl/crypto.h>
#include "src/access/guarded_open.hpp"

namespace gridvec {

namespace fs = std::filesystem;

namespace {

constexpr char slice_magic[8] = {'G', 'V', 'S', 'L', 'I', 'C', 'E', '1'};
constexpr size_t slice_header_bytes = 8 + 6 * 4 + 2 * 8;
constexpr const char* manifest_magic = "gridvec-checkpoint 1";
constexpr size_t max_manifest_bytes = size_t{64} << 20;

void put32(unsigned char* p, uint32_t x) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<unsigned char>(x >> (8 * i));
}
void put64(unsigned char* p, uint64_t x) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<unsigned char>(x >> (8 * i));
}
uint32_t get32(const unsigned char* p) {
  uint32_t x = 0;
  for (int i = 0; i < 4; ++i)
    x |= uint32_t{p[i]} << (8 * i);
  return x;
}
uint64_t get64(const unsigned char* p) {
  uint64_t x = 0;
  for (int i = 0; i < 8; ++i)
    x |= uint64_t{p[i]} << (8 * i);
  return x;
}

void encode_header(const slice_header& h, unsigned char* out) {
  std::memcpy(out, slice_magic, 8);
  put32(out + 8, h.shard);
  put32(out + 12, h.shards);
  put32(out + 16, h.dim);
  put32(out + 20, h.first);
  put32(out + 24, h.width);
  put32(out + 28, h.node_rows);
  put64(out + 32, h.vocab_size);
  put64(out + 40, h.vocab_crc);
}

std::string describe(const slice_header& h) {
  return "shard " + std::to_string(h.shard) + "/" + std::to_string(h.shards) + ", columns " + std::to_string(h.first) +
         "+" + std::to_string(h.width) + " of " + std::to_string(h.dim) + ", " + std::to_string(h.vocab_size) +
         " words" + (h.node_rows ? " and " + std::to_string(h.node_rows) + " Huffman nodes" : "");
}

template <class T>
bool parse_field(std::string_view text, T& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && ptr == text.data() + text.size();
}

// Splits off the first `n` space-separated fields; the rest of the line
// (which may contain spaces) goes to `rest`.
bool split_fields(std::string_view line, size_t n, std::vector<std::string_view>& fields, std::string_view& rest) {
  fields.clear();
  // Cleared on failure too: read_manifest copies `rest` even from a
  // malformed record, and a view left from an earlier line pointed into
  // freed memory once the line buffer grew (heap-use-after-free, found by
  // fuzzing, tests/fuzz/fuzz_manifest.cpp).
  rest = {};
  for (size_t i = 0; i < n; ++i) {
    auto space = line.find(' ');
    if (space == std::string_view::npos) {
      if (i + 1 != n)
        return false;
      fields.push_back(line);
      line = {};
      break;
    }
    fields.push_back(line.substr(0, space));
    line.remove_prefix(space + 1);
  }
  rest = line;
  return fields.size() == n;
}

std::string sequence_name(uint64_t sequence) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "ckpt-%06llu", static_cast<unsigned long long>(sequence));
  return buf;
}

void fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

} // namespace

uint32_t crc32(const void* data, size_t n, uint32_t previous) {
  // zlib's crc32 continues from the previous result, and is fast (GB/s);
  // it takes at most 4 GiB at a time.
  const auto* bytes = static_cast<const Bytef*>(data);
  uLong crc = previous;
  while (n > 0) {
    const auto chunk = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    crc = ::crc32(crc, bytes, chunk);
    bytes += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

expected<uint32_t> file_crc32(const std::string& path) {
  auto opened = access::fopen_read(path, "the file");
  if (!opened)
    return failure{opened.error()};
  std::FILE* f = opened->release();
  std::vector<char> buf(1 << 20);
  uint32_t crc = 0;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0)
    crc = crc32(buf.data(), n, crc);
  bool bad = std::ferror(f);
  std::fclose(f);
  if (bad)
    return failure{"cannot read " + path};
  return crc;
}

// --- slice files ------------------------------------------------------------

expected<file_digest> write_slice_file(const std::string& path, const slice_header& h, const float* u, const float* v) {
  auto file = atomic_file::create(path);
  if (!file)
    return failure{file.error()};
  unsigned char head[slice_header_bytes];
  encode_header(h, head);
  uint32_t crc = crc32(head, sizeof head);
  std::fwrite(head, 1, sizeof head, file->stream());
  const size_t u_floats = static_cast<size_t>(h.vocab_size) * h.width;
  const size_t v_floats = (static_cast<size_t>(h.vocab_size) + h.node_rows) * h.width;
  for (const float* block : {u, v}) {
    const size_t floats = block == u ? u_floats : v_floats;
    // Checksum and write in pieces so the data is read from memory once.
    constexpr size_t piece = 1 << 18;
    for (size_t at = 0; at < floats; at += piece) {
      const size_t n = std::min(piece, floats - at);
      crc = crc32(block + at, n * sizeof(float), crc);
      std::fwrite(block + at, sizeof(float), n, file->stream());
    }
  }
  unsigned char tail[4];
  put32(tail, crc);
  std::fwrite(tail, 1, 4, file->stream());
  if (auto s = file->commit(); !s)
    return failure{s.error()};
  return file_digest{slice_header_bytes + (u_floats + v_floats) * sizeof(float) + 4, crc};
}

status read_slice_file(const std::string& path, const slice_header& expect, float* u, float* v) {
  auto opened = access::fopen_read(path, "checkpoint file");
  if (!opened)
    return failure{opened.error()};
  std::FILE* f = opened->release();
  struct closer {
    std::FILE* f;
    ~closer() { std::fclose(f); }
  } guard{f};
  const size_t u_floats = static_cast<size_t>(expect.vocab_size) * expect.width;
  const size_t v_floats = (static_cast<size_t>(expect.vocab_size) + expect.node_rows) * expect.width;
  const uint64_t want_bytes = slice_header_bytes + (u_floats + v_floats) * sizeof(float) + 4;
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  if (size < 0 || static_cast<uint64_t>(size) != want_bytes)
    return failure{"checkpoint file " + path + " is truncated or damaged: " + std::to_string(size) +
                   " bytes, expected " + std::to_string(want_bytes)};
  unsigned char head[slice_header_bytes];
  if (std::fread(head, 1, sizeof head, f) != sizeof head || std::memcmp(head, slice_magic, 8) != 0)
    return failure{"checkpoint file " + path + " is not a gridvec slice file"};
  slice_header got{get32(head + 8),  get32(head + 12), get32(head + 16), get32(head + 20),
                   get32(head + 24), get64(head + 32), get64(head + 40), get32(head + 28)};
  if (got.shard != expect.shard || got.shards != expect.shards || got.dim != expect.dim || got.first != expect.first ||
      got.width != expect.width || got.vocab_size != expect.vocab_size || got.node_rows != expect.node_rows)
    return failure{"checkpoint file " + path + " holds " + describe(got) + ", expected " + describe(expect)};
  if (got.vocab_crc != expect.vocab_crc)
    return failure{"checkpoint file " + path + " was written for another vocabulary"};
  uint32_t crc = crc32(head, sizeof head);
  for (float* block : {u, v}) {
    const size_t floats = block == u ? u_floats : v_floats;
    if (std::fread(block, sizeof(float), floats, f) != floats)
      return failure{"cannot read checkpoint file " + path};
    crc = crc32(block, floats * sizeof(float), crc);
  }
  unsigned char tail[4];
  if (std::fread(tail, 1, 4, f) != 4 || get32(tail) != crc)
    return failure{"checkpoint file " + path + " is corrupt (checksum mismatch)"};
  return {};
}

// --- manifest ---------------------------------------------------------------

status write_manifest(const std::string& path, const checkpoint_manifest& m) {
  std::ostringstream out;
  out.precision(9);
  out << manifest_magic << "\n";
  out << "sequence " << m.sequence << "\n";
  for (size_t i = 0; i + 1 < m.options.size(); i += 2)
    out << "option " << m.options[i] << " " << m.options[i + 1] << "\n";
  out << "vocabulary " << m.vocab_size << " " << m.vocab_crc << " " << m.vocabulary_file << "\n";
  out << "counters " << m.raw_words << " " << m.trained_words << " " << m.pairs << " " << m.training_seconds << "\n";
  out << "alpha " << m.alpha << "\n";
  for (size_t i = 0; i < m.parts.size(); ++i) {
    const auto& p = m.parts[i];
    const byte_range r = i < m.ranges.size() ? m.ranges[i] : byte_range{};
    out << "part " << p.part << " " << p.epoch << " " << p.offset << " " << p.processed << " " << p.words << " "
        << r.begin << " " << r.end << " " << p.ids_path << "\n";
  }
  for (const auto& s : m.shards)
    out << "shard " << s.index << " " << s.digest.bytes << " " << s.digest.crc << " " << s.file << "\n";
  for (const auto& [words, loss] : m.loss_history)
    out << "loss " << words << " " << loss << "\n";
  std::string text = out.str();
  if (auto key = current_manifest_key())
    text += "mac " + manifest_mac(*key, text) + "\n";
  text += "end " + std::to_string(crc32(text.data(), text.size())) + "\n";
  auto file = atomic_file::create(path);
  if (!file)
    return failure{file.error()};
  std::fwrite(text.data(), 1, text.size(), file->stream());
  return file->commit();
}

expected<checkpoint_manifest> read_manifest(const std::string& path) {
  auto opened = access::istream_read(path, "the checkpoint manifest");
  if (!opened)
    return failure{opened.error()};
  std::string text;
  {
    // A manifest is a few lines per corpus part; a larger file is not one
    // (and must not cost the node its size in memory).
    std::vector<char> buf(1 << 16);
    while ((*opened)->read(buf.data(), static_cast<std::streamsize>(buf.size())) || (*opened)->gcount() > 0) {
      text.append(buf.data(), static_cast<size_t>((*opened)->gcount()));
      if (text.size() > max_manifest_bytes)
        return failure{"checkpoint manifest " + path + " is damaged: larger than " +
                       std::to_string(max_manifest_bytes >> 20) + " MiB"};
    }
  }
  auto bad = [&](const std::string& why) { return failure{"checkpoint manifest " + path + " is damaged: " + why}; };
  // The checksum line covers everything before it.
  auto end_at = text.rfind("\nend ");
  if (end_at == std::string::npos || text.empty() || text.back() != '\n')
    return bad("it is truncated");
  uint32_t want = 0;
  std::string_view end_field = std::string_view{text}.substr(end_at + 5);
  end_field.remove_suffix(1);
  if (!parse_field(end_field, want) || crc32(text.data(), end_at + 1) != want)
    return bad("checksum mismatch");

  // Under a cluster secret, the line before it authenticates the rest
  // (src/formats/manifest_key.hpp).
  std::string body = text.substr(0, end_at + 1);
  const auto key = current_manifest_key();
  const auto mac_at = body.rfind("\nmac ");
  if (mac_at != std::string::npos && body.find('\n', mac_at + 1) == body.size() - 1) {
    const std::string got = body.substr(mac_at + 5, body.size() - mac_at - 6);
    body.resize(mac_at + 1);
    if (!key)
      return bad("it is authenticated by a cluster secret; resume it with that cluster's config");
    const std::string want_mac = manifest_mac(*key, body);
    if (got.size() != want_mac.size() || CRYPTO_memcmp(got.data(), want_mac.data(), got.size()) != 0)
      return failure{"checkpoint manifest " + path +
                     " does not carry this cluster's authentication code (altered, or written by another cluster); "
                     "refusing it"};
  } else if (key) {
    return failure{"checkpoint manifest " + path +
                   " is not authenticated by this cluster's secret (written without one, or altered); refusing it"};
  }
  checkpoint_manifest m;
  std::istringstream lines(body);
  std::string line;
  int number = 0;
  std::vector<std::string_view> f;
  std::string_view rest;
  bool have_vocab = false;
  while (std::getline(lines, line)) {
    ++number;
    auto where = "line " + std::to_string(number);
    if (number == 1) {
      if (line != manifest_magic)
        return bad("not a gridvec checkpoint manifest");
      continue;
    }
    auto space = line.find(' ');
    std::string key = line.substr(0, space);
    std::string_view body = space == std::string::npos ? std::string_view{} : std::string_view{line}.substr(space + 1);
    bool ok = true;
    if (key == "sequence") {
      ok = parse_field(body, m.sequence);
    } else if (key == "option") {
      ok = split_fields(body, 1, f, rest);
      if (ok) {
        m.options.emplace_back(f[0]);
        m.options.emplace_back(rest);
      }
    } else if (key == "vocabulary") {
      ok = split_fields(body, 2, f, rest) && parse_field(f[0], m.vocab_size) && parse_field(f[1], m.vocab_crc) &&
           !rest.empty();
      m.vocabulary_file = std::string{rest};
      have_vocab = ok;
    } else if (key == "counters") {
      ok = split_fields(body, 4, f, rest) && parse_field(f[0], m.raw_words) && parse_field(f[1], m.trained_words) &&
           parse_field(f[2], m.pairs) && parse_field(f[3], m.training_seconds);
    } else if (key == "alpha") {
      ok = parse_field(body, m.alpha);
    } else if (key == "part") {
      part_cursor p;
      byte_range r;
      ok = split_fields(body, 7, f, rest) && parse_field(f[0], p.part) && parse_field(f[1], p.epoch) &&
           parse_field(f[2], p.offset) && parse_field(f[3], p.processed) && parse_field(f[4], p.words) &&
           parse_field(f[5], r.begin) && parse_field(f[6], r.end) && !rest.empty();
      p.ids_path = std::string{rest};
      m.parts.push_back(std::move(p));
      m.ranges.push_back(r);
    } else if (key == "shard") {
      shard_file s;
      ok = split_fields(body, 3, f, rest) && parse_field(f[0], s.index) && parse_field(f[1], s.digest.bytes) &&
           parse_field(f[2], s.digest.crc) && !rest.empty();
      s.file = std::string{rest};
      m.shards.push_back(std::move(s));
    } else if (key == "loss") {
      uint64_t words = 0;
      double loss = 0;
      ok = split_fields(body, 2, f, rest) && parse_field(f[0], words) && parse_field(f[1], loss);
      m.loss_history.emplace_back(words, loss);
    } else {
      return bad(where + ": unknown record '" + key + "'");
    }
    if (!ok)
      return bad(where + ": malformed '" + key + "' record");
  }
  if (!have_vocab || m.parts.empty() || m.shards.empty())
    return bad("it lacks its vocabulary, parts or shards");
  // Files inside the checkpoint's directory are named, never reached
  // through a path.
  auto plain_name = [](const std::string& n) {
    return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos;
  };
  if (!plain_name(m.vocabulary_file))
    return bad("its vocabulary file '" + m.vocabulary_file + "' is not a name inside the checkpoint directory");
  for (const auto& sf : m.shards)
    if (!plain_name(sf.file))
      return bad("its shard file '" + sf.file + "' is not a name inside the checkpoint directory");
  for (size_t i = 0; i < m.shards.size(); ++i)
    if (m.shards[i].index != i)
      return bad("shard records are out of order");
  for (size_t i = 0; i < m.parts.size(); ++i)
    if (m.parts[i].part != i)
      return bad("part records are out of order");
  return m;
}

// --- the checkpoint directory -------------------------------------------------

std::string checkpoint_store::partial_dir(uint64_t sequence) const {
  return root_ + "/" + sequence_name(sequence) + ".partial";
}

std::string checkpoint_store::final_dir(uint64_t sequence) const { return root_ + "/" + sequence_name(sequence); }

status checkpoint_store::prepare(uint64_t sequence) const {
  if (auto s = access::make_directories(work_dir(), "the checkpoint directory"); !s)
    return s;
  std::error_code ec;
  fs::remove_all(partial_dir(sequence), ec);
  return access::make_directories(partial_dir(sequence), "the checkpoint directory");
}

status checkpoint_store::commit(uint64_t sequence, size_t keep) const {
  // Renamed and removed by name, inside a directory checked here.
  if (auto s = access::check_write(root_, "the checkpoint directory"); !s)
    return s;
  std::error_code ec;
  fsync_dir(partial_dir(sequence));
  fs::rename(partial_dir(sequence), final_dir(sequence), ec);
  if (ec)
    return failure{"cannot complete checkpoint " + final_dir(sequence) + ": " + ec.message()};
  fsync_dir(root_);
  auto all = complete();
  for (size_t i = keep; i < all.size(); ++i)
    fs::remove_all(final_dir(all[i]), ec); // an old checkpoint that stays is harmless
  // Attempts before this one that never completed (none is in flight now).
  for (const auto& entry : fs::directory_iterator(root_, ec)) {
    const auto name = entry.path().filename().string();
    uint64_t seq = 0;
    if (name.size() == 19 && name.rfind("ckpt-", 0) == 0 && name.ends_with(".partial") &&
        parse_field(std::string_view{name}.substr(5, 6), seq) && seq < sequence)
      fs::remove_all(entry.path(), ec);
  }
  return {};
}

void checkpoint_store::discard(uint64_t sequence) const {
  std::error_code ec;
  fs::remove_all(partial_dir(sequence), ec); // one that stays is removed by the next commit
}

std::vector<uint64_t> checkpoint_store::complete() const {
  std::vector<uint64_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root_, ec)) {
    auto name = entry.path().filename().string();
    uint64_t seq = 0;
    if (name.size() == 11 && name.rfind("ckpt-", 0) == 0 && parse_field(std::string_view{name}.substr(5), seq) &&
        entry.is_directory())
      out.push_back(seq);
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

expected<checkpoint_manifest> checkpoint_store::latest(std::vector<std::string>* skipped) const {
  for (uint64_t seq : complete()) {
    auto dir = final_dir(seq);
    auto m = read_manifest(dir + "/MANIFEST");
    std::string why;
    if (!m) {
      why = m.error();
    } else {
      for (const auto& s : m->shards) {
        std::error_code ec;
        auto size = fs::file_size(dir + "/" + s.file, ec);
        if (ec || size != s.digest.bytes) {
          why = "checkpoint file " + dir + "/" + s.file + " is missing or truncated";
          break;
        }
      }
    }
    if (why.empty())
      return m;
    if (skipped)
      skipped->push_back(why);
  }
  return failure{"no usable checkpoint in " + root_};
}

} // namespace gridvec
