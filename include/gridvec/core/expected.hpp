#pragma once
// Errors at I/O and input boundaries are values, never exceptions: a function
// that can fail on bad input returns expected<T>, holding either the value or
// one human-readable line saying what is wrong and where, with a code that
// callers branch on (the line is for people, the code for programs).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace gridvec {

/// What kind of failure a line reports. The values travel between
/// processes (inside CAF errors and Cap'n Proto replies): append new ones,
/// never renumber.
enum class error_code : uint8_t {
  failed = 0,           // nothing more specific to say
  invalid_argument = 1, // bad input: a flag, a file's contents, a message
  not_found = 2,        // no such job, table, node, file or key
  busy = 3,             // refused for now: a job is running, a slot is taken
  unauthorised = 4,     // the cluster's secret or a permission refused it
  io = 5,               // reading or writing a file or a socket failed
  timeout = 6,          // no answer, or no end, within the time allowed
  interrupted = 7,      // the user interrupted the wait (the work goes on)
  unavailable = 8,      // a node or actor that should answer is gone
};
constexpr uint8_t error_code_count = 9;

/// Its name, as logs and tests print it ("not_found").
constexpr std::string_view to_string(error_code code) {
  constexpr std::string_view names[error_code_count] = {
    "failed", "invalid_argument", "not_found", "busy", "unauthorised", "io", "timeout", "interrupted", "unavailable"};
  return static_cast<uint8_t>(code) < error_code_count ? names[static_cast<uint8_t>(code)] : "failed";
}
/// The code of a number read from another process (unknown: failed).
constexpr error_code error_code_from_number(uint64_t number) {
  return number < error_code_count ? static_cast<error_code>(number) : error_code::failed;
}

struct failure {
  std::string message;
  error_code code = error_code::failed;
};

template <class T>
class expected {
public:
  expected(T value) : v_(std::move(value)) {}
  expected(failure f) : v_(std::move(f)) {}

  /// True when it holds a value.
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& operator*() { return std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  const std::string& error() const { return std::get<1>(v_).message; }
  /// The failure's code (only when !ok()).
  error_code code() const { return std::get<1>(v_).code; }
  /// The failure itself, to pass on unchanged (only when !ok()).
  const failure& why() const { return std::get<1>(v_); }

private:
  std::variant<T, failure> v_;
};

/// expected<void>: success, or a failure line and its code. `if (s)` and
/// `s.ok()` mean success; name a status for what it is (`read`, `valid`),
/// not `error`, so that `if (!read)` reads as the failure it tests.
class status {
public:
  status() = default;
  status(failure f) : failure_(std::move(f)) {}
  bool ok() const { return !failure_; }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return failure_->message; }
  /// The failure's code (only when !ok()).
  error_code code() const { return failure_->code; }
  /// The failure itself, to pass on unchanged (only when !ok()).
  const failure& why() const { return *failure_; }

private:
  std::optional<failure> failure_;
};

} // namespace gridvec
