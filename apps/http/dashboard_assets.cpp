#include "apps/http/dashboard_assets.hpp"

#include "src/http/json_text.hpp"

namespace gridvec::http {

namespace {

// Everything the page needs comes from this server: no inline script, no
// other origin, no frames around it (clickjacking), no referrer.
constexpr const char* content_security_policy =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::string_view file_of(std::string_view path) {
  if (path == "/" || path == "/index.html")
    return "index.html";
  if (path == "/dashboard.js")
    return "dashboard.js";
  if (path == "/dashboard.css")
    return "dashboard.css";
  return {};
}

std::string content_type_of(std::string_view file) {
  if (file.ends_with(".html"))
    return "text/html; charset=utf-8";
  if (file.ends_with(".js"))
    return "text/javascript; charset=utf-8";
  if (file.ends_with(".css"))
    return "text/css; charset=utf-8";
  return "application/octet-stream";
}

} // namespace

const std::vector<std::string>& dashboard_paths() {
  static const std::vector<std::string> paths{"/", "/index.html", "/dashboard.js", "/dashboard.css"};
  return paths;
}

reply dashboard_asset(std::string_view path) {
  const auto file = file_of(path);
  for (const auto& f : dashboard_files())
    if (!file.empty() && f.name == file) {
      reply r{200, content_type_of(file), std::string{f.body}, {}};
      r.headers = {{"Content-Security-Policy", content_security_policy},
                   {"X-Content-Type-Options", "nosniff"},
                   {"Referrer-Policy", "no-referrer"},
                   {"X-Frame-Options", "DENY"}};
      return r;
    }
  return {404, "application/json", json_error("no such file: " + std::string{path}), {}};
}

} // namespace gridvec::http
