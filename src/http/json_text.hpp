#pragma once
// The few pieces of JSON the HTTP API writes by hand (docs/http.md): a
// string, escaped so that any UTF-8 word or error line stays valid JSON,
// and a number, which is `null` when it is not finite (JSON has no NaN).
#include <string>
#include <string_view>

namespace gridvec::http {

/// `value` as a quoted JSON string: ", \ and control characters escaped.
std::string json_string(std::string_view value);

/// `value` as a JSON number (shortest round-tripping), or `null`.
std::string json_number(double value);
/// The same for a float, shortest as a float: scores and vector components
/// are float32, and their double digits would only be noise.
std::string json_number(float value);

/// {"error": "<line>"}: the body of every error response.
std::string json_error(std::string_view line);

} // namespace gridvec::http
