#pragma once
// Errors at I/O and input boundaries are values, never exceptions: a function
// that can fail on bad input returns expected<T>, holding either the value or
// one human-readable line saying what is wrong and where.
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace gridvec {

struct failure {
  std::string message;
};

template <class T>
class expected {
public:
  expected(T value) : v_(std::move(value)) {}
  expected(failure f) : v_(std::move(f)) {}

  explicit operator bool() const { return v_.index() == 0; }
  T& operator*() { return std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  const std::string& error() const { return std::get<1>(v_).message; }

private:
  std::variant<T, failure> v_;
};

/// expected<void>: success, or a failure line.
class status {
public:
  status() = default;
  status(failure f) : error_(std::move(f.message)) {}
  explicit operator bool() const { return !error_; }
  const std::string& error() const { return *error_; }

private:
  std::optional<std::string> error_;
};

} // namespace gridvec
