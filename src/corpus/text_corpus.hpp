#pragma once
// Reading a plain-text corpus: one sentence per line, words separated by
// white space, UTF-8. The corpus is streamed through a fixed buffer, never
// held in memory, and split into byte ranges at line starts so that several
// workers (or nodes) can each read their own part.
//
// Bad input is reported, not trained on: a NUL byte or invalid UTF-8 (binary
// garbage), or a "word" longer than max_token_bytes (a file without white
// space) ends the scan with one line naming the byte offset.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

constexpr size_t max_token_bytes = 4096;

struct byte_range {
  uint64_t begin = 0;
  uint64_t end = 0;
};

/// Splits the file into `parts` ranges that start at line starts. Fails if
/// the file cannot be read or is empty.
expected<std::vector<byte_range>> split_corpus(const std::string& path, size_t parts);

/// Tokenises one byte range. `on_word(std::string_view)` is called for each
/// word, `on_line_end()` after each line. Returns a failure line on I/O error
/// or bad input.
class corpus_scanner {
public:
  explicit corpus_scanner(std::string path) : path_(std::move(path)) {}

  template <class OnWord, class OnLineEnd>
  status scan(byte_range range, OnWord&& on_word, OnLineEnd&& on_line_end);

private:
  // Reads the next chunk of the range into buf_; returns bytes read, 0 at
  // the end of the range, or -1 on error (message in error_).
  long fill(int fd, uint64_t& pos, uint64_t end);
  failure bad_input(uint64_t offset, const char* what) const;

  std::string path_;
  std::vector<char> buf_;
  std::string error_;
};

// --- implementation --------------------------------------------------------

namespace detail {
int open_for_reading(const std::string& path, std::string& error);
void close_fd(int fd);

/// Length of the UTF-8 sequence starting with lead byte c, 0 if invalid.
inline int utf8_length(unsigned char c) {
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    return 2;
  if (c >= 0xE0 && c <= 0xEF)
    return 3;
  if (c >= 0xF0 && c <= 0xF4)
    return 4;
  return 0;
}
} // namespace detail

template <class OnWord, class OnLineEnd>
status corpus_scanner::scan(byte_range range, OnWord&& on_word, OnLineEnd&& on_line_end) {
  int fd = detail::open_for_reading(path_, error_);
  if (fd < 0)
    return failure{error_};
  std::string token;
  uint64_t pos = range.begin;
  int pending_continuations = 0; // UTF-8 continuation bytes still expected
  uint64_t token_start = pos;
  bool line_has_words = false;
  status result;
  for (;;) {
    uint64_t chunk_start = pos;
    long n = fill(fd, pos, range.end);
    if (n < 0) {
      result = failure{error_};
      break;
    }
    if (n == 0)
      break;
    for (long i = 0; i < n; ++i) {
      auto c = static_cast<unsigned char>(buf_[i]);
      if (pending_continuations > 0) {
        if ((c & 0xC0) != 0x80) {
          result = bad_input(chunk_start + i, "invalid UTF-8");
          goto done;
        }
        --pending_continuations;
        token.push_back(static_cast<char>(c));
        if (token.size() > max_token_bytes) {
          result = bad_input(token_start, "a word longer than 4096 bytes (is this a text corpus?)");
          goto done;
        }
        continue;
      }
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
        if (!token.empty()) {
          on_word(std::string_view{token});
          token.clear();
          line_has_words = true;
        }
        if (c == '\n') {
          on_line_end();
          line_has_words = false;
        }
        continue;
      }
      if (c == 0) {
        result = bad_input(chunk_start + i, "a NUL byte (binary data, not text)");
        goto done;
      }
      int len = detail::utf8_length(c);
      if (len == 0) {
        result = bad_input(chunk_start + i, "invalid UTF-8");
        goto done;
      }
      pending_continuations = len - 1;
      if (token.empty())
        token_start = chunk_start + i;
      token.push_back(static_cast<char>(c));
      if (token.size() > max_token_bytes) {
        result = bad_input(token_start, "a word longer than 4096 bytes (is this a text corpus?)");
        goto done;
      }
    }
  }
  if (pending_continuations > 0) {
    result = bad_input(pos, "invalid UTF-8 (truncated sequence)");
  } else if (result) {
    if (!token.empty()) {
      on_word(std::string_view{token});
      line_has_words = true;
    }
    if (line_has_words)
      on_line_end();
  }
done:
  detail::close_fd(fd);
  return result;
}

} // namespace gridvec
