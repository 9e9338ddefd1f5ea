#pragma once
// The request target of the HTTP API, split into its path and its query
// parameters (`/nearest?word=new%20york&k=5`). Percent-escapes and '+' are
// decoded; a malformed escape, a repeated parameter or an overlong target
// is a failure line that becomes a 400, never an exception.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <gridvec/core/expected.hpp>

namespace gridvec::http {

struct request_target {
  std::string path;
  std::map<std::string, std::string> params;

  /// The parameter `name`, or a failure naming it.
  expected<std::string> required(const std::string& name) const;
  /// The parameter `name` as an integer in [1, max], `fallback` if absent.
  expected<uint32_t> count(const std::string& name, uint32_t fallback, uint32_t max) const;
};

expected<request_target> parse_target(std::string_view target);

/// Decodes %XX escapes and '+' (a space, as HTML forms and urlencode write it).
expected<std::string> percent_decode(std::string_view text);

} // namespace gridvec::http
