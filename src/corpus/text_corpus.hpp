#pragma once
// Reading a plain-text corpus: one sentence per line, words separated by
// white space, UTF-8. The corpus is streamed through a fixed buffer, never
// held in memory, and split into byte ranges at line starts so that several
// workers (or nodes) can each read their own part.
//
// Bad input is reported, not trained on: a NUL byte (binary data) or a
// "word" longer than max_token_bytes (a file without white space) ends the
// scan with one line naming the file, line and byte (the user's own file
// when the corpus was staged from several: src/corpus/corpus_origins.hpp).
// Invalid UTF-8 ends it too, unless the job says otherwise (invalid_utf8).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

constexpr size_t max_token_bytes = 4096;

/// What a scan does with bytes that are not well-formed UTF-8 (Unicode's
/// Table 3-7: no overlong forms, surrogates or code points past U+10FFFF).
/// Each maximal ill-formed subsequence counts once, as Python's decoder
/// counts them.
enum class invalid_utf8 : uint8_t {
  fail = 0,    // the scan fails naming the place (the default)
  skip = 1,    // the word holding them is dropped, as an out-of-vocabulary word is
  replace = 2, // each is replaced by U+FFFD, as Python's errors="replace"
};

/// "fail", "skip", "replace"; parse_invalid_utf8 returns false on any other text.
const char* invalid_utf8_name(invalid_utf8 mode);
bool parse_invalid_utf8(std::string_view text, invalid_utf8& mode);

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
  explicit corpus_scanner(std::string path, invalid_utf8 mode = invalid_utf8::fail)
    : path_(std::move(path)), mode_(mode) {}

  template <class OnWord, class OnLineEnd>
  status scan(byte_range range, OnWord&& on_word, OnLineEnd&& on_line_end);

private:
  // Reads the next chunk of the range into buf_; returns bytes read, 0 at
  // the end of the range, or -1 on error (message in error_).
  long fill(int fd, uint64_t& pos, uint64_t end);
  // "corpus FILE has WHAT on line L, at byte B (HINT)", in the user's file.
  failure bad_input(uint64_t offset, const char* what, const char* hint = nullptr) const;

  std::string path_;
  invalid_utf8 mode_;
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

/// The bytes a sequence's second byte may take after lead byte c (Table
/// 3-7); later continuation bytes are always 80..BF.
inline void second_byte_range(unsigned char c, unsigned char& lo, unsigned char& hi) {
  lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
  hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
}

/// Bytes that are a whole character of a word on their own: ASCII other
/// than NUL and white space (most bytes of most corpora).
struct plain_bytes {
  bool is[256] = {};
  constexpr plain_bytes() {
    for (int c = 1; c < 0x80; ++c)
      is[c] = !(c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f');
  }
};
inline constexpr plain_bytes plain{};
inline bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

inline constexpr const char* replacement_character = "\xEF\xBF\xBD"; // U+FFFD
inline constexpr const char* invalid_utf8_hint =
  "--invalid-utf8 skip drops the words that hold it, replace puts U+FFFD in its place";
} // namespace detail

template <class OnWord, class OnLineEnd>
status corpus_scanner::scan(byte_range range, OnWord&& on_word, OnLineEnd&& on_line_end) {
  int fd = detail::open_for_reading(path_, error_);
  if (fd < 0)
    return failure{error_};
  std::string token;
  uint64_t pos = range.begin;
  int pending_continuations = 0; // UTF-8 continuation bytes still expected
  unsigned char lo = 0, hi = 0;  // the range of the next continuation byte
  size_t sequence_start = 0;     // where the pending sequence began in token
  bool token_bad = false;        // holds invalid UTF-8 (invalid_utf8::skip)
  uint64_t token_start = pos;
  bool line_has_words = false;
  status result;
  // An ill-formed subsequence at `offset` (its bytes from sequence_start in
  // token, if any): false once the scan fails.
  auto invalid = [&](uint64_t offset, bool in_token) {
    switch (mode_) {
      case invalid_utf8::fail: result = bad_input(offset, "invalid UTF-8", detail::invalid_utf8_hint); return false;
      case invalid_utf8::skip: token_bad = true; break;
      case invalid_utf8::replace:
        if (token.empty() && !in_token)
          token_start = offset;
        token.resize(in_token ? sequence_start : token.size());
        token += detail::replacement_character;
        break;
    }
    return true;
  };
  auto end_word = [&] {
    if (!token.empty() || token_bad) {
      if (!token_bad) {
        on_word(std::string_view{token});
        line_has_words = true;
      }
      token.clear();
      token_bad = false;
    }
  };
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
        if (c >= lo && c <= hi) {
          --pending_continuations;
          lo = 0x80;
          hi = 0xBF;
          token.push_back(static_cast<char>(c));
          if (token.size() > max_token_bytes) {
            result = bad_input(token_start, "a word longer than 4096 bytes (is this a text corpus?)");
            goto done;
          }
          continue;
        }
        // The sequence ends before its time; this byte starts afresh.
        pending_continuations = 0;
        if (!invalid(chunk_start + i, true))
          goto done;
      }
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
        end_word();
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
      if (detail::plain.is[c]) {
        // A run of plain bytes at once. A word wholly inside the buffer,
        // ended by white space, goes out without being copied.
        long j = i + 1;
        while (j < n && detail::plain.is[static_cast<unsigned char>(buf_[j])])
          ++j;
        const auto run = static_cast<size_t>(j - i);
        if (token.empty() && !token_bad) {
          token_start = chunk_start + i;
          if (j < n && run <= max_token_bytes && detail::is_space(static_cast<unsigned char>(buf_[j]))) {
            on_word(std::string_view{buf_.data() + i, run});
            line_has_words = true;
            i = j - 1;
            continue;
          }
        }
        token.append(buf_.data() + i, run);
        i = j - 1;
        if (token.size() > max_token_bytes) {
          result = bad_input(token_start, "a word longer than 4096 bytes (is this a text corpus?)");
          goto done;
        }
        continue;
      }
      int len = detail::utf8_length(c);
      if (len == 1) { // ASCII
        if (token.empty() && !token_bad)
          token_start = chunk_start + i;
        token.push_back(static_cast<char>(c));
      } else if (len == 0) {
        if (!invalid(chunk_start + i, false))
          goto done;
      } else {
        if (token.empty() && !token_bad)
          token_start = chunk_start + i;
        pending_continuations = len - 1;
        detail::second_byte_range(c, lo, hi);
        sequence_start = token.size();
        token.push_back(static_cast<char>(c));
      }
      if (token.size() > max_token_bytes) {
        result = bad_input(token_start, "a word longer than 4096 bytes (is this a text corpus?)");
        goto done;
      }
    }
  }
  if (result && pending_continuations > 0) {
    pending_continuations = 0;
    if (mode_ == invalid_utf8::fail)
      result = bad_input(pos, "invalid UTF-8 (a sequence cut short)", detail::invalid_utf8_hint);
    else
      invalid(pos, true);
  }
  if (result) {
    end_word();
    if (line_has_words)
      on_line_end();
  }
done:
  detail::close_fd(fd);
  return result;
}

} // namespace gridvec
