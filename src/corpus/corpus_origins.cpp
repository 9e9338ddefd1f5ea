#include "src/corpus/corpus_origins.hpp"

#include "src/access/guarded_open.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

constexpr const char* header = "gridvec-corpus-origins 1 ";

std::string escape(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string unescape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[i + 1] == 'n' ? '\n' : text[i + 1];
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Newlines in [from, to) of the file, read with pread; stops early on a
// read error (the count is then a lower bound, good enough for a message).
uint64_t newlines_between(const std::string& path, uint64_t from, uint64_t to) {
  auto opened = access::open_read(path, "corpus");
  if (!opened)
    return 0;
  const int fd = opened->get();
  std::vector<char> buf(1 << 20);
  uint64_t count = 0;
  while (from < to) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), to - from));
    ssize_t n = ::pread(fd, buf.data(), want, static_cast<off_t>(from));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    count += static_cast<uint64_t>(std::count(buf.data(), buf.data() + n, '\n'));
    from += static_cast<uint64_t>(n);
  }
  return count;
}

} // namespace

std::string origins_path(const std::string& corpus) { return corpus + ".origins"; }

status write_corpus_origins(const std::string& corpus, uint64_t staged_bytes,
                            const std::vector<corpus_origin>& origins) {
  auto out = atomic_file::create(origins_path(corpus));
  if (!out)
    return failure{"cannot write the corpus origins: " + out.error()};
  std::string text = header + std::to_string(staged_bytes) + "\n";
  for (const auto& o : origins)
    text += std::to_string(o.begin) + " " + o.kind + " " + escape(o.name) + "\n";
  if (std::fwrite(text.data(), 1, text.size(), out->stream()) != text.size())
    return failure{"cannot write the corpus origins " + origins_path(corpus) + ": " + std::strerror(errno)};
  return out->commit();
}

std::vector<corpus_origin> read_corpus_origins(const std::string& corpus) {
  auto opened = access::istream_read(origins_path(corpus), "corpus origins");
  if (!opened)
    return {};
  std::istream& in = **opened;
  std::string line;
  if (!std::getline(in, line) || line.rfind(header, 0) != 0)
    return {};
  struct stat st {};
  if (::stat(corpus.c_str(), &st) != 0 || line.substr(std::strlen(header)) != std::to_string(st.st_size))
    return {};
  std::vector<corpus_origin> origins;
  while (std::getline(in, line)) {
    const size_t a = line.find(' ');
    const size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
    if (b == std::string::npos)
      return {};
    corpus_origin o;
    try {
      o.begin = std::stoull(line.substr(0, a));
    } catch (...) {
      return {};
    }
    o.kind = line.substr(a + 1, b - a - 1);
    o.name = unescape(line.substr(b + 1));
    origins.push_back(std::move(o));
  }
  return origins;
}

corpus_position locate_in_corpus(const std::string& corpus, uint64_t offset) {
  corpus_position where{corpus, 1, offset, ""};
  uint64_t begin = 0;
  const auto origins = read_corpus_origins(corpus);
  for (const auto& o : origins)
    if (o.begin <= offset) {
      begin = o.begin;
      where.name = o.name;
      where.byte = offset - o.begin;
      where.byte_note = o.kind == "gzip" || o.kind == "stdin-gzip" ? " of its uncompressed text" : "";
    }
  where.line = 1 + newlines_between(corpus, begin, offset);
  return where;
}

} // namespace gridvec
