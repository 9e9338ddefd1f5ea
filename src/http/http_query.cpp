#include "src/http/http_query.hpp"

#include <charconv>

namespace gridvec::http {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

} // namespace

expected<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      if (i + 2 >= text.size())
        return failure{"malformed percent-escape in the request"};
      const int hi = hex_value(text[i + 1]), lo = hex_value(text[i + 2]);
      if (hi < 0 || lo < 0)
        return failure{"malformed percent-escape in the request"};
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

expected<request_target> parse_target(std::string_view target) {
  request_target t;
  const auto q = target.find('?');
  auto path = percent_decode(target.substr(0, q));
  if (!path)
    return failure{path.error()};
  t.path = std::move(*path);
  if (q == std::string_view::npos)
    return t;
  auto rest = target.substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const auto pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (pair.empty())
      continue;
    const auto eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq));
    auto value = percent_decode(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
    if (!key)
      return failure{key.error()};
    if (!value)
      return failure{value.error()};
    if (!t.params.emplace(std::move(*key), std::move(*value)).second)
      return failure{"parameter '" + std::string{pair.substr(0, eq)} + "' is given twice"};
  }
  return t;
}

expected<std::string> request_target::required(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end() || it->second.empty())
    return failure{"missing parameter '" + name + "'"};
  return it->second;
}

expected<uint32_t> request_target::count(const std::string& name, uint32_t fallback, uint32_t max) const {
  auto it = params.find(name);
  if (it == params.end())
    return fallback;
  uint32_t v = 0;
  const auto& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v == 0 || v > max)
    return failure{"parameter '" + name + "' must be an integer from 1 to " + std::to_string(max)};
  return v;
}

} // namespace gridvec::http
