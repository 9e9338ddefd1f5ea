#pragma once
// The dashboard's static files (apps/http/dashboard/: one page, its script
// and its style sheet; no library, nothing fetched from elsewhere), compiled
// into the binary by cmake/EmbedFiles.cmake. They hold no data: the script
// fetches the JSON API with the token the user typed into the page.
#include <string_view>
#include <vector>

#include "apps/http/http_server.hpp"

namespace gridvec::http {

struct embedded_file {
  std::string_view name; // file name, as in apps/http/dashboard/
  std::string_view body;
};

/// Every embedded file (generated: dashboard_files.cpp in the build directory).
const std::vector<embedded_file>& dashboard_files();

/// The URL paths of the dashboard: "/" (the page), "/dashboard.js", "/dashboard.css".
const std::vector<std::string>& dashboard_paths();

/// The file behind a dashboard path with its content type and headers
/// (a Content-Security-Policy that lets the page run only its own script,
/// talk only to this server, and never be framed), or a 404 reply.
reply dashboard_asset(std::string_view path);

} // namespace gridvec::http
