#include "src/corpus/corpus_inputs.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "src/util/atomic_file.hpp"
#include "src/access/guarded_open.hpp"

namespace gridvec {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_spec(const std::string& spec) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t comma = spec.find(',', start);
    parts.push_back(spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos)
      return parts;
    start = comma + 1;
  }
}

// gzip's two magic bytes, 1f 8b.
expected<bool> is_gzip(const std::string& path) {
  auto f = access::fopen_read(path, "corpus");
  if (!f)
    return failure{f.error()};
  unsigned char magic[2] = {0, 0};
  const size_t got = std::fread(magic, 1, 2, f->get());
  return got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

status add_file(const std::string& path, std::vector<corpus_input>& out) {
  auto gz = is_gzip(path);
  if (!gz)
    return failure{gz.error()};
  out.push_back({path, *gz});
  return {};
}

status add_directory(const fs::path& dir, std::vector<corpus_input>& out) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it{dir, ec}, end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (!name.empty() && name[0] != '.' && it->is_regular_file(ec))
      files.push_back(it->path());
  }
  if (ec)
    return failure{"cannot list the corpus directory " + dir.string() + ": " + ec.message()};
  if (files.empty())
    return failure{"the corpus directory " + dir.string() + " holds no files"};
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    if (auto s = add_file(f.string(), out); !s)
      return s;
  return {};
}

// Appends `in` to `out`, then a newline if its last byte was not one.
status copy_plain(std::FILE* in, const std::string& name, std::FILE* out, uint64_t& bytes) {
  std::vector<char> buf(1 << 20);
  char last = '\n';
  size_t got;
  while ((got = std::fread(buf.data(), 1, buf.size(), in)) > 0) {
    if (std::fwrite(buf.data(), 1, got, out) != got)
      return failure{"cannot write the staged corpus: " + std::string{std::strerror(errno)}};
    bytes += got;
    last = buf[got - 1];
  }
  if (std::ferror(in))
    return failure{"cannot read corpus " + name + ": " + std::strerror(errno)};
  if (last != '\n') {
    std::fputc('\n', out);
    ++bytes;
  }
  return {};
}

status copy_gzip(const std::string& path, std::FILE* out, uint64_t& bytes) {
  auto fd = access::open_read(path, "corpus");
  if (!fd)
    return failure{fd.error()};
  gzFile in = gzdopen(fd->get(), "rb");
  if (!in)
    return failure{"cannot read corpus " + path + ": " + std::strerror(errno)};
  fd->release(); // gzclose closes it
  std::vector<char> buf(1 << 20);
  char last = '\n';
  int got;
  while ((got = gzread(in, buf.data(), static_cast<unsigned>(buf.size()))) > 0) {
    if (std::fwrite(buf.data(), 1, static_cast<size_t>(got), out) != static_cast<size_t>(got)) {
      gzclose(in);
      return failure{"cannot write the staged corpus: " + std::string{std::strerror(errno)}};
    }
    bytes += static_cast<uint64_t>(got);
    last = buf[static_cast<size_t>(got) - 1];
  }
  // A truncated file ends the reads without a negative count: gzerror
  // tells (Z_BUF_ERROR, "unexpected end of file").
  int code = Z_OK;
  const char* why = gzerror(in, &code);
  const std::string reason = why ? why : "";
  gzclose(in);
  if (got < 0 || code != Z_OK)
    return failure{"the corpus " + path + " is not a readable gzip file: " + reason};
  if (last != '\n') {
    std::fputc('\n', out);
    ++bytes;
  }
  return {};
}

status copy_stream(std::istream& in, std::FILE* out, uint64_t& bytes) {
  std::vector<char> buf(1 << 20);
  char last = '\n';
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (got == 0)
      break;
    if (std::fwrite(buf.data(), 1, got, out) != got)
      return failure{"cannot write the staged corpus: " + std::string{std::strerror(errno)}};
    bytes += got;
    last = buf[got - 1];
  }
  if (in.bad())
    return failure{"cannot read corpus from standard input"};
  if (last != '\n') {
    std::fputc('\n', out);
    ++bytes;
  }
  return {};
}

} // namespace

expected<std::vector<corpus_input>> resolve_corpus_inputs(const std::string& spec) {
  std::vector<corpus_input> inputs;
  size_t stdin_count = 0;
  for (const auto& part : split_spec(spec)) {
    if (part.empty())
      return failure{"-train " + spec + " names an empty path (two commas, or one at an end)"};
    if (part == "-") {
      if (++stdin_count > 1)
        return failure{"-train " + spec + " names standard input (-) twice"};
      inputs.push_back({"-", false});
      continue;
    }
    std::error_code ec;
    const auto st = fs::status(part, ec);
    if (ec || !fs::exists(st))
      return failure{"cannot read corpus " + part + ": no such file or directory"};
    const auto added = fs::is_directory(st) ? add_directory(part, inputs) : add_file(part, inputs);
    if (!added)
      return failure{added.error()};
  }
  return inputs;
}

bool is_plain_file(const std::vector<corpus_input>& inputs) {
  return inputs.size() == 1 && inputs[0].path != "-" && !inputs[0].gzip;
}

expected<uint64_t> stage_corpus(const std::vector<corpus_input>& inputs, const std::string& dest,
                                std::istream& stdin_) {
  auto out = atomic_file::create(dest);
  if (!out)
    return failure{"cannot stage the corpus: " + out.error()};
  uint64_t bytes = 0;
  for (const auto& input : inputs) {
    status copied;
    if (input.path == "-") {
      copied = copy_stream(stdin_, out->stream(), bytes);
    } else if (input.gzip) {
      copied = copy_gzip(input.path, out->stream(), bytes);
    } else {
      auto in = access::fopen_read(input.path, "corpus");
      if (!in)
        return failure{in.error()};
      copied = copy_plain(in->get(), input.path, out->stream(), bytes);
    }
    if (!copied)
      return failure{copied.error()};
  }
  if (auto s = out->commit(); !s)
    return failure{"cannot stage the corpus: " + s.error()};
  return bytes;
}

std::string absolute_corpus_spec(const std::string& spec) {
  std::string out;
  for (const auto& part : split_spec(spec)) {
    std::string path = part;
    if (part != "-" && !part.empty()) {
      std::error_code ec;
      auto p = fs::absolute(part, ec);
      if (!ec)
        path = p.lexically_normal().string();
    }
    out += (out.empty() ? "" : ",") + path;
  }
  return out;
}

} // namespace gridvec
