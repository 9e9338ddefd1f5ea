#include "src/lbfgs/svm_data.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <gridvec/core/table_spec.hpp>

#include "src/access/guarded_open.hpp"

namespace gridvec {

namespace {

bool parse_float(std::string_view s, float& out) {
  if (s.empty())
    return false;
  // strtod: from_chars for floats is not in every libstdc++ the project builds with.
  std::string copy(s);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE || !std::isfinite(v))
    return false;
  out = static_cast<float>(v);
  return std::isfinite(out);
}

bool all_digits(std::string_view s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (c < '0' || c > '9')
      return false;
  return true;
}

// The column of a feature name: itself when it is a number below
// `features`, else its hash.
uint32_t column_of(std::string_view name, uint32_t features) {
  if (all_digits(name) && name.size() <= 10) {
    uint64_t v = 0;
    std::from_chars(name.data(), name.data() + name.size(), v);
    if (v < features)
      return static_cast<uint32_t>(v);
  }
  return static_cast<uint32_t>(table_key(name) % features);
}

} // namespace

expected<uint32_t> parse_feature_count(const std::string& text) {
  uint64_t v = 0;
  auto number = [&](std::string_view s, uint64_t& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && p == s.data() + s.size() && !s.empty();
  };
  if (auto caret = text.find('^'); caret != std::string::npos) {
    uint64_t base = 0, exp = 0;
    if (!number(std::string_view(text).substr(0, caret), base) ||
        !number(std::string_view(text).substr(caret + 1), exp) || base != 2 || exp > 30)
      return failure{"--features " + text + ": expected a number or 2^K with K at most 30"};
    v = uint64_t{1} << exp;
  } else if (!number(text, v)) {
    return failure{"--features " + text + ": expected a number or 2^K"};
  }
  if (v == 0 || v > max_vector_dim)
    return failure{"--features " + text + ": must be between 1 and 2^30"};
  return static_cast<uint32_t>(v);
}

namespace {

// Parses `text`, keeping examples [first, last); `total` counts them all.
expected<svm_data> parse_range(const std::string& text, uint32_t features, const std::string& source, uint64_t first,
                               uint64_t last, uint64_t& total) {
  total = 0;
  svm_data d;
  d.features = features;
  d.offsets.push_back(0);
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    auto where = [&] { return source + ":" + std::to_string(line_no) + ": "; };
    size_t i = 0;
    auto next_token = [&]() -> std::string_view {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        ++i;
      const size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
        ++i;
      return line.substr(start, i - start);
    };
    std::string_view label = next_token();
    if (label.empty())
      continue; // a blank or comment line
    float y = 0;
    if (!parse_float(label, y))
      return failure{where() + "the label '" + std::string(label) + "' is not a number"};
    const bool kept = total >= first && total < last;
    ++total;
    if (kept)
      d.labels.push_back(y > 0 ? 1.0f : -1.0f);
    for (std::string_view tok = next_token(); !tok.empty(); tok = next_token()) {
      const size_t colon = tok.rfind(':');
      if (colon == std::string_view::npos || colon == 0)
        return failure{where() + "'" + std::string(tok) + "' is not FEATURE:VALUE"};
      float v = 0;
      if (!parse_float(tok.substr(colon + 1), v))
        return failure{where() + "the value of '" + std::string(tok) + "' is not a finite number"};
      if (v == 0.0f || !kept)
        continue;
      d.columns.push_back(column_of(tok.substr(0, colon), features));
      d.values.push_back(v);
    }
    if (kept)
      d.offsets.push_back(d.columns.size());
  }
  if (total == 0)
    return failure{source + ": no examples"};
  return d;
}

expected<std::string> read_text(const std::string& path) {
  auto file = access::fopen_read(path, "the training data");
  if (!file)
    return failure{file.error()};
  std::string text;
  char buffer[1 << 16];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file->get())) > 0;)
    text.append(buffer, n);
  if (std::ferror(file->get()))
    return failure{"cannot read " + path};
  return text;
}

} // namespace

expected<svm_data> parse_svm_text(const std::string& text, uint32_t features, const std::string& source) {
  uint64_t total = 0;
  return parse_range(text, features, source, 0, UINT64_MAX, total);
}

expected<svm_data> read_svm_file(const std::string& path, uint32_t features) {
  auto text = read_text(path);
  if (!text)
    return failure{text.error()};
  return parse_svm_text(*text, features, path);
}

expected<svm_data> read_svm_range(const std::string& path, uint32_t features, uint64_t begin, uint64_t end,
                                  uint64_t& total) {
  auto text = read_text(path);
  if (!text)
    return failure{text.error()};
  return parse_range(*text, features, path, begin, end, total);
}

} // namespace gridvec
