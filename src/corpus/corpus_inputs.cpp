#include "src/corpus/corpus_inputs.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

#include "src/corpus/corpus_origins.hpp"
#include "src/util/atomic_file.hpp"
#include "src/access/guarded_open.hpp"

namespace gridvec {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos)
      return parts;
    start = at + 1;
  }
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::status(path, ec));
}

// The paths one item of -train names, before directories are opened.
expected<std::vector<std::string>> item_paths(const std::string& item) {
  if (item.size() > 1 && item[0] == '@') {
    const std::string list = item.substr(1);
    auto opened = access::istream_read(list, "list of corpus files");
    if (!opened)
      return failure{opened.error()};
    std::istream& in = **opened;
    const fs::path base = fs::path{list}.parent_path();
    std::vector<std::string> paths;
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos)
        continue;
      paths.push_back(fs::path{line}.is_absolute() ? line : (base / line).string());
    }
    if (in.bad())
      return failure{"cannot read the list of corpus files " + list};
    if (paths.empty())
      return failure{"the list of corpus files " + list + " names no file"};
    return paths;
  }
  if (item == "-" || exists(item))
    return std::vector<std::string>{item};
  auto parts = split(item, ',');
  for (const auto& part : parts)
    if (part.empty())
      return failure{"-train " + item + " names an empty path (two commas, or one at an end)"};
  return parts;
}

// gzip's two magic bytes, 1f 8b.
bool has_gzip_magic(const unsigned char* bytes, size_t n) { return n >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b; }

expected<bool> is_gzip(const std::string& path) {
  auto f = access::fopen_read(path, "corpus");
  if (!f)
    return failure{f.error()};
  unsigned char magic[2] = {0, 0};
  const size_t got = std::fread(magic, 1, 2, f->get());
  return has_gzip_magic(magic, got);
}

status add_file(const std::string& path, const std::string& directory, std::vector<corpus_input>& out) {
  auto gz = is_gzip(path);
  if (!gz)
    return failure{gz.error()};
  out.push_back({path, *gz, directory});
  return {};
}

status add_directory(const fs::path& dir, std::vector<corpus_input>& out) {
  std::vector<std::string> files;
  std::error_code ec;
  // Symbolic links to directories are not followed: a link up the tree
  // would loop. Links to files are read as the files.
  for (fs::recursive_directory_iterator it{dir, ec}, end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.empty() || name[0] == '.') {
      if (it->is_directory(ec))
        it.disable_recursion_pending();
      ec.clear();
      continue;
    }
    std::error_code type_ec; // a dangling link is no file, not an error
    if (it->is_regular_file(type_ec))
      files.push_back(it->path().string());
  }
  if (ec)
    return failure{"cannot list the corpus directory " + dir.string() + ": " + ec.message()};
  if (files.empty())
    return failure{"the corpus directory " + dir.string() + " holds no files"};
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    if (auto s = add_file(f, dir.string(), out); !s)
      return s;
  return {};
}

// Where the staged bytes go: counts them and remembers the last, so that
// each input can be ended with a newline.
struct staged_sink {
  std::FILE* out;
  uint64_t bytes = 0;
  char last = '\n';

  status put(const char* data, size_t n) {
    if (n == 0)
      return {};
    if (std::fwrite(data, 1, n, out) != n)
      return failure{"cannot write the staged corpus: " + std::string{std::strerror(errno)}};
    bytes += n;
    last = data[n - 1];
    return {};
  }
  status end_input() {
    if (last == '\n')
      return {};
    return put("\n", 1);
  }
};

// Reads up to n bytes into buf; returns the count, 0 at the end, -1 on error.
using reader = std::function<long(char* buf, size_t n)>;

// Inflates gzip members (one after another, as zcat does) from `read`.
// `head` holds bytes already read from the input.
status copy_gzip(const reader& read, std::string head, const std::string& name, staged_sink& sink) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    return failure{"cannot decompress corpus " + name + ": out of memory"};
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard{&zs, inflateEnd};
  std::vector<char> in(1 << 20), out(1 << 20);
  bool member_done = false; // the last inflate ended a member
  bool any = false;
  for (;;) {
    long got;
    if (!head.empty()) {
      got = static_cast<long>(head.size());
      std::memcpy(in.data(), head.data(), head.size());
      head.clear();
    } else {
      got = read(in.data(), in.size());
    }
    if (got < 0)
      return failure{"cannot read corpus " + name + ": " + std::strerror(errno)};
    if (got == 0)
      break;
    zs.next_in = reinterpret_cast<Bytef*>(in.data());
    zs.avail_in = static_cast<uInt>(got);
    while (zs.avail_in > 0) {
      if (member_done) { // another member follows
        inflateReset(&zs);
        member_done = false;
      }
      zs.next_out = reinterpret_cast<Bytef*>(out.data());
      zs.avail_out = static_cast<uInt>(out.size());
      const uInt before = zs.avail_in;
      const int ret = inflate(&zs, Z_NO_FLUSH);
      const bool stuck = ret == Z_BUF_ERROR && zs.avail_in == before && zs.avail_out == out.size();
      if ((ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) || stuck)
        return failure{"the corpus " + name + " is not a readable gzip file: " + (zs.msg ? zs.msg : "damaged data")};
      any = true;
      if (auto s = sink.put(out.data(), out.size() - zs.avail_out); !s)
        return s;
      if (ret == Z_STREAM_END)
        member_done = true;
    }
  }
  if (!any || !member_done) {
    // Output may still be pending inside zlib only if the input ended early.
    return failure{"the corpus " + name + " is not a readable gzip file: unexpected end of file"};
  }
  return sink.end_input();
}

status copy_plain(const reader& read, std::string head, const std::string& name, staged_sink& sink) {
  if (auto s = sink.put(head.data(), head.size()); !s)
    return s;
  std::vector<char> buf(1 << 20);
  long got;
  while ((got = read(buf.data(), buf.size())) > 0)
    if (auto s = sink.put(buf.data(), static_cast<size_t>(got)); !s)
      return s;
  if (got < 0)
    return failure{"cannot read corpus " + name + ": " + std::strerror(errno)};
  return sink.end_input();
}

} // namespace

std::vector<std::string> corpus_spec_items(const std::string& spec) { return split(spec, '\n'); }

std::string corpus_spec_text(const std::string& spec) {
  std::string out;
  for (const auto& item : corpus_spec_items(spec))
    out += (out.empty() ? "" : " -train ") + item;
  return out;
}

expected<std::vector<corpus_input>> resolve_corpus_inputs(const std::string& spec) {
  std::vector<corpus_input> inputs;
  size_t stdin_count = 0;
  for (const auto& item : corpus_spec_items(spec)) {
    if (item.empty())
      return failure{"-train names an empty path"};
    auto paths = item_paths(item);
    if (!paths)
      return failure{paths.error()};
    for (const auto& part : *paths) {
      if (part == "-") {
        if (++stdin_count > 1)
          return failure{"-train " + corpus_spec_text(spec) + " names standard input (-) twice"};
        inputs.push_back({"-", false, ""});
        continue;
      }
      std::error_code ec;
      const auto st = fs::status(part, ec);
      if (ec || !fs::exists(st))
        return failure{"cannot read corpus " + part + ": no such file or directory"};
      const auto added = fs::is_directory(st) ? add_directory(part, inputs) : add_file(part, "", inputs);
      if (!added)
        return failure{added.error()};
    }
  }
  return inputs;
}

bool is_plain_file(const std::vector<corpus_input>& inputs) {
  return inputs.size() == 1 && inputs[0].path != "-" && !inputs[0].gzip;
}

expected<uint64_t> stage_corpus(const std::vector<corpus_input>& inputs, const std::string& dest,
                                std::istream& stdin_) {
  // Origins of an earlier staging must not describe this one, even if it
  // fails half-way.
  std::error_code ec;
  fs::remove(origins_path(dest), ec);
  auto out = atomic_file::create(dest);
  if (!out)
    return failure{"cannot stage the corpus: " + out.error()};
  staged_sink sink{out->stream()};
  std::vector<corpus_origin> origins;
  for (const auto& input : inputs) {
    const uint64_t begin = sink.bytes;
    status copied;
    if (input.path == "-") {
      reader read = [&](char* buf, size_t n) -> long {
        stdin_.read(buf, static_cast<std::streamsize>(n));
        if (stdin_.bad())
          return -1;
        return static_cast<long>(stdin_.gcount());
      };
      // Two bytes tell gzip; a one-byte input is text.
      std::string head(2, '\0');
      const long got = read(head.data(), 2);
      head.resize(got > 0 ? static_cast<size_t>(got) : 0);
      const bool gz = has_gzip_magic(reinterpret_cast<const unsigned char*>(head.data()), head.size());
      const std::string name = "standard input";
      copied = gz ? copy_gzip(read, head, name, sink) : copy_plain(read, head, name, sink);
      origins.push_back({begin, gz ? "stdin-gzip" : "stdin", name});
    } else {
      auto in = access::fopen_read(input.path, "corpus");
      if (!in)
        return failure{in.error()};
      reader read = [f = in->get()](char* buf, size_t n) -> long {
        const size_t got = std::fread(buf, 1, n, f);
        return got == 0 && std::ferror(f) ? -1 : static_cast<long>(got);
      };
      copied = input.gzip ? copy_gzip(read, "", input.path, sink) : copy_plain(read, "", input.path, sink);
      origins.push_back({begin, input.gzip ? "gzip" : "file", input.path});
    }
    if (!copied)
      return failure{copied.error()};
  }
  if (auto s = out->commit(); !s)
    return failure{"cannot stage the corpus: " + s.error()};
  if (auto s = write_corpus_origins(dest, sink.bytes, origins); !s)
    return failure{s.error()};
  return sink.bytes;
}

std::string absolute_corpus_spec(const std::string& spec) {
  auto absolute = [](const std::string& path) {
    std::error_code ec;
    auto p = fs::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
  };
  std::string out;
  bool first = true;
  for (const auto& item : corpus_spec_items(spec)) {
    std::string text;
    if (item.size() > 1 && item[0] == '@') {
      text = "@" + absolute(item.substr(1));
    } else if (item == "-" || item.empty() || exists(item)) {
      text = item == "-" || item.empty() ? item : absolute(item);
    } else {
      bool first_part = true;
      for (const auto& part : split(item, ',')) {
        text += (first_part ? "" : ",") + (part.empty() || part == "-" ? part : absolute(part));
        first_part = false;
      }
    }
    out += (first ? "" : "\n") + text;
    first = false;
  }
  return out;
}

} // namespace gridvec
