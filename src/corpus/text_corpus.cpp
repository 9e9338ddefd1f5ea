#include "src/corpus/text_corpus.hpp"

#include "src/corpus/corpus_origins.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "src/access/guarded_open.hpp"

namespace gridvec {

namespace {
constexpr size_t buffer_bytes = 1 << 20;
}

namespace detail {

int open_for_reading(const std::string& path, std::string& error) {
  auto fd = access::open_read(path, "corpus");
  if (!fd) {
    error = fd.error();
    return -1;
  }
  return fd->release();
}

void close_fd(int fd) { ::close(fd); }

} // namespace detail

long corpus_scanner::fill(int fd, uint64_t& pos, uint64_t end) {
  if (pos >= end)
    return 0;
  buf_.resize(buffer_bytes);
  size_t want = static_cast<size_t>(std::min<uint64_t>(buffer_bytes, end - pos));
  ssize_t n;
  do {
    n = ::pread(fd, buf_.data(), want, static_cast<off_t>(pos));
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    error_ = "cannot read corpus " + path_ + ": " + std::strerror(errno);
    return -1;
  }
  pos += static_cast<uint64_t>(n);
  return n;
}

failure corpus_scanner::bad_input(uint64_t offset, const char* what, const char* hint) const {
  const corpus_position where = locate_in_corpus(path_, offset);
  return failure{"corpus " + where.name + " has " + what + " on line " + std::to_string(where.line) + ", at byte " +
                 std::to_string(where.byte) + where.byte_note + (hint ? std::string{" ("} + hint + ")" : "")};
}

const char* invalid_utf8_name(invalid_utf8 mode) {
  switch (mode) {
    case invalid_utf8::skip: return "skip";
    case invalid_utf8::replace: return "replace";
    default: return "fail";
  }
}

bool parse_invalid_utf8(std::string_view text, invalid_utf8& mode) {
  for (auto m : {invalid_utf8::fail, invalid_utf8::skip, invalid_utf8::replace})
    if (text == invalid_utf8_name(m)) {
      mode = m;
      return true;
    }
  return false;
}

expected<std::vector<byte_range>> split_corpus(const std::string& path, size_t parts) {
  std::string error;
  int fd = detail::open_for_reading(path, error);
  if (fd < 0)
    return failure{error};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    detail::close_fd(fd);
    return failure{"cannot read corpus " + path + ": not a regular file"};
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size == 0) {
    detail::close_fd(fd);
    return failure{"corpus " + path + " is empty"};
  }
  if (parts == 0)
    parts = 1;
  // Cut points move forward to the byte after the next newline, so that no
  // line is split between two ranges.
  std::vector<uint64_t> cuts{0};
  char buf[4096];
  for (size_t p = 1; p < parts; ++p) {
    uint64_t pos = std::max(cuts.back(), size * p / parts);
    if (pos == 0) { // more parts than bytes: this part starts at the top
      cuts.push_back(0);
      continue;
    }
    if (pos >= size) {
      cuts.push_back(size);
      continue;
    }
    // Already at a line start if the previous byte is a newline.
    bool found = false;
    uint64_t scan = pos - 1;
    while (!found && scan < size) {
      ssize_t n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(scan));
      if (n <= 0)
        break;
      for (ssize_t i = 0; i < n; ++i)
        if (buf[i] == '\n') {
          pos = scan + static_cast<uint64_t>(i) + 1;
          found = true;
          break;
        }
      scan += static_cast<uint64_t>(n);
    }
    cuts.push_back(found ? pos : size);
  }
  cuts.push_back(size);
  detail::close_fd(fd);
  std::vector<byte_range> ranges;
  for (size_t p = 0; p < parts; ++p)
    ranges.push_back({cuts[p], cuts[p + 1]});
  return ranges;
}

} // namespace gridvec
