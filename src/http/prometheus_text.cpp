#include "src/http/prometheus_text.hpp"

#include <charconv>
#include <cmath>

namespace gridvec::http {

void prometheus_text::family(const std::string& name, std::string_view type, std::string_view help) {
  if (!declared_.insert(name).second)
    return;
  text_ += "# HELP " + name + ' ';
  // HELP text escapes only backslash and newline.
  for (char c : help) {
    if (c == '\\')
      text_ += "\\\\";
    else if (c == '\n')
      text_ += "\\n";
    else
      text_ += c;
  }
  text_ += "\n# TYPE " + name + ' ' + std::string{type} + '\n';
}

void prometheus_text::sample(const std::string& name, const metric_labels& labels, double value) {
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0)
        text_ += ',';
      text_ += labels[i].first + "=\"" + escape_label_value(labels[i].second) + '"';
    }
    text_ += '}';
  }
  text_ += ' ' + format_metric_value(value) + '\n';
}

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_metric_value(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  if (ec != std::errc{})
    return "NaN";
  return std::string(buf, end);
}

} // namespace gridvec::http
